import { Catalog, type CatalogModel } from '../../src/catalog/index.js';
import { CATALOG } from '../../src/catalog/models.js';
import { recordedLifecycle } from '../../src/providers/lifecycle.js';

/**
 * The date test servers serve the catalog as of (MMGEN_CATALOG_DATE): upstream shutdowns recorded for later dates
 * do not delist models under the tests as the calendar moves on. Tests of the lifecycle set their own.
 */
export const TEST_CATALOG_DATE = '2026-11-24';

/** The catalog as test servers serve it: routes past their upstream's shutdown left out, speech steps linked. */
export const SERVED_CATALOG = new Catalog(CATALOG, recordedLifecycle(TEST_CATALOG_DATE));

/** The models test servers serve (active on the tests' date), with the routes they serve them by. */
export const servedModels = (): readonly CatalogModel[] => SERVED_CATALOG.models.filter((m) => m.status === 'active');
