import type { CatalogLifecycle, CatalogModel, ModelRoute } from '../catalog/index.js';
import type { ProviderDeclaration } from './declaration.js';
import { PROVIDER_DECLARATIONS } from './index.js';
import { recordFinder } from './upstream-models.js';

/**
 * The catalog's lifecycle from the providers' records: a route stops being served on its upstream's shutdown date
 * (its record's `lifecycle.shutdown`). Reading each route's record also holds the catalog to the registered
 * providers: a route naming another fails the catalog's first read (upstream-models.ts).
 */
export function recordedLifecycle(pinnedDate?: string, providers: readonly ProviderDeclaration[] = PROVIDER_DECLARATIONS): CatalogLifecycle {
  const recordOf = recordFinder(providers);
  return {
    liveRoutes(model: CatalogModel, date: string) {
      const routes: ModelRoute[] = [];
      let lastShutdown: string | null = null;
      for (const route of model.routes) {
        const shutdown = recordOf(route.provider, route.upstream)?.lifecycle.shutdown ?? null;
        if (shutdown === null || shutdown > date) routes.push(route);
        else if (lastShutdown === null || shutdown > lastShutdown) lastShutdown = shutdown;
      }
      return { routes, lastShutdown };
    },
    today: () => pinnedDate ?? new Date().toISOString().slice(0, 10),
  };
}
