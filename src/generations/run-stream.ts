import type { Config } from '../config.js';
import type { ProviderRegistry } from '../providers/registry.js';
import { ApiError } from '../errors.js';
import { ProviderError, type ChatStreamChunk } from '../providers/types.js';
import { firstRouteThatTakes, moveToProvider, type FallbackPorts, type MoveToProviderPorts } from './fallback.js';
import { failureCode, finishFailed, finishSucceeded, type FinishWithPorts } from './finish.js';
import { watchRun, type RunWatchPorts } from './run-watch.js';
import type { GenerationRow } from './views.js';
import { selectGeneration } from '../store/generations.js';
import { demandOf, upstreamRequest } from './upstream-request.js';

/**
 * A streamed chat: its routes (providers, through fallback.ts), a watch that keeps the lease and notices a cancel
 * (RunWatchPorts), and the finish of any generation (FinishWithPorts, whose upstream request it also builds).
 */
export interface RunStreamPorts extends FinishWithPorts, RunWatchPorts, FallbackPorts, MoveToProviderPorts {
  config: Pick<Config, 'allowPrivateNetwork' | 'answeredFinishBatchMs' | 'jobLeaseMs' | 'upstream'>;
  providers: ProviderRegistry;
}

/**
 * Streams a chat generation from its provider, calling `onDelta` per piece,
 * then settles it like any other generation. A cache hit replays the stored
 * reply without asking the provider. A client that goes away does not stop
 * the generation (the provider bills the whole reply, so mmgen does); a
 * cancel does: the upstream stream is aborted and nothing is charged.
 */
export async function runStreamed(deps: RunStreamPorts, accepted: GenerationRow, onDelta: (text: string) => void, onStart: () => void): Promise<GenerationRow> {
  let g = accepted;
  if (g.status === 'canceled') throw new ApiError('generation_canceled', `The generation ${g.id} was canceled; nothing was charged.`);
  onStart();
  // A cache hit, or the finished reply of an earlier request with the same Idempotency-Key: replayed, not asked again.
  if (g.cache_hit || g.status === 'succeeded') {
    for (const piece of (g.result?.message?.content ?? '').match(/\S+\s*|\s+/g) ?? []) onDelta(piece);
    return g;
  }
  const req = await upstreamRequest(deps, g);
  // The routes in order, the one the generation was accepted with first: a provider that fails before its first byte hands over to the next.
  const routes = deps.providers.routes(g.mode, req.model, g.provider, demandOf(g));
  // No polls here to notice a cancel between: the watch looks every 250 ms and aborts the upstream stream.
  const watch = watchRun(deps, g.id, { ms: 250, attempt: g.attempt });
  let final: Extract<ChatStreamChunk, { type: 'done' }> | undefined;
  try {
    let started = false;
    if (routes.length > 0) {
      await firstRouteThatTakes(
        deps,
        g.id,
        routes,
        async (route, _i, span) => {
          if (!route.adapter.streamChat) throw new Error('adapter cannot stream');
          for await (const c of route.adapter.streamChat({ ...req, upstreamModel: route.upstreamModel }, watch.signal)) {
            if (watch.signal.aborted) break;
            if (!started) {
              started = true;
              g = await moveToProvider(deps, g, route.adapter.name);
            }
            if (c.type === 'delta') onDelta(c.text);
            else final = c;
          }
          if (final?.usage && deps.tracing.on) span.set({ 'gen_ai.usage.input_tokens': final.usage.input_tokens, 'gen_ai.usage.output_tokens': final.usage.output_tokens });
          if (final && deps.tracing.on) span.set({ 'gen_ai.response.finish_reasons': [final.finish_reason] });
        },
        // Once text reached the client, or the stream was stopped, no other provider may take over.
        {
          logMessage: 'provider failed before streaming; trying the next route',
          mayMoveOn: () => !started && !watch.signal.aborted,
          trace: { modality: g.modality, model: g.model, attempt: g.attempt },
        },
      );
    }
  } catch (err) {
    if (!watch.signal.aborted) {
      await finishFailed(deps, g, err instanceof ProviderError ? err.message : 'The provider stream failed.', null, failureCode(err));
      throw err instanceof ApiError ? err : new ApiError('upstream_error', `The generation ${g.id} failed at the provider and was refunded.`);
    }
  } finally {
    watch.stop();
  }
  if (watch.signal.aborted) {
    if (watch.stopped === 'canceled') throw new ApiError('generation_canceled', `The generation ${g.id} was canceled; nothing was charged.`);
    throw new ApiError('upstream_error', `The generation ${g.id} ended while it was streaming.`);
  }
  if (!final) {
    await finishFailed(deps, g, 'The provider stream ended without a final message.');
    throw new ApiError('upstream_error', `The generation ${g.id} failed at the provider and was refunded.`);
  }
  const done = await finishSucceeded(deps, g, { state: 'succeeded', message: final.message, usage: final.usage, finish_reason: final.finish_reason });
  return done.row ?? (await selectGeneration(deps.db, g.id))!;
}
