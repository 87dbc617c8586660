import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { AdminCommandError, runAdminCommand, validateCommand, type AdminCommand } from './admin/commands.js';
import { sendAdminCommand } from './admin/socket.js';
import { Catalog, type Modality, type ModelView } from './catalog/index.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import type { Plan } from './domain/access.js';
import { ApiError } from './errors.js';
import { bootstrapDefaultOrganization, openRuntime, releaseLeases, startServer, startWorker, stopWorker } from './main.js';
import { DataDirLockedError, lockHolder } from './store/lock.js';
import { migrate } from './store/migrate.js';
import { isUserCommand, runUserCommand, USER_USAGE } from './user-cli/index.js';
import { checkProviders, type CheckReport } from './providers/schema-check.js';
import { syncCatalog, type SyncReport } from './providers/catalog-sync.js';
import { ApprovalError, applyFindings, approvedFindings, writeDrafts, type Written } from './providers/catalog-sync-apply.js';
import { actor, CATALOG_USAGE, jsonFile, parseCatalogCommand } from './cli-catalog.js';
import type { SyncResult } from './domain/catalog-sync.js';
import type { ChainReport } from './domain/audit.js';
import { Wakeup } from './wakeup.js';
import { stopOnFatal } from './lifecycle.js';

function providersReport(r: CheckReport): string {
  const lines = [`Checked ${r.checked} published schemas; ${r.lifecycleOnly} routes for lifecycle only (no published per-model schema, or no credentials here).`];
  for (const f of r.findings) lines.push(`${f.kind.padEnd(13)} ${f.provider} ${f.upstream} (${f.slugs.join(', ')}): ${f.detail}`);
  if (r.findings.length === 0) lines.push('No differences, and no model near its shutdown.');
  return lines.join('\n');
}

function auditReport(reports: ChainReport[]): string {
  const lines = reports.map((r) => {
    const name = r.organization_id ?? 'installation';
    return r.ok
      ? `ok       ${name}: ${r.entries} entries, head ${r.last_hash ?? '(empty)'}`
      : `BROKEN   ${name}: ${r.problem!.detail} (${r.entries} entries verified before it)`;
  });
  if (reports.length === 0) lines.push('No audit entries yet.');
  const broken = reports.filter((r) => !r.ok).length;
  lines.push(broken === 0 ? `All ${reports.length} chains verify.` : `${broken} of ${reports.length} chains are broken.`);
  return lines.join('\n');
}

/** How many new models a provider's part of the human report names before it counts the rest (--json has all). */
const NEW_SHOWN = 20;

/** What the process runs (the start's log line says it): bin/mmgen's compiled tree, or the sources through tsx. */
const CODE = import.meta.url.endsWith('.ts') ? 'typescript' : 'compiled';

function syncReport(r: SyncReport, taken: string[]): string {
  const lines: string[] = [];
  for (const p of r.providers) {
    if (p.skipped) lines.push(`${p.provider}: skipped (${p.skipped}).`);
    else lines.push(`${p.provider}: ${p.listed === null ? 'no model list read' : `${p.listed} models listed`}; ${p.schemas === null ? 'no per-model schemas published' : `${p.schemas} published schemas compared`}.`);
  }
  for (const p of r.providers) {
    const news = r.findings.filter((f) => f.provider === p.provider && f.kind === 'new');
    for (const f of news.slice(0, NEW_SHOWN)) lines.push(`${f.id}\n    ${f.details.join('\n    ')}`);
    if (news.length > NEW_SHOWN) lines.push(`... and ${news.length - NEW_SHOWN} more new ${p.provider} models (--json lists them all; --new-since narrows them).`);
  }
  for (const f of r.findings.filter((x) => x.kind !== 'new')) {
    lines.push(`${f.id}${f.slugs.length > 0 ? ` (${f.slugs.join(', ')})` : ''}\n    ${f.details.join('\n    ')}`);
  }
  if (r.findings.length === 0) lines.push('The records agree with every list and schema read.');
  lines.push(...taken);
  if (r.findings.length > 0 && taken.length === 0) {
    lines.push(
      'Take findings into the running catalog with --apply --only <id,…> (a new model also needs its definition: --add FILE); --write-records --only <id,…> writes them into the repository\'s record files instead; --drafts DIR writes draft records of new models.',
    );
  }
  return lines.join('\n');
}

class UsageError extends Error {}

type OptionSpec = Record<string, { type: 'string' | 'boolean' }>;

function parse(args: string[], options: OptionSpec): Record<string, string | boolean | undefined> {
  try {
    const { values } = parseArgs({ args, options: { json: { type: 'boolean' }, ...options }, allowPositionals: false, strict: true });
    return values as Record<string, string | boolean | undefined>;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function intArg(v: unknown, name: string): number {
  const n = Number(v);
  if (typeof v !== 'string' || !/^\d+$/.test(v) || !Number.isSafeInteger(n)) throw new UsageError(`--${name} must be a whole number`);
  return n;
}

/** Runs an admin command: through the running server's socket when it holds the embedded database, else directly. */
async function admin(config: Config, cmd: AdminCommand): Promise<unknown> {
  validateCommand(cmd);
  if (cmd.name === 'models.list') return runAdminCommand({ db: undefined as never, catalog: new Catalog(), jobsAvailable: new Wakeup(), catalogFollower: undefined as never, providers: undefined as never, config }, cmd);
  if (!config.databaseUrl && lockHolder(config.dataDir) !== null) return sendAdminCommand(config.dataDir, cmd);
  const runtime = await openRuntime(config, silentLogger());
  try {
    return await runAdminCommand(runtime.deps, cmd);
  } finally {
    await runtime.close();
  }
}

const silentLogger = () => pino({ level: 'silent' });

function print(value: unknown, json: boolean, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

function modelTable(models: ModelView[]): string {
  const rows = models.map((m) => [m.slug, m.modality, m.provider, `$${m.pricing.unit_cost_usd}/${m.pricing.unit}`, m.status]);
  const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...rows.map((r) => r[i]!.length), 6));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

async function serve(config: Config, args: string[]): Promise<void> {
  const v = parse(args, { port: { type: 'string' }, host: { type: 'string' }, 'no-worker': { type: 'boolean' } });
  const port = v.port !== undefined ? intArg(v.port, 'port') : config.port;
  const runtime = await openRuntime(config);
  const { deps } = runtime;
  const created = await bootstrapDefaultOrganization(deps);
  const server = await startServer(runtime, { port, host: str(v.host) ?? config.host, worker: v['no-worker'] !== true });
  if (created) {
    process.stdout.write(
      [
        '',
        'Created the organization "default". Its API keys are shown this once; store them now:',
        `  live key: ${created.keys.live}`,
        `  test key: ${created.keys.test}`,
        'Create the owner\'s account (sign-in to the dashboard) with this one-time link:',
        `  ${created.ownerLink}`,
        `Top up its wallet with: mmgen wallet topup --org ${created.organization.id} --credits 100000`,
        '',
      ].join('\n') + '\n',
    );
  }
  deps.log.info({ url: server.url, database: deps.db.kind, code: CODE }, 'mmgen is listening');
  let stopping = false;
  const stop = async (signal: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    deps.log.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down');
    // The shutdown itself is bounded by the grace period; this only catches a hang beyond it.
    const force = setTimeout(() => {
      deps.log.error('shutdown did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownGraceMs + 15_000);
    force.unref();
    await server.close();
    await runtime.close();
    deps.log.info('stopped');
    process.exit(exitCode);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  stopOnFatal(deps.log, stop);
}

async function workerOnly(config: Config): Promise<void> {
  const runtime = await openRuntime(config);
  const worker = startWorker(runtime);
  await runtime.exportMetrics();
  runtime.deps.log.info({ node: runtime.deps.nodeId, database: runtime.deps.db.kind, code: CODE }, 'mmgen worker started');
  let stopping = false;
  const stop = async (signal: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    runtime.deps.log.info({ signal, graceMs: config.shutdownGraceMs }, 'worker shutting down');
    setTimeout(() => {
      runtime.deps.log.error('shutdown did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownGraceMs + 15_000).unref();
    runtime.deps.lifecycle.beginDrain();
    await stopWorker(runtime, worker);
    runtime.deps.lifecycle.halt();
    await releaseLeases(runtime.deps);
    await runtime.close();
    runtime.deps.log.info('stopped');
    process.exit(exitCode);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  stopOnFatal(runtime.deps.log, stop);
}

async function migrateCommand(config: Config): Promise<void> {
  // openRuntime applies the migrations; running again reports that nothing is left.
  const runtime = await openRuntime(config, silentLogger());
  await migrate(runtime.deps.db);
  await runtime.close();
  process.stdout.write('Migrations are up to date.\n');
}

async function orgCommand(config: Config, sub: string | undefined, rest: string[]): Promise<void> {
  if (sub === 'create') {
    const v = parse(rest, { name: { type: 'string' }, plan: { type: 'string' }, enterprise: { type: 'boolean' }, credits: { type: 'string' } });
    const result = (await admin(config, {
      name: 'org.create',
      args: { actor: actor(), name: str(v.name) ?? '', plan: (str(v.plan) ?? '') as Plan, enterprise: v.enterprise === true, credits: v.credits === undefined ? 0 : intArg(v.credits, 'credits') },
    })) as { organization: { id: string; name: string }; keys: { live: string; test: string } };
    return print(result, v.json === true, () =>
      `Created ${result.organization.id} (${result.organization.name}).\n  live key: ${result.keys.live}\n  test key: ${result.keys.test}\nThe keys are shown only this once.`);
  }
  if (sub === 'set-plan') {
    const v = parse(rest, { org: { type: 'string' }, plan: { type: 'string' }, enterprise: { type: 'boolean' }, 'no-enterprise': { type: 'boolean' } });
    const enterprise = v.enterprise === true ? true : v['no-enterprise'] === true ? false : undefined;
    const result = await admin(config, { name: 'org.set-plan', args: { actor: actor(), org: str(v.org) ?? '', plan: (str(v.plan) ?? '') as Plan, enterprise } });
    return print(result, v.json === true, () => `Plan set: ${JSON.stringify(result)}`);
  }
  if (sub === 'unpause') {
    const v = parse(rest, { org: { type: 'string' } });
    const result = await admin(config, { name: 'org.unpause', args: { actor: actor(), org: str(v.org) ?? '' } });
    return print(result, v.json === true, () => `Unpaused ${str(v.org)}.`);
  }
  throw new UsageError(`unknown command: org ${sub ?? ''}`);
}

async function walletCommand(config: Config, sub: string | undefined, rest: string[]): Promise<void> {
  if (sub !== 'topup') throw new UsageError(`unknown command: wallet ${sub ?? ''}`);
  const v = parse(rest, { org: { type: 'string' }, credits: { type: 'string' }, reference: { type: 'string' } });
  const result = (await admin(config, {
    name: 'wallet.topup',
    args: { actor: actor(), org: str(v.org) ?? '', credits: intArg(v.credits, 'credits'), reference: str(v.reference) },
  })) as { balance_credits: number; available_credits: number };
  return print(result, v.json === true, () => `Balance: ${result.balance_credits} credits (${result.available_credits} available).`);
}

async function auditCommand(config: Config, sub: string | undefined, rest: string[]): Promise<void> {
  if (sub !== 'verify') throw new UsageError(`unknown command: audit ${sub ?? ''}`);
  const v = parse(rest, {});
  const reports = (await admin(config, { name: 'audit.verify', args: {} })) as ChainReport[];
  print(reports, v.json === true, () => auditReport(reports));
  if (reports.some((r) => !r.ok)) process.exitCode = 1;
}

async function modelsCommand(config: Config, sub: string | undefined, rest: string[]): Promise<void> {
  if (sub !== 'list') throw new UsageError(`unknown command: models ${sub ?? ''}`);
  const v = parse(rest, { modality: { type: 'string' }, 'include-delisted': { type: 'boolean' } });
  const result = (await admin(config, {
    name: 'models.list',
    args: { modality: str(v.modality) as Modality | undefined, includeDelisted: v['include-delisted'] === true },
  })) as ModelView[];
  return print(result, v.json === true, () => modelTable(result));
}

async function providersCommand(config: Config, sub: string | undefined, rest: string[]): Promise<void> {
  if (sub !== 'check') throw new UsageError(`unknown command: providers ${sub ?? ''}`);
  const v = parse(rest, { 'near-days': { type: 'string' } });
  const report = await checkProviders({
    models: new Catalog().models,
    credentials: config.providers,
    today: new Date().toISOString().slice(0, 10),
    nearDays: v['near-days'] === undefined ? 30 : intArg(v['near-days'], 'near-days'),
  });
  print(report, v.json === true, () => providersReport(report));
  if (report.findings.length > 0) process.exitCode = 1;
}

/** `mmgen catalog sync`'s options, checked: nothing is taken unless named. */
interface SyncOptions {
  newSince: string | undefined;
  only: string[] | undefined;
  drafts: string | undefined;
  apply: boolean;
  writeRecords: boolean;
  add: string | boolean | undefined;
  json: boolean;
}

function syncOptions(rest: string[]): SyncOptions {
  const v = parse(rest, {
    'new-since': { type: 'string' }, apply: { type: 'boolean' }, only: { type: 'string' }, add: { type: 'string' },
    'write-records': { type: 'boolean' }, drafts: { type: 'string' },
  });
  const newSince = str(v['new-since']);
  if (newSince !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(newSince)) throw new UsageError('--new-since must be a date, YYYY-MM-DD');
  const only = str(v.only)?.split(',').map((id) => id.trim()).filter(Boolean);
  const drafts = str(v.drafts);
  const apply = v.apply === true;
  const writeRecords = v['write-records'] === true;
  // Nothing is taken unless named: --apply and --write-records take exactly the findings --only lists.
  if (apply && writeRecords) throw new UsageError('--apply (the running catalog) and --write-records (the record files) are two different targets: choose one');
  if (apply && !only?.length) throw new UsageError('--apply needs --only ID,… naming the findings to take (ids as reported)');
  if (writeRecords && !only?.length) throw new UsageError('--write-records needs --only ID,… naming the findings to write (ids as reported)');
  if (only && !apply && !writeRecords && drafts === undefined) throw new UsageError('--only needs --apply, --write-records or --drafts');
  if (v.add !== undefined && !apply) throw new UsageError('--add FILE defines the new models --apply takes: it needs --apply');
  return { newSince, only, drafts, apply, writeRecords, add: v.add, json: v.json === true };
}

type SyncOutput = { out: SyncReport & { applied: unknown[]; drafts?: string[] }; lines: string[] };

/** The repository's record files, for the maintainers who ship them: read and written here, no database. */
async function syncRecordFiles(config: Config, o: SyncOptions, today: string): Promise<SyncOutput> {
  const report = await syncCatalog({ models: new Catalog().models, credentials: config.providers, today, ...(o.newSince ? { newSince: o.newSince } : {}) });
  let approved: ReturnType<typeof approvedFindings> = [];
  try {
    if (o.only) approved = approvedFindings(report, o.only, { drafts: o.drafts !== undefined });
  } catch (err) {
    if (err instanceof ApprovalError) throw new UsageError(err.message);
    throw err;
  }
  const applied = o.writeRecords ? applyFindings(approved) : [];
  const written = o.drafts === undefined ? [] : await writeDrafts(o.only ? approved : report.findings, o.drafts, { credentials: config.providers, today });
  return {
    out: { ...report, applied, drafts: written },
    lines: [...applied.map((w: Written) => `wrote ${w.field} of ${w.file} (${w.id})`), ...written.map((d) => `wrote draft ${d}`)],
  };
}

/** The running catalog: compared with the records it serves, changed through the admin use case, audited. */
async function syncRunningCatalog(config: Config, o: SyncOptions): Promise<SyncOutput> {
  const add = o.add === undefined ? undefined : jsonFile(o.add);
  const body = { ...(o.newSince ? { new_since: o.newSince } : {}), ...(o.apply ? { apply: o.only } : {}), ...(add === undefined ? {} : { add: Array.isArray(add) ? add : [add] }) };
  const result = (await admin(config, { name: 'catalog.sync', args: { actor: actor(), body } })) as SyncResult;
  return { out: result, lines: result.applied.map((a) => `took ${a.id}: ${a.changed.join(', ')} of ${a.target}, in the running catalog`) };
}

async function catalogCommand(config: Config, sub: string | undefined, rest: string[]): Promise<void> {
  // The operator's catalog changes (cli-catalog.ts); `catalog sync` is the providers' side.
  if (sub !== 'sync') {
    const parsed = parseCatalogCommand(present(sub, rest));
    const result = await admin(config, parsed.command);
    return print(result, parsed.json, () => parsed.human(result));
  }
  const o = syncOptions(rest);
  const today = config.catalogDate ?? new Date().toISOString().slice(0, 10);
  const { out, lines } = o.writeRecords || o.drafts !== undefined ? await syncRecordFiles(config, o, today) : await syncRunningCatalog(config, o);
  print(out, o.json, () => syncReport(out, lines));
  const taken = new Set((out.applied as Array<{ id: string }>).map((w) => w.id));
  if (out.findings.some((f) => !taken.has(f.id))) process.exitCode = 1;
}

/** The words after the command, as given. */
const present = (sub: string | undefined, rest: string[]): string[] => [sub, ...rest].filter((a): a is string => a !== undefined);

/** An operator command: its lines of the usage text, and what it does with the words after its name. */
interface OperatorCommand {
  help: string;
  run(config: Config, sub: string | undefined, rest: string[]): Promise<void>;
}

/** The operator commands, in the order the usage text lists them. */
const COMMANDS = new Map<string, OperatorCommand>([
  ['serve', {
    help: `  mmgen serve [--port N] [--host H] [--no-worker]
                                         the API (PORT, default 8080) and a generation worker`,
    run: (config, sub, rest) => serve(config, present(sub, rest)),
  }],
  ['worker', { help: '  mmgen worker                           a generation worker only (PostgreSQL: run any number)', run: (config) => workerOnly(config) }],
  ['migrate', { help: '  mmgen migrate                          apply database migrations', run: (config) => migrateCommand(config) }],
  ['org', {
    help: `  mmgen org create --name N --plan free|pro|studio|team [--enterprise] [--credits C] [--json]
  mmgen org set-plan --org ID --plan P [--enterprise | --no-enterprise] [--json]
  mmgen org unpause --org ID [--json]`,
    run: orgCommand,
  }],
  ['wallet', { help: '  mmgen wallet topup --org ID --credits C [--reference R] [--json]', run: walletCommand }],
  ['audit', {
    help: `  mmgen audit verify [--json]            walks each organization's audit chain (and the installation's); reports
                                         the first entry changed or deleted in the database; exits 1 if any`,
    run: auditCommand,
  }],
  ['models', { help: '  mmgen models list [--modality M] [--include-delisted] [--json]', run: modelsCommand }],
  ['providers', {
    help: `  mmgen providers check [--near-days N] [--json]
                                         each routed model's recorded schema against the one its provider
                                         publishes (Replicate, fal), and its shutdown date; exits 1 on a finding`,
    run: providersCommand,
  }],
  ['catalog', {
    help: `  mmgen catalog sync [--new-since DATE] [--apply --only ID,… [--add FILE]] [--json]
                                         the providers' live model lists and schemas against the catalog's records:
                                         new, gone, changed schemas, published deprecations; --apply takes the named
                                         ones into the running catalog (every node, no restart, audited); a new
                                         model's definition comes from --add FILE; exits 1 while a finding is left
  mmgen catalog sync --write-records --only ID,… | --drafts DIR [--only ID,…]
                                         for the maintainers who ship the defaults: the record files instead
                                         (src/providers/<name>/models/), read at the next start; draft records
${CATALOG_USAGE}`,
    run: catalogCommand,
  }],
]);

const USAGE = `mmgen — multi-modality generation service

Operator commands:
${[...COMMANDS.values()].map((c) => c.help).join('\n')}

Environment: DATABASE_URL (PostgreSQL; default: embedded PGlite in MMGEN_DATA_DIR=./data), PORT,
MMGEN_PUBLIC_URL, MMGEN_SIMULATE_PROVIDERS, LOG_LEVEL. See README.md for the full table.`;

const HELP = new Set(['help', '--help', '-h']);

export async function main(argv: string[]): Promise<void> {
  // User commands talk to an mmgen over its API: they need no server configuration.
  if (isUserCommand(argv)) {
    process.exitCode = await runUserCommand(argv);
    return;
  }
  const [cmd, sub, ...rest] = argv;
  const config = loadConfig();
  if (cmd === undefined || HELP.has(cmd)) {
    process.stdout.write(`${USAGE}\n\n${USER_USAGE}\n`);
    return;
  }
  const command = COMMANDS.get(cmd);
  if (!command) throw new UsageError(`unknown command: ${cmd}`);
  return command.run(config, sub, rest);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError) {
    process.stderr.write(`mmgen: ${err.message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (err instanceof ConfigError || err instanceof AdminCommandError || err instanceof ApiError || err instanceof DataDirLockedError) {
    const hint = err instanceof DataDirLockedError ? ' Stop it first, or point MMGEN_DATA_DIR elsewhere.' : '';
    process.stderr.write(`mmgen: ${err.message}${hint}\n`);
    process.exit(1);
  }
  process.stderr.write(`mmgen: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
