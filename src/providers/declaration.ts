import type { HttpPolicy } from './http.js';
import type { ProviderAdapter, ProviderCredentials } from './types.js';
import { SHIPPED_ONLY, type ReadonlyRecordsOverlay, type UpstreamModelRecord, type UpstreamRecords } from './upstream-record.js';

/**
 * A provider as declared config (the idea of Portkey's `providers/<name>/index.ts`): everything mmgen needs to
 * know of one upstream provider, declared in its own folder (`src/providers/<name>/provider.ts`) and registered
 * by one line of `src/providers/index.ts`. The registry's factories, the credential variables config.ts reads,
 * the record lookup and `mmgen providers check`'s sources are all derived from the registered declarations;
 * docs/architecture.md, "Add a provider", walks through one.
 */
export interface ProviderDeclaration {
  /** The name catalog routes give (`provider` in catalog/models.ts); its adapter's `name` is the same. */
  readonly name: string;
  readonly env: ProviderEnv;
  /** The folder of its upstream-model records, one JSON file per upstream model (docs/upstream-models.md). */
  readonly records: URL;
  /** How `mmgen providers check` reads the schemas it publishes; null: it publishes none, lifecycle only. */
  readonly schemaSource: SchemaSource | null;
  /** How `mmgen catalog sync` reads the list of models it offers today; null: it publishes none (Replicate's is every public model). */
  readonly modelList: ModelList | null;
  /** Its adapter, given what it needs and nothing else. */
  create(ctx: AdapterContext): ClosableAdapter;
}

/** Where a provider's credential and base URL come from (contract §10); config.ts reads them, through credentials.ts. */
export interface ProviderEnv {
  keyVar: string;
  baseUrlVar: string;
  defaultBaseUrl: string;
}

export interface SchemaSource {
  /** A variable naming where the schemas are published when that is not the base URL (fal's OpenAPI host), and its default. */
  readonly urlVar?: { name: string; default: string };
  /** The input schema (a JSON Schema object) the provider publishes today for the record's upstream model. */
  published(record: UpstreamModelRecord, credentials: ProviderCredentials): Promise<unknown>;
}

export interface ModelList {
  /** A variable naming where the list is published when that is not the base URL (fal's platform API), and its default. */
  readonly urlVar?: { name: string; default: string };
  /** Every model the provider lists today, and what it publishes of their lifecycle. */
  list(credentials: ProviderCredentials): Promise<ListedModels>;
  /**
   * Whether the list speaks for this record: one it does not cover (ElevenLabs lists no music model) is never
   * reported gone for being absent from it. Absent: it covers every record.
   */
  covers?(record: UpstreamModelRecord): boolean;
}

export interface ListedModels {
  /** The request that listed them (`GET https://api.openai.com/v1/models`), named as a record's lifecycle source. */
  source: string;
  models: ListedModel[];
}

/** A model as a provider's list shows it; a date is YYYY-MM-DD, null where the provider publishes none. */
export interface ListedModel {
  id: string;
  /** When it was released (OpenAI's `created`, Anthropic's `created_at`, fal's `date`). */
  created: string | null;
  /** `deprecated`: the provider says it is on its way out, with or without a date; `retired`: it no longer answers. */
  status: 'active' | 'deprecated' | 'retired';
  deprecated: string | null;
  shutdown: string | null;
}

export interface AdapterContext {
  credentials: ProviderCredentials;
  policy: HttpPolicy;
  /** Its own records, which its request mapping reads (upstream-input.ts). */
  records: UpstreamRecords;
}

export interface ClosableAdapter extends ProviderAdapter {
  close?(): Promise<void>;
}

/**
 * A declaration's records (one reading per folder, however often asked), under an installation's operator records
 * (`overlay`, the runtime's), or the shipped ones alone.
 */
export function recordsOf(provider: Pick<ProviderDeclaration, 'name' | 'records'>, overlay: ReadonlyRecordsOverlay = SHIPPED_ONLY): UpstreamRecords {
  return overlay.recordsIn(provider.name, provider.records);
}

/**
 * A declaration's adapter, with its records (under the installation's operator records: `overlay`); the registry
 * builds every adapter so, and so may a test.
 */
export function adapterOf(provider: ProviderDeclaration, credentials: ProviderCredentials, policy: HttpPolicy, overlay: ReadonlyRecordsOverlay = SHIPPED_ONLY): ClosableAdapter {
  const adapter = provider.create({ credentials, policy, records: recordsOf(provider, overlay) });
  // Routes find an adapter by the name the catalog gives: one that answers to another would never be reached.
  if (adapter.name !== provider.name) throw new Error(`the adapter of provider '${provider.name}' calls itself '${adapter.name}'`);
  return adapter;
}

/** The provider answered 404 for a model's schema: it no longer publishes that model (`mmgen catalog sync` reports it gone). */
export class NotPublishedError extends Error {}

/** A published JSON document, for a schema source or a model list. */
export async function getPublishedJson(url: string, headers: Record<string, string>): Promise<unknown> {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(15_000) });
  if (!res.ok) {
    const message = `${url.split('?')[0]} answered ${res.status}`;
    throw res.status === 404 ? new NotPublishedError(message) : new Error(message);
  }
  return res.json();
}

/** The YYYY-MM-DD of a published date (RFC 3339, or a Unix time in seconds), or null. */
export function publishedDate(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return new Date(value * 1000).toISOString().slice(0, 10);
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(value)) return null;
  return value.slice(0, 10);
}
