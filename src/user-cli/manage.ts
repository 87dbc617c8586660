import type { ApiKey, Generation, Webhook, WebhookDelivery } from '../../sdk/src/index.js';
import { defined, int, list, num, parse, str, UsageError } from './args.js';
import { note, printJson, say, table, type Context } from './context.js';
import { readInput } from './files.js';
import { describeGeneration, report, reportComparison, waitComparison, waitWithProgress } from './generate.js';

export const MANAGE_USAGE = `mmgen generations get ID [--out FILE] [--out-dir DIR]
mmgen generations list [--status S] [--modality M] [--limit N] [--all]
mmgen generations wait ID [--timeout SECONDS] [--out FILE] [--out-dir DIR]
mmgen generations cancel ID
mmgen generations retry ID [--wait] [--out FILE]
mmgen comparisons get ID | wait ID [--out-dir DIR]
mmgen uploads create FILE                  upload an image; prints its upl_ id for --param upload_id=…
mmgen uploads get ID
mmgen webhooks list | get ID | delete ID | test ID
mmgen webhooks create --url URL --events generation.completed,generation.failed|*
mmgen webhooks update ID [--url URL] [--events E,…] [--enable | --disable]
mmgen webhooks deliveries ID [--status S] | replay ID DELIVERY_ID
mmgen keys list | get ID | revoke ID
mmgen keys create --name N [--role viewer|developer|admin|owner] [--scopes S,…] [--mode live|test] [--budget USD]
mmgen keys update ID [--name N] [--scopes S,…] [--budget USD | --no-budget]
mmgen usage [--group-by day|model|api_key] [--start YYYY-MM-DD] [--end YYYY-MM-DD]
mmgen wallet`;

const TIMEOUT_DEFAULT_MS = 30 * 60_000;

function timeoutOf(v: string | boolean | string[] | boolean[] | undefined): number {
  const s = num(v, 'timeout');
  return s === undefined ? TIMEOUT_DEFAULT_MS : s * 1000;
}

/** Every item of every page. */
async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** The API's JSON with --json, else the human rendering. */
function show(ctx: Context, value: unknown, human: () => string): void {
  if (ctx.json) printJson(ctx, value);
  else say(ctx, human());
}

function generationRows(gs: Generation[]): string {
  return table([['ID', 'STATUS', 'MODALITY', 'MODEL', 'CREDITS', 'CREATED'], ...gs.map((g) => [g.id, g.status, g.modality, g.model, String(g.charged_credits), g.created_at])]);
}

export async function generations(ctx: Context, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const sdk = () => ctx.sdk();
  switch (sub) {
    case 'get': {
      const { values: v, positionals: [id] } = parse(rest, { out: { type: 'string', short: 'o' }, 'out-dir': { type: 'string' } }, { min: 1, max: 1, names: 'the generation id' });
      return report(ctx, await sdk().generations.get(id!), str(v.out), str(v['out-dir']));
    }
    case 'wait': {
      const { values: v, positionals: [id] } = parse(rest, { timeout: { type: 'string' }, out: { type: 'string', short: 'o' }, 'out-dir': { type: 'string' } }, { min: 1, max: 1, names: 'the generation id' });
      const g = await sdk().generations.get(id!);
      return report(ctx, await waitWithProgress(ctx, g, timeoutOf(v.timeout)), str(v.out), str(v['out-dir']));
    }
    case 'list': {
      const { values: v } = parse(rest, { status: { type: 'string' }, modality: { type: 'string' }, limit: { type: 'string' }, all: { type: 'boolean' } }, { min: 0, max: 0, names: '' });
      const query = defined({ status: str(v.status), modality: str(v.modality), limit: int(v.limit, 'limit') });
      let items: Generation[];
      let hasMore = false;
      if (v.all === true) items = await collect(sdk().generations.list(query));
      else {
        const page = await sdk().generations.list(query);
        items = page.data;
        hasMore = page.has_more;
      }
      if (ctx.json) printJson(ctx, { object: 'list', data: items, has_more: hasMore });
      else {
        say(ctx, generationRows(items));
        if (hasMore) note(ctx, '(more: --all, or --limit)');
      }
      return 0;
    }
    case 'cancel': {
      const { positionals: [id] } = parse(rest, {}, { min: 1, max: 1, names: 'the generation id' });
      const g = await sdk().generations.cancel(id!);
      show(ctx, g, () => describeGeneration(g));
      return 0;
    }
    case 'retry': {
      const { values: v, positionals: [id] } = parse(rest, { wait: { type: 'boolean', short: 'w' }, timeout: { type: 'string' }, out: { type: 'string', short: 'o' }, 'idempotency-key': { type: 'string' } }, { min: 1, max: 1, names: 'the generation id' });
      let g = await sdk().generations.retry(id!, defined({ idempotencyKey: str(v['idempotency-key']) }));
      if (v.wait === true || v.out) g = await waitWithProgress(ctx, g, timeoutOf(v.timeout));
      return report(ctx, g, str(v.out));
    }
    default:
      throw new UsageError(`unknown command: generations ${sub ?? ''}`);
  }
}

export async function comparisons(ctx: Context, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values: v, positionals: [id] } = parse(rest, { timeout: { type: 'string' }, 'out-dir': { type: 'string' } }, { min: 1, max: 1, names: 'the comparison id' });
  if (sub === 'get') return reportComparison(ctx, await ctx.sdk().comparisons.get(id!), str(v['out-dir']));
  if (sub === 'wait') {
    const cmp = await waitComparison(ctx, await ctx.sdk().comparisons.get(id!), timeoutOf(v.timeout));
    return reportComparison(ctx, cmp, str(v['out-dir']));
  }
  throw new UsageError(`unknown command: comparisons ${sub ?? ''}`);
}

export async function uploads(ctx: Context, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { positionals: [arg] } = parse(rest, {}, { min: 1, max: 1, names: sub === 'create' ? 'the file to upload' : 'the upload id' });
  let upload;
  if (sub === 'create') upload = await ctx.sdk().uploads.upload(readInput(arg!));
  else if (sub === 'get') upload = await ctx.sdk().uploads.get(arg!);
  else throw new UsageError(`unknown command: uploads ${sub ?? ''}`);
  if (ctx.json) printJson(ctx, upload);
  else say(ctx, `${upload.id}  ${upload.status}  ${upload.content_type}  ${upload.width ?? '?'}×${upload.height ?? '?'}  ${upload.size_bytes} bytes`);
  return 0;
}

function webhookLine(w: Webhook): string[] {
  return [w.id, w.enabled ? 'enabled' : 'disabled', w.mode, w.events.join(','), w.url];
}

function deliveryLine(d: WebhookDelivery): string[] {
  return [d.id, d.event_type, d.status, `attempts ${d.attempts}`, d.last_response_status === null ? '' : `HTTP ${d.last_response_status}`, d.created_at];
}

export async function webhooks(ctx: Context, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const sdk = () => ctx.sdk();
  switch (sub) {
    case 'list': {
      parse(rest, {}, { min: 0, max: 0, names: '' });
      const all = await collect(sdk().webhooks.list({ limit: 100 }));
      show(ctx, { object: 'list', data: all, has_more: false }, () => table(all.map(webhookLine)));
      return 0;
    }
    case 'create': {
      const { values: v } = parse(rest, { url: { type: 'string' }, events: { type: 'string', multiple: true }, disabled: { type: 'boolean' } }, { min: 0, max: 0, names: '' });
      const url = str(v.url);
      const events = list(v.events);
      if (!url || !events) throw new UsageError('webhooks create needs --url and --events (e.g. --events "*")');
      const hook = await sdk().webhooks.create(defined({ url, events, enabled: v.disabled === true ? false : undefined }) as never);
      show(ctx, hook, () => `${hook.id}  ${hook.url}\nsecret: ${hook.secret}   (shown only this once: verify deliveries with it)`);
      return 0;
    }
    case 'get': {
      const { positionals: [id] } = parse(rest, {}, { min: 1, max: 1, names: 'the webhook id' });
      const hook = await sdk().webhooks.get(id!);
      show(ctx, hook, () => table([webhookLine(hook)]));
      return 0;
    }
    case 'update': {
      const { values: v, positionals: [id] } = parse(rest, { url: { type: 'string' }, events: { type: 'string', multiple: true }, enable: { type: 'boolean' }, disable: { type: 'boolean' } }, { min: 1, max: 1, names: 'the webhook id' });
      if (v.enable === true && v.disable === true) throw new UsageError('--enable or --disable, not both');
      const patch = defined({ url: str(v.url), events: list(v.events), enabled: v.enable === true ? true : v.disable === true ? false : undefined });
      if (Object.keys(patch).length === 0) throw new UsageError('nothing to update: --url, --events, --enable or --disable');
      const hook = await sdk().webhooks.update(id!, patch as never);
      show(ctx, hook, () => table([webhookLine(hook)]));
      return 0;
    }
    case 'delete': {
      const { positionals: [id] } = parse(rest, {}, { min: 1, max: 1, names: 'the webhook id' });
      const deleted = await sdk().webhooks.delete(id!);
      show(ctx, deleted, () => `deleted ${deleted.id}`);
      return 0;
    }
    case 'test': {
      const { positionals: [id] } = parse(rest, {}, { min: 1, max: 1, names: 'the webhook id' });
      const d = await sdk().webhooks.test(id!);
      show(ctx, d, () => table([deliveryLine(d)]));
      return 0;
    }
    case 'deliveries': {
      const { values: v, positionals: [id] } = parse(rest, { status: { type: 'string' }, limit: { type: 'string' } }, { min: 1, max: 1, names: 'the webhook id' });
      const page = await sdk().webhooks.deliveries.list(id!, defined({ status: str(v.status), limit: int(v.limit, 'limit') }));
      show(ctx, page, () => table(page.data.map(deliveryLine)));
      return 0;
    }
    case 'replay': {
      const { positionals: [id, deliveryId] } = parse(rest, {}, { min: 2, max: 2, names: 'the webhook id and the delivery id' });
      const d = await sdk().webhooks.deliveries.replay(id!, deliveryId!);
      show(ctx, d, () => table([deliveryLine(d)]));
      return 0;
    }
    default:
      throw new UsageError(`unknown command: webhooks ${sub ?? ''}`);
  }
}

function keyLine(k: ApiKey): string[] {
  return [k.id, k.name, k.mode, k.role, k.scopes.length ? k.scopes.join(',') : 'all scopes', k.monthly_budget_usd === null ? '' : `$${k.monthly_budget_usd}/month`, `${k.prefix}…`];
}

export async function keys(ctx: Context, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const sdk = () => ctx.sdk();
  switch (sub) {
    case 'list': {
      parse(rest, {}, { min: 0, max: 0, names: '' });
      const all = await collect(sdk().apiKeys.list({ limit: 100 }));
      show(ctx, { object: 'list', data: all, has_more: false }, () => table(all.map(keyLine)));
      return 0;
    }
    case 'create': {
      const { values: v } = parse(rest, { name: { type: 'string' }, role: { type: 'string' }, scopes: { type: 'string', multiple: true }, mode: { type: 'string' }, budget: { type: 'string' } }, { min: 0, max: 0, names: '' });
      const name = str(v.name);
      if (!name) throw new UsageError('keys create needs --name');
      const key = await sdk().apiKeys.create(defined({ name, role: str(v.role), scopes: list(v.scopes), mode: str(v.mode), monthly_budget_usd: num(v.budget, 'budget') }) as never);
      show(ctx, key, () => `${table([keyLine(key)])}\nkey: ${key.key}   (shown only this once)`);
      return 0;
    }
    case 'get': {
      const { positionals: [id] } = parse(rest, {}, { min: 1, max: 1, names: 'the key id' });
      const key = await sdk().apiKeys.get(id!);
      show(ctx, key, () => table([keyLine(key)]));
      return 0;
    }
    case 'update': {
      const { values: v, positionals: [id] } = parse(rest, { name: { type: 'string' }, scopes: { type: 'string', multiple: true }, budget: { type: 'string' }, 'no-budget': { type: 'boolean' } }, { min: 1, max: 1, names: 'the key id' });
      const patch = defined({ name: str(v.name), scopes: list(v.scopes), monthly_budget_usd: v['no-budget'] === true ? null : num(v.budget, 'budget') });
      if (Object.keys(patch).length === 0) throw new UsageError('nothing to update: --name, --scopes, --budget or --no-budget');
      const key = await sdk().apiKeys.update(id!, patch as never);
      show(ctx, key, () => table([keyLine(key)]));
      return 0;
    }
    case 'revoke':
    case 'delete': {
      const { positionals: [id] } = parse(rest, {}, { min: 1, max: 1, names: 'the key id' });
      const deleted = await sdk().apiKeys.delete(id!);
      show(ctx, deleted, () => `revoked ${deleted.id}`);
      return 0;
    }
    default:
      throw new UsageError(`unknown command: keys ${sub ?? ''}`);
  }
}

export async function usage(ctx: Context, args: string[]): Promise<number> {
  const { values: v } = parse(args, { 'group-by': { type: 'string' }, start: { type: 'string' }, end: { type: 'string' } }, { min: 0, max: 0, names: '' });
  const u = await ctx.sdk().usage.get(defined({ group_by: str(v['group-by']), start: str(v.start), end: str(v.end) }));
  if (ctx.json) printJson(ctx, u);
  else {
    say(ctx, `usage by ${u.group_by}, ${u.start} to ${u.end}`);
    const rows = u.data.map((r) => [r.key, String(r.generations), String(r.charged_credits), String(r.refunded_credits), `$${r.cost_usd.toFixed(3)}`]);
    const t = u.totals;
    say(ctx, table([[u.group_by.toUpperCase(), 'GENERATIONS', 'CHARGED', 'REFUNDED', 'COST'], ...rows, ['total', String(t.generations), String(t.charged_credits), String(t.refunded_credits), `$${t.cost_usd.toFixed(3)}`]]));
  }
  return 0;
}

export async function wallet(ctx: Context, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== undefined && sub !== 'get' && !sub.startsWith('-')) throw new UsageError(`unknown command: wallet ${sub}`);
  parse(sub === 'get' ? rest : args, {}, { min: 0, max: 0, names: '' });
  const w = await ctx.sdk().wallet.get();
  if (ctx.json) printJson(ctx, w);
  else say(ctx, `balance ${w.balance_credits} credits, ${w.held_credits} held, ${w.available_credits} available (1 credit = US$0.001)`);
  return 0;
}
