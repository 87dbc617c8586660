import type { HttpPolicy } from './http.js';
import type { ProviderAdapter, ProviderCredentials } from './types.js';
import { recordsIn, type UpstreamModelRecord, type UpstreamRecords } from './upstream-record.js';

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

export interface AdapterContext {
  credentials: ProviderCredentials;
  policy: HttpPolicy;
  /** Its own records, which its request mapping reads (upstream-input.ts). */
  records: UpstreamRecords;
}

export interface ClosableAdapter extends ProviderAdapter {
  close?(): Promise<void>;
}

/** A declaration's records (one reading per folder, however often asked). */
export function recordsOf(provider: Pick<ProviderDeclaration, 'name' | 'records'>): UpstreamRecords {
  return recordsIn(provider.name, provider.records);
}

/** A declaration's adapter, with its records; the registry builds every adapter so, and so may a test. */
export function adapterOf(provider: ProviderDeclaration, credentials: ProviderCredentials, policy: HttpPolicy): ClosableAdapter {
  const adapter = provider.create({ credentials, policy, records: recordsOf(provider) });
  // Routes find an adapter by the name the catalog gives: one that answers to another would never be reached.
  if (adapter.name !== provider.name) throw new Error(`the adapter of provider '${provider.name}' calls itself '${adapter.name}'`);
  return adapter;
}

/** A published JSON document, for a schema source. */
export async function getPublishedJson(url: string, headers: Record<string, string>): Promise<unknown> {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(15_000) });
  if (!res.ok) throw new Error(`${url.split('?')[0]} answered ${res.status}`);
  return res.json();
}
