import type { Logger } from 'pino';
import type { Modality } from '../catalog/index.js';
import type { Route } from '../providers/registry.js';
import { errorType, NOOP_SCOPE, type SpanScope, type Tracing } from '../tracing.js';
import { ProviderError } from '../providers/types.js';
import type { Queryable } from '../store/db.js';
import { setAttemptProvider } from '../store/generations.js';
import type { GenerationRow } from './views.js';

/** Trying routes in order logs each move on and traces each attempt; the caller's tryRoute does the work. */
export interface FallbackPorts {
  log: Logger;
  tracing: Tracing;
}

/** What an attempt's span says of the generation (GenAI semantic conventions where they have a name for it). */
export interface AttemptTrace {
  modality: Modality;
  /** The catalog's model (mmgen's slug); the route's upstream model is gen_ai.request.model. */
  model: string;
  /** The generation's attempt (1, then +1 per retry); each route tried within it is mmgen.provider_attempt. */
  attempt: number;
}

/** gen_ai.operation.name: a chat is `chat`; every other modality makes content (`generate_content`). */
function operationOf(modality: Modality): string {
  return modality === 'chat' ? 'chat' : 'generate_content';
}

/** gen_ai.output.type where the conventions name one (text, image, speech); mmgen.modality says the rest. */
const OUTPUT_TYPE: Partial<Record<Modality, string>> = { chat: 'text', image: 'image', upscale: 'image', voice: 'speech' };

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
  tryRoute: (route: Route, index: number, span: SpanScope) => Promise<T>,
  opts: { logMessage: string; mayMoveOn?: () => boolean; trace: AttemptTrace },
): Promise<T> {
  for (let i = 0; ; i++) {
    const route = routes[i]!;
    try {
      // Untraced, the route is tried as it is: no span, no attributes built.
      return await (deps.tracing.on ? tracedAttempt(deps.tracing, generationId, routes, i, tryRoute, opts) : tryRoute(route, i, NOOP_SCOPE));
    } catch (err) {
      const next = routes[i + 1];
      if (!mayMoveOn(err, next, opts)) throw err;
      deps.log.warn({ generationId, provider: route.adapter.name, next: next!.adapter.name, reason: (err as Error).message }, opts.logMessage);
    }
  }
}

function mayMoveOn(err: unknown, next: Route | undefined, opts: { mayMoveOn?: () => boolean }): boolean {
  return next !== undefined && err instanceof ProviderError && err.canFallBack && opts.mayMoveOn?.() !== false;
}

/** One route tried in a span of its own; the spans of a generation's routes are siblings under the stage that tried them. */
function tracedAttempt<T>(
  tracing: Tracing,
  generationId: string,
  routes: readonly Route[],
  i: number,
  tryRoute: (route: Route, index: number, span: SpanScope) => Promise<T>,
  opts: { mayMoveOn?: () => boolean; trace: AttemptTrace },
): Promise<T> {
  const route = routes[i]!;
  const operation = operationOf(opts.trace.modality);
  const attempt = (span: SpanScope): Promise<T> =>
    tryRoute(route, i, span).then(
      (value) => {
        span.set({ 'mmgen.outcome': 'accepted' });
        return value;
      },
      (err: unknown) => {
        const next = routes[i + 1];
        const moveOn = mayMoveOn(err, next, opts);
        span.set({
          'mmgen.outcome': moveOn ? 'fell_back' : 'failed',
          'http.response.status_code': err instanceof ProviderError ? err.opts.status : undefined,
          // The failure's kind (overloaded, network, …), never the provider's message, which may quote the request.
          'mmgen.fallback.reason': moveOn ? errorType(err) : undefined,
          'mmgen.fallback.next_provider': moveOn ? next?.adapter.name : undefined,
        });
        span.fail(errorType(err));
        throw err;
      },
    );
  return tracing.span(
    `${operation} ${route.upstreamModel}`,
    {
      'gen_ai.operation.name': operation,
      'gen_ai.provider.name': route.adapter.name,
      'gen_ai.request.model': route.upstreamModel,
      'gen_ai.output.type': OUTPUT_TYPE[opts.trace.modality],
      'mmgen.modality': opts.trace.modality,
      'mmgen.model': opts.trace.model,
      'mmgen.generation.id': generationId,
      'mmgen.generation.attempt': opts.trace.attempt,
      'mmgen.provider_attempt': i + 1,
    },
    attempt,
    { kind: 'client' },
  );
}

/** Records which provider serves the attempt now, when routing moved it (fallback, or a job adopted from another provider). */
export async function moveToProvider(deps: MoveToProviderPorts, g: GenerationRow, provider: string): Promise<GenerationRow> {
  if (g.provider === provider) return g;
  await setAttemptProvider(deps.db, g.id, g.attempt, provider);
  return { ...g, provider };
}
