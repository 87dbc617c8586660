import { readFileSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { AdminCommandError, type CatalogCommand } from './admin/commands.js';
import type { AdminModelView, ModelAccessView } from './domain/catalog-admin.js';
import type { AuditEntry } from './store/catalog.js';

export const CATALOG_USAGE = `  mmgen catalog list [--json]           the effective catalog: each model's source (shipped, override, added),
                                         disabled flag and margin
  mmgen catalog add --file model.json [--json]
                                         add a model: {"model": {...}, "records": [...]} as POST /v1/admin/models
  mmgen catalog add --import --file import.json [--provider P --upstream U] [--json]
                                         add a model with its input schema read from its provider (Replicate,
                                         fal): {"provider", "upstream", "model": {...}, "record": {"map": {...}}}
                                         as POST /v1/admin/models/import
  mmgen catalog edit SLUG [--file patch.json] [--price USD] [--name N] [--disable | --enable]
                      [--margin PCT | --no-margin] [--json]
  mmgen catalog margin PCT | --none [--json]   the global margin over upstream prices, in percent
  mmgen catalog access --org ID [--allow S,S | --deny S,S | --all] [--json]
                                         which models an organization may use (no option: show it)
  mmgen catalog audit [--limit N] [--target T] [--json]`;

/** A parsed `mmgen catalog …`: the admin command to run, and how to print its answer. */
export interface ParsedCatalogCommand {
  command: CatalogCommand;
  json: boolean;
  human(result: unknown): string;
}

type Values = Record<string, string | boolean | undefined> & { json?: boolean | undefined };

function options(args: string[], spec: Record<string, { type: 'string' | 'boolean' }>): { values: Values; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({ args, options: { json: { type: 'boolean' }, ...spec }, allowPositionals: true, strict: true });
    return { values: values as Values, positionals };
  } catch (err) {
    throw new AdminCommandError(`${(err as Error).message}\n\n${CATALOG_USAGE}`);
  }
}

export function jsonFile(path: string | boolean | undefined): unknown {
  if (typeof path !== 'string') return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new AdminCommandError(`cannot read ${path} as JSON: ${(err as Error).message}`);
  }
}

function number(v: string, name: string): number {
  const n = Number(v);
  if (!/^\d+(\.\d+)?$/.test(v) || !Number.isFinite(n)) throw new AdminCommandError(`${name} must be a number, got "${v}"`);
  return n;
}

/** Who runs the command, for the audit. */
export function actor(): string {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (a container's arbitrary uid): the host still says where.
  }
  return `${user}@${hostname()} (cli)`;
}

function modelLine(m: AdminModelView): string {
  const margin = m.effective_margin_percent ? ` +${m.effective_margin_percent}%` : '';
  const flags = [m.source, m.status, ...(m.disabled ? ['disabled'] : [])].join(', ');
  return `${m.slug.padEnd(28)} ${m.definition.modality.padEnd(8)} $${m.definition.unit_cost_usd}${margin}  (${flags})`;
}

export function parseCatalogCommand(args: string[]): ParsedCatalogCommand {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list': {
      const { values } = options(rest, {});
      return {
        command: { name: 'catalog.list', args: {} },
        json: values.json === true,
        human: (r) => {
          const c = r as { margin_percent: string | null; version: number; data: AdminModelView[] };
          return [`Global margin: ${c.margin_percent ?? 'none'}; overlay version ${c.version}.`, ...c.data.map(modelLine)].join('\n');
        },
      };
    }
    case 'add': {
      const { values } = options(rest, { file: { type: 'string' }, import: { type: 'boolean' }, provider: { type: 'string' }, upstream: { type: 'string' } });
      const human = (r: unknown) => `Added: ${modelLine(r as AdminModelView)}`;
      if (values.import) {
        if (!values.file) throw new AdminCommandError('--file is required: {"provider", "upstream", "model": {...}, "record": {"map": {...}}}');
        const body = { ...(jsonFile(values.file) as Record<string, unknown>) };
        if (typeof values.provider === 'string') body.provider = values.provider;
        if (typeof values.upstream === 'string') body.upstream = values.upstream;
        return { command: { name: 'catalog.import', args: { actor: actor(), body } }, json: values.json === true, human };
      }
      if (values.provider !== undefined || values.upstream !== undefined) throw new AdminCommandError('--provider and --upstream go with --import');
      if (!values.file) throw new AdminCommandError('--file is required: {"model": {...}, "records": [...]}');
      return { command: { name: 'catalog.add', args: { actor: actor(), body: jsonFile(values.file) } }, json: values.json === true, human };
    }
    case 'edit': {
      const { values, positionals } = options(rest, {
        file: { type: 'string' }, price: { type: 'string' }, name: { type: 'string' }, disable: { type: 'boolean' }, enable: { type: 'boolean' },
        margin: { type: 'string' }, 'no-margin': { type: 'boolean' },
      });
      const slug = positionals[0];
      if (!slug) throw new AdminCommandError(`the model to edit is required\n\n${CATALOG_USAGE}`);
      const body: Record<string, unknown> = { ...((jsonFile(values.file) as Record<string, unknown> | undefined) ?? {}) };
      if (typeof values.price === 'string') body.unit_cost_usd = values.price;
      if (typeof values.name === 'string') body.display_name = values.name;
      if (values.disable) body.disabled = true;
      if (values.enable) body.disabled = false;
      if (typeof values.margin === 'string') body.margin_percent = number(values.margin, '--margin');
      if (values['no-margin']) body.margin_percent = null;
      return { command: { name: 'catalog.edit', args: { actor: actor(), slug, body } }, json: values.json === true, human: (r) => `Edited: ${modelLine(r as AdminModelView)}` };
    }
    case 'margin': {
      const { values, positionals } = options(rest, { none: { type: 'boolean' } });
      if (!values.none && positionals[0] === undefined) throw new AdminCommandError('give the margin in percent, or --none');
      const margin = values.none ? null : number(positionals[0]!, 'the margin');
      return {
        command: { name: 'catalog.margin', args: { actor: actor(), body: { margin_percent: margin } } },
        json: values.json === true,
        human: (r) => `Global margin: ${(r as { margin_percent: string | null }).margin_percent ?? 'none'}.`,
      };
    }
    case 'access': {
      const { values } = options(rest, { org: { type: 'string' }, allow: { type: 'string' }, deny: { type: 'string' }, all: { type: 'boolean' } });
      const list = (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean);
      const body =
        values.all ? { mode: 'all', models: [] } : typeof values.allow === 'string' ? { mode: 'allow', models: list(values.allow) } : typeof values.deny === 'string' ? { mode: 'deny', models: list(values.deny) } : undefined;
      return {
        command: { name: 'catalog.access', args: { actor: actor(), org: typeof values.org === 'string' ? values.org : '', ...(body ? { body } : {}) } },
        json: values.json === true,
        human: (r) => {
          const a = r as ModelAccessView;
          return a.mode === 'all' ? `${a.organization_id} may use every model.` : `${a.organization_id}: ${a.mode} ${a.models.join(', ') || '(none)'}`;
        },
      };
    }
    case 'audit': {
      const { values } = options(rest, { limit: { type: 'string' }, target: { type: 'string' } });
      return {
        command: {
          name: 'catalog.audit',
          args: { limit: typeof values.limit === 'string' ? number(values.limit, '--limit') : 50, target: typeof values.target === 'string' ? values.target : undefined },
        },
        json: values.json === true,
        human: (r) =>
          (r as AuditEntry[])
            .map((e) => `${new Date(e.at).toISOString()}  ${e.actor}  ${e.action} ${e.target}\n  before: ${JSON.stringify(e.before)}\n  after:  ${JSON.stringify(e.after)}`)
            .join('\n') || 'No changes yet.',
      };
    }
    default:
      throw new AdminCommandError(`unknown command: catalog ${sub ?? ''}\n\n${CATALOG_USAGE}`);
  }
}
