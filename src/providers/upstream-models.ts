import { recordsOf, type ProviderDeclaration } from './declaration.js';
import { PROVIDER_DECLARATIONS } from './index.js';
import type { UpstreamModelRecord } from './upstream-record.js';

/**
 * The record of a catalog route, found through the registration (the record folder each declaration names:
 * upstream-record.ts reads it). A route naming a provider that is not registered is a catalog error, and fails
 * here loudly rather than reading as a route with no record: the catalog's lifecycle (lifecycle.ts), its
 * models' parameters and `mmgen providers check` all look routes up here, so the catalog is held to the
 * registered names at its first read.
 */
export interface RecordFinder {
  (provider: string, upstream: string): UpstreamModelRecord | undefined;
  /** Every record of a registered provider, by upstream id. */
  all(provider: string): ReadonlyMap<string, UpstreamModelRecord>;
}

export function recordFinder(providers: readonly ProviderDeclaration[]): RecordFinder {
  // Made at the first lookup, not here: this module is evaluated while the registration list may still be loading.
  let byName: ReadonlyMap<string, ProviderDeclaration> | undefined;
  const records = (provider: string) => {
    const declared = (byName ??= new Map(providers.map((p) => [p.name, p]))).get(provider);
    if (!declared) throw new Error(`no provider '${provider}' is registered (src/providers/index.ts): a catalog route names it`);
    return recordsOf(declared);
  };
  return Object.assign((provider: string, upstream: string) => records(provider).get(upstream), { all: (provider: string) => records(provider).all() });
}

const registered = recordFinder(PROVIDER_DECLARATIONS);

/** The record of one registered provider's upstream model, if mmgen has one. */
export function upstreamModel(provider: string, upstream: string): UpstreamModelRecord | undefined {
  return registered(provider, upstream);
}

/** Every record of a registered provider, by upstream id. */
export function upstreamModelsOf(provider: string): ReadonlyMap<string, UpstreamModelRecord> {
  return registered.all(provider);
}
