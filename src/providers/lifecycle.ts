import type { CatalogLifecycle, CatalogModel, ModelRoute } from '../catalog/index.js';
import type { RecordFinder } from './upstream-models.js';

/**
 * The catalog's lifecycle from the providers' records (the installation's: `recordOf`): a route stops being served
 * on its upstream's shutdown date (its record's `lifecycle.shutdown`). Reading each route's record also holds the
 * catalog to the registered providers: a route naming another fails the catalog's first read (upstream-models.ts).
 */
export function recordedLifecycle(pinnedDate: string | undefined, recordOf: RecordFinder): CatalogLifecycle {
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
// call after that compares one number. Shared by every installation of the process: it is a function of Date.now()
// alone (the process's clock, which a test's fake timers move for all), checked on every call, a clock moved back
// included.
let todayCached = { date: '', until: 0 };
function utcToday(): string {
  const now = Date.now();
  if (now >= todayCached.until || now < todayCached.until - 86_400_000) {
    const date = new Date(now).toISOString().slice(0, 10);
    todayCached = { date, until: Date.parse(`${date}T00:00:00.000Z`) + 86_400_000 };
  }
  return todayCached.date;
}
