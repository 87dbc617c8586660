import type { CatalogLifecycle, CatalogModel, ModelRoute } from '../catalog/index.js';
import { upstreamModel } from './upstream-models.js';

/** When the route's upstream shuts down (YYYY-MM-DD), per its record's `lifecycle`; null when none is announced. */
export function routeShutdown(route: ModelRoute): string | null {
  return upstreamModel(route.provider, route.upstream)?.lifecycle.shutdown ?? null;
}

/** The catalog's lifecycle from the providers' records: a route stops being served on its upstream's shutdown date. */
export function recordedLifecycle(pinnedDate?: string): CatalogLifecycle {
  return {
    liveRoutes(model: CatalogModel, date: string) {
      const routes: ModelRoute[] = [];
      let lastShutdown: string | null = null;
      for (const route of model.routes) {
        const shutdown = routeShutdown(route);
        if (shutdown === null || shutdown > date) routes.push(route);
        else if (lastShutdown === null || shutdown > lastShutdown) lastShutdown = shutdown;
      }
      return { routes, lastShutdown };
    },
    today: () => pinnedDate ?? new Date().toISOString().slice(0, 10),
  };
}
