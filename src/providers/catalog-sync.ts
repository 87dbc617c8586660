import type { CatalogModel } from '../catalog/index.js';
import { JSON_LIMITS } from '../json-shape.js';
import { NotPublishedError, type ListedModel, type ListedModels, type ProviderDeclaration } from './declaration.js';
import { PROVIDER_DECLARATIONS } from './index.js';
import { asSchema, schemaDrift } from './schema-check.js';
import type { ProviderCredentials } from './types.js';
import { readRecordFolder, type UpstreamModelRecord } from './upstream-record.js';

/**
 * `mmgen catalog sync`: what `mmgen providers check` does for schemas, extended to the providers' live model lists
 * (their declarations' `modelList`). For each configured provider it reports, against the records on disk
 * (src/providers/<name>/models/, docs/upstream-models.md):
 * - `new`: listed upstream, with no record;
 * - `gone`: recorded and still live by its record, but no longer listed (or its schema is a 404);
 * - `schema`: the recorded `input` differs from the published one (providers check's comparison);
 * - `deprecation`: a deprecation or shutdown the provider publishes that the record lacks or dates otherwise.
 * Each finding says what taking it changes: `--apply` in the running catalog (domain/catalog-sync.ts), or
 * `--write-records` in the record files (catalog-sync-apply.ts). A record already past its recorded shutdown is
 * no longer called, and is left out.
 */
export type SyncKind = 'new' | 'gone' | 'schema' | 'deprecation' | 'unreachable';

export type RecordLifecycle = UpstreamModelRecord['lifecycle'];
export type RecordInput = UpstreamModelRecord['input'];

export interface SyncFinding {
  /** What `--only` names to approve it: `<kind>:<provider>:<upstream>`. */
  id: string;
  kind: SyncKind;
  provider: string;
  /** The upstream model ('*' for a provider's list that could not be read). */
  upstream: string;
  /** The catalog models routed to it (directly, or through a sibling endpoint of the routed record). */
  slugs: string[];
  details: string[];
  /** What `--apply` writes into the record: its lifecycle (gone, deprecation) or its input (schema). */
  proposed?: { lifecycle?: RecordLifecycle; input?: RecordInput };
  /** A new model, as its provider lists it (the draft `--drafts` writes starts from it). */
  listed?: ListedModel;
  /** Where the provider published what the finding reports (a lifecycle source, a draft's source). */
  source?: string;
}

export interface ProviderSync {
  provider: string;
  /** How many models its list holds; null: it publishes none, or it could not be read. */
  listed: number | null;
  /** How many published schemas were read and compared; null: it publishes none. */
  schemas: number | null;
  /** Why nothing was read: no credentials here. */
  skipped?: string;
}

export interface SyncReport {
  date: string;
  providers: ProviderSync[];
  findings: SyncFinding[];
}

export interface SyncOptions {
  models: readonly CatalogModel[];
  credentials: Record<string, ProviderCredentials>;
  /** YYYY-MM-DD: records shut down by then are left out; an undated deprecation is recorded as of then. */
  today: string;
  /** Only new models released on or after this date (YYYY-MM-DD); those with no published date are kept. */
  newSince?: string;
  /** The registered providers (src/providers/index.ts); a test names its own, with records in a copy. */
  providers?: readonly ProviderDeclaration[];
  /**
   * The records compared, by provider: the files on disk as they are now (the default: what `--write-records`
   * changes), or the ones the running catalog serves, the operator's over the files (what `--apply` changes).
   */
  records?: (provider: ProviderDeclaration) => ReadonlyMap<string, UpstreamModelRecord>;
}

export function findingId(kind: SyncKind, provider: string, upstream: string): string {
  return `${kind}:${provider}:${upstream}`;
}

/** The lifecycle source a written record names: where the fact was read, and when. */
function sourceLine(source: string, today: string, before: string | null): string {
  const line = `${source} on ${today} (mmgen catalog sync)`;
  return before ? `${line}; before: ${before}` : line;
}

/** The record's lifecycle with what the list publishes, and what differs; null when nothing does. */
function publishedLifecycle(record: UpstreamModelRecord, listed: ListedModel, source: string, today: string): { lifecycle: RecordLifecycle; details: string[] } | null {
  const recorded = record.lifecycle;
  const next: RecordLifecycle = { ...recorded };
  const details: string[] = [];
  if (listed.deprecated && listed.deprecated !== recorded.deprecated) {
    details.push(`deprecated ${listed.deprecated} (published), recorded ${recorded.deprecated ?? 'as not deprecated'}`);
    next.deprecated = listed.deprecated;
  }
  if (listed.shutdown && listed.shutdown !== recorded.shutdown) {
    details.push(`shutdown ${listed.shutdown} (published), recorded ${recorded.shutdown ?? 'as none'}`);
    next.shutdown = listed.shutdown;
  }
  // A status without a date (fal's `deprecated`) is news only to a record that knows of no deprecation at all.
  if (listed.status !== 'active' && !next.deprecated && !next.shutdown) {
    details.push(`${listed.status} upstream (no date published), recorded as active (--apply: deprecated as of ${today})`);
    next.deprecated = today;
  }
  if (listed.status === 'retired' && !next.shutdown) {
    details.push(`retired upstream (no date published) (--apply: shut down as of ${today})`);
    next.shutdown = today;
  }
  if (details.length === 0) return null;
  return { lifecycle: { ...next, source: sourceLine(source, today, recorded.source) }, details };
}

/** The catalog models that reach each record: routed to it, or to a record whose sibling endpoint it is. */
function slugsByRecord(provider: string, models: readonly CatalogModel[], records: ReadonlyMap<string, UpstreamModelRecord>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (upstream: string, slug: string) => {
    const slugs = out.get(upstream) ?? [];
    if (!slugs.includes(slug)) slugs.push(slug);
    out.set(upstream, slugs);
  };
  for (const m of models) {
    for (const r of m.routes.filter((x) => x.provider === provider)) {
      add(r.upstream, m.slug);
      const call = records.get(r.upstream)?.call;
      for (const sibling of [call?.with_image, call?.without_image]) if (sibling) add(sibling, m.slug);
    }
  }
  return out;
}

export async function syncCatalog(opts: SyncOptions): Promise<SyncReport> {
  const report: SyncReport = { date: opts.today, providers: [], findings: [] };
  for (const provider of opts.providers ?? PROVIDER_DECLARATIONS) {
    const credentials = opts.credentials[provider.name];
    if (!credentials) {
      report.providers.push({ provider: provider.name, listed: null, schemas: null, skipped: 'no credentials' });
      continue;
    }
    const summary = await syncProvider(provider, credentials, opts, report.findings);
    report.providers.push(summary);
  }
  return report;
}

async function syncProvider(provider: ProviderDeclaration, credentials: ProviderCredentials, opts: SyncOptions, findings: SyncFinding[]): Promise<ProviderSync> {
  const name = provider.name;
  const records = opts.records ? opts.records(provider) : readRecordFolder(name, provider.records);
  const slugs = slugsByRecord(name, opts.models, records);
  const finding = (kind: SyncKind, upstream: string, details: string[], extra: Partial<SyncFinding> = {}) =>
    findings.push({ id: findingId(kind, name, upstream), kind, provider: name, upstream, slugs: slugs.get(upstream) ?? [], details, ...extra });
  // A record shut down by today is no longer called: its absence upstream is expected, its schema moot.
  const live = [...records.values()].filter((r) => r.lifecycle.shutdown === null || r.lifecycle.shutdown > opts.today);
  const gone = new Set<string>();
  const summary: ProviderSync = { provider: name, listed: null, schemas: provider.schemaSource ? 0 : null };

  if (provider.modelList) {
    let listing: ListedModels | null = null;
    try {
      listing = await provider.modelList.list(credentials);
    } catch (err) {
      finding('unreachable', '*', [`its model list: ${err instanceof Error ? err.message : String(err)}`]);
    }
    if (listing) {
      const { source } = listing;
      summary.listed = listing.models.length;
      const byId = new Map(listing.models.map((m) => [m.id, m]));
      for (const record of live) {
        if (provider.modelList.covers && !provider.modelList.covers(record)) continue;
        const listed = byId.get(record.upstream);
        if (!listed) {
          gone.add(record.upstream);
          const lifecycle = { ...record.lifecycle, shutdown: opts.today, source: sourceLine(`no longer listed by ${source}`, opts.today, record.lifecycle.source) };
          finding('gone', record.upstream, [`no longer listed by ${source} (--apply: shut down as of ${opts.today})`], { proposed: { lifecycle }, source });
          continue;
        }
        const published = publishedLifecycle(record, listed, source, opts.today);
        if (published) finding('deprecation', record.upstream, published.details, { proposed: { lifecycle: published.lifecycle }, source });
      }
      for (const listed of listing.models) {
        if (records.has(listed.id)) continue;
        if (opts.newSince && listed.created && listed.created < opts.newSince) continue;
        const when = [listed.created ? `released ${listed.created}` : null, listed.status !== 'active' ? listed.status : null].filter(Boolean).join(', ');
        finding('new', listed.id, [`listed by ${source}${when ? ` (${when})` : ''}; no record, not in the catalog`], { listed, source });
      }
    }
  }

  if (provider.schemaSource) {
    for (const record of live) {
      if (gone.has(record.upstream)) continue;
      let published: unknown;
      try {
        published = await provider.schemaSource.published(record, credentials);
      } catch (err) {
        if (err instanceof NotPublishedError) {
          const lifecycle = { ...record.lifecycle, shutdown: opts.today, source: sourceLine(err.message, opts.today, record.lifecycle.source) };
          finding('gone', record.upstream, [`its schema is no longer published: ${err.message} (--apply: shut down as of ${opts.today})`], { proposed: { lifecycle }, source: err.message });
        } else {
          finding('unreachable', record.upstream, [err instanceof Error ? err.message : String(err)]);
        }
        continue;
      }
      try {
        const liveSchema = asSchema(published);
        summary.schemas = (summary.schemas ?? 0) + 1;
        const drift = schemaDrift(asSchema(record.input), liveSchema);
        if (drift.length > 0) finding('schema', record.upstream, drift, { proposed: { input: withPublishedFields(record.input, liveSchema) } });
      } catch (err) {
        finding('unreachable', record.upstream, [err instanceof Error ? err.message : String(err)]);
      }
    }
  }
  return summary;
}

type Schema = Record<string, unknown>;

/**
 * The recorded input with the published fields: each field the comparison looks at (type, values, bounds,
 * required) taken from the published schema, everything else the record says (descriptions, defaults,
 * cross-field rules) kept, fields no longer published dropped, new ones added as published. After it, the
 * comparison finds nothing.
 */
export function withPublishedFields(recorded: RecordInput, published: { properties: Record<string, Schema>; required: string[] }): RecordInput {
  const properties: Record<string, unknown> = {};
  for (const [field, r] of Object.entries(recorded.properties)) {
    const l = published.properties[field];
    if (!l) continue;
    const merged: Schema = { ...(r as Schema) };
    if (l.type !== undefined) merged.type = l.type;
    if (Array.isArray(l.enum)) merged.enum = l.enum;
    else delete merged.enum;
    for (const bound of ['minimum', 'maximum'] as const) if (typeof l[bound] === 'number') merged[bound] = l[bound];
    properties[field] = merged;
  }
  for (const [field, l] of Object.entries(published.properties)) if (!(field in properties)) properties[field] = withoutReferences(l);
  const out: RecordInput & { required?: string[] } = { ...recorded, properties };
  if (published.required.length > 0 || 'required' in recorded) out.required = published.required;
  return out;
}

/**
 * A published field with its references to the provider's own document (`$ref`) replaced by a note: the record
 * is checked on its own (the strict fakes compile it), where such a reference points nowhere.
 */
export function withoutReferences(schema: unknown, depth = 0): unknown {
  // Outside data, kept to the depth a record may have (schema-references.ts says why).
  if (depth >= JSON_LIMITS.depth) return { description: `published nested deeper than ${JSON_LIMITS.depth} levels: write its schema from the provider's documentation` };
  if (Array.isArray(schema)) return schema.map((s) => withoutReferences(s, depth + 1));
  if (!schema || typeof schema !== 'object') return schema;
  const o = schema as Schema;
  if (typeof o.$ref === 'string') return { description: `published as ${o.$ref}: write its schema from the provider's documentation` };
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, withoutReferences(v, depth + 1)]));
}
