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
    today: () => pinnedDate ?? utcToday(),
  };
}

// The catalog asks for the date on every lookup (several per request): the string is made once a day, and each
// call after that compares one number.
let todayCached = { date: '', until: 0 };
function utcToday(): string {
  const now = Date.now();
  if (now >= todayCached.until || now < todayCached.until - 86_400_000) {
    const date = new Date(now).toISOString().slice(0, 10);
    todayCached = { date, until: Date.parse(`${date}T00:00:00.000Z`) + 86_400_000 };
  }
  return todayCached.date;
}
