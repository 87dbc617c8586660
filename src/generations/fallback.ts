import type { Logger } from 'pino';
import type { Route } from '../providers/registry.js';
import { ProviderError } from '../providers/types.js';
import type { Queryable } from '../store/db.js';
import { setAttemptProvider } from '../store/generations.js';
import type { GenerationRow } from './views.js';

/** Trying routes in order only logs each move on; the caller's tryRoute does the work. */
export interface FallbackPorts {
  log: Logger;
}

/** Recording the attempt's provider is one statement. */
export interface MoveToProviderPorts {
  db: Queryable;
}

/**
 * Tries a model's routes in order (the one the generation was accepted with
 * first): a retryable failure before the provider accepted any work
 * (connection refused, 5xx, 429 beyond its wait, an open circuit) moves on to
 * the next route; anything else ends here. Submissions and streams both go
 * through it, so fallback is decided in one place. `mayMoveOn` can forbid a
 * move that the error alone would allow (a stream that already sent text).
 */
export async function firstRouteThatTakes<T>(
  deps: FallbackPorts,
  generationId: string,
  routes: readonly Route[],
  tryRoute: (route: Route, index: number) => Promise<T>,
  opts: { logMessage: string; mayMoveOn?: () => boolean },
): Promise<T> {
  for (let i = 0; ; i++) {
    const route = routes[i]!;
    try {
      return await tryRoute(route, i);
    } catch (err) {
      const next = routes[i + 1];
      if (!next || !(err instanceof ProviderError) || !err.canFallBack || opts.mayMoveOn?.() === false) throw err;
      deps.log.warn({ generationId, provider: route.adapter.name, next: next.adapter.name, reason: err.message }, opts.logMessage);
    }
  }
}

/** Records which provider serves the attempt now, when routing moved it (fallback, or a job adopted from another provider). */
export async function moveToProvider(deps: MoveToProviderPorts, g: GenerationRow, provider: string): Promise<GenerationRow> {
  if (g.provider === provider) return g;
  await setAttemptProvider(deps.db, g.id, g.attempt, provider);
  return { ...g, provider };
}
