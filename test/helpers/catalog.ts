import { Catalog, MODALITIES, type CatalogModel, type Modality } from '../../src/catalog/index.js';
import { CATALOG } from '../../src/catalog/models.js';
import { recordedLifecycle } from '../../src/providers/lifecycle.js';
import { SHIPPED_RECORDS } from '../../src/providers/upstream-models.js';

/**
 * The date test servers serve the catalog as of (MMGEN_CATALOG_DATE): upstream shutdowns recorded for later dates
 * do not delist models under the tests as the calendar moves on. Tests of the lifecycle set their own.
 */
export const TEST_CATALOG_DATE = '2026-11-24';

/** The catalog as test servers serve it: routes past their upstream's shutdown left out, speech steps linked. */
export const SERVED_CATALOG = new Catalog(CATALOG, recordedLifecycle(TEST_CATALOG_DATE, SHIPPED_RECORDS));

/** The models test servers serve (active on the tests' date), with the routes they serve them by. */
export const servedModels = (): readonly CatalogModel[] => SERVED_CATALOG.models.filter((m) => m.status === 'active');

/**
 * Each modality's endpoint as the served OpenAPI document declares it (the operation carrying `x-mmgen-modality`),
 * read the way the dashboard and the SDK read it, so that no test keeps its own list of paths.
 */
export function modalityPaths(openapi: { paths: Record<string, Record<string, { 'x-mmgen-modality'?: { modality: string } }>> }): Record<Modality, string> {
  const found: Partial<Record<Modality, string>> = {};
  for (const [path, methods] of Object.entries(openapi.paths)) {
    const modality = methods.post?.['x-mmgen-modality']?.modality as Modality | undefined;
    if (modality) found[modality] = path;
  }
  const missing = MODALITIES.filter((m) => !found[m]);
  if (missing.length) throw new Error(`the OpenAPI document declares no endpoint for ${missing.join(', ')}`);
  return found as Record<Modality, string>;
}
