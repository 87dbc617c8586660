import { recordsOf, type ProviderDeclaration } from './declaration.js';
import { PROVIDER_DECLARATIONS } from './index.js';
import { SHIPPED_ONLY, type ReadonlyRecordsOverlay, type UpstreamModelRecord } from './upstream-record.js';

/**
 * The record of a catalog route on one installation, found through the registration (the record folder each
 * declaration names: upstream-record.ts reads it) under the installation's operator records. A route naming a
 * provider that is not registered is a catalog error, and fails here loudly rather than reading as a route with
 * no record: the catalog's lifecycle (lifecycle.ts), its models' parameters and `mmgen providers check` all look
 * routes up here, so the catalog is held to the registered names at its first read.
 */
export interface RecordFinder {
  (provider: string, upstream: string): UpstreamModelRecord | undefined;
  /** Every record of a registered provider, by upstream id. */
  all(provider: string): ReadonlyMap<string, UpstreamModelRecord>;
  /** The registered providers whose records it finds. */
  readonly providers: readonly ProviderDeclaration[];
  /**
   * The operator's records it reads now (RecordsOverlay.current): a new object whenever they change, so what is
   * derived from records is cached under it. Two installations without operator records share it, and so share
   * what is derived from the shipped records alone (one reading per folder for the whole process).
   */
  readonly version: object;
}

/** The records of `providers` on an installation (its `overlay`, the runtime's: main.ts), or the shipped ones alone. */
export function recordFinder(providers: readonly ProviderDeclaration[], overlay: ReadonlyRecordsOverlay = SHIPPED_ONLY): RecordFinder {
  // Made at the first lookup, not here: this module is evaluated while the registration list may still be loading.
  let byName: ReadonlyMap<string, ProviderDeclaration> | undefined;
  const records = (provider: string) => {
    const declared = (byName ??= new Map(providers.map((p) => [p.name, p]))).get(provider);
    if (!declared) throw new Error(`no provider '${provider}' is registered (src/providers/index.ts): a catalog route names it`);
    return recordsOf(declared, overlay);
  };
  const find = (provider: string, upstream: string) => records(provider).get(upstream);
  return Object.defineProperties(find, {
    all: { value: (provider: string) => records(provider).all() },
    providers: { get: () => providers },
    version: { get: () => overlay.current },
  }) as RecordFinder;
}

/** What is derived from records and kept, for this version of them (RecordFinder.version): a map per version. */
export function cachedFor<T>(byVersion: WeakMap<object, Map<string, T>>, records: RecordFinder): Map<string, T> {
  let kept = byVersion.get(records.version);
  if (!kept) byVersion.set(records.version, (kept = new Map()));
  return kept;
}

/**
 * The registered providers' shipped records, under no operator's: what the repository holds, the same for every
 * installation. The request path never reads these (an installation's are its registry's, ProviderRegistry.records);
 * the fakes, the checks of the records and the tests do.
 */
export const SHIPPED_RECORDS = recordFinder(PROVIDER_DECLARATIONS);

/** The shipped record of one registered provider's upstream model, if mmgen has one. */
export function shippedRecord(provider: string, upstream: string): UpstreamModelRecord | undefined {
  return SHIPPED_RECORDS(provider, upstream);
}

/** Every shipped record of a registered provider, by upstream id. */
export function shippedRecordsOf(provider: string): ReadonlyMap<string, UpstreamModelRecord> {
  return SHIPPED_RECORDS.all(provider);
}
