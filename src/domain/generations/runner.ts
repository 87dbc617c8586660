import type { AppDeps } from '../../deps.js';
import { newId } from '../../ids.js';
import { probeImage } from '../../media/index.js';
import { ProviderError, type ProviderAdapter, type UpstreamRequest, type UpstreamStatus } from '../../providers/types.js';
import { actualCredits, isTerminal, type AttemptEnd, type Finishing, type GenerationRow, type OutputRow } from './model.js';
import { clientRef, requestFor } from './upstream-request.js';
import { materializeOutputs, OutputError } from './outputs.js';
import { loadGeneration } from './store.js';
import type { EarlyDispatch } from './early-dispatch.js';
import { finishAttempts } from '../../store/finishing.js';
import { markRunning, recordUpstreamId, setAttemptProvider, setRunnerNode } from '../../store/generations.js';
import { deleteJobIfTerminal as deleteTerminalJob, renewJobLease } from '../../store/jobs.js';

/**
 * Runs one generation to a terminal state. Every step is safe to repeat, so a
 * worker that dies anywhere leaves a job that the next worker resumes:
 * - the upstream job id is recorded before mmgen waits on it, and a
 *   submission whose answer was lost is found again by its client reference;
 * - finishing is one statement that moves the generation out of `running`
 *   (so a concurrent cancel or a second runner finds nothing to do), settles
 *   the attempt's credits (once, by ledger reference), writes the outputs and
 *   deletes the job.
 */
const POLL_MIN_MS = 25;
const POLL_MAX_MS = 2000;

export interface RunResult {
  outcome: 'finished' | 'lost_lease' | 'not_runnable';
  /** The generation as this run left it, when this run finished it. */
  row?: GenerationRow;
  outputs?: OutputRow[];
  /**
   * With `replyEarly`: a file-less reply (chat) the provider answered at once,
   * handed back before it is settled; `settled` is the settlement in flight.
   */
  early?: { status: UpstreamStatus; settled: Promise<RunResult> };
}

export interface RunOptions {
  /** The generation as just accepted by this process (skips a read). */
  row?: GenerationRow;
  /** Nothing can have been submitted for it yet, so there is nothing to reconcile. */
  fresh?: boolean;
  /**
   * Hand a successful file-less reply back as soon as the provider answers and
   * settle it right after, off the caller's path (the reservation already
   * covers the charge, which never exceeds it).
   */
  replyEarly?: boolean;
  /** The provider call this request started alongside its reservation, if any: used instead of submitting to the first route. */
  early?: EarlyDispatch | undefined;
}

export async function upstreamRequest(deps: AppDeps, g: GenerationRow): Promise<UpstreamRequest> {
  const model = deps.catalog.find(g.model)!;
  let image: UpstreamRequest['image'];
  if (g.result?.input_blob) {
    const blob = await deps.blobs.get(g.result.input_blob);
    if (blob) {
      // The size was checked when the input was accepted; an upscale's output is held to input × scale.
      const size = await probeImage(blob.bytes, { decode: false });
      image = { bytes: blob.bytes, mime: blob.contentType, width: size?.width ?? 0, height: size?.height ?? 0 };
    }
  }
  return requestFor(model, g, upstreamModelFor(model, g.provider), image);
}

/** The model's name on a provider's route (the primary route's name for the simulator). */
function upstreamModelFor(model: UpstreamRequest['model'], provider: string | null): string {
  return (model.routes.find((r) => r.provider === provider) ?? model.routes[0]).upstream;
}

/** Where a generation's upstream work runs: the adapter, and the request as that adapter's route names the model. */
interface Placement {
  adapter: ProviderAdapter;
  req: UpstreamRequest;
}

/**
 * Submits to the model's routes in order (the one the generation was accepted
 * with first): a retryable failure before the provider accepted any work
 * (connection refused, 5xx, 429 beyond its wait, an open circuit) moves on to
 * the next route; anything else ends here.
 */
async function submitWithFallback(
  deps: AppDeps,
  g: GenerationRow,
  req: UpstreamRequest,
  early?: ReturnType<EarlyDispatch['take']>,
): Promise<Placement & { upstreamId: string; status?: UpstreamStatus | undefined }> {
  const routes = deps.providers.routes(g.mode, req.model, g.provider);
  // The first route's call may already be under way, started alongside the reservation; routed elsewhere after all
  // (or nowhere), it must not run on.
  const head = early && routes[0]?.adapter === early.adapter ? early : null;
  if (early && !head) early.abort.abort();
  if (routes.length === 0) throw new ProviderError('No provider for this model is configured on this node.', { kind: 'authentication', retryable: false, accepted: false, origin: 'gateway' });
  for (let i = 0; ; i++) {
    const route = routes[i]!;
    const routed = i === 0 && head ? head.req : { ...req, upstreamModel: route.upstreamModel };
    try {
      const submitted = await (i === 0 && head ? head.answer : route.adapter.submit(routed));
      return { adapter: route.adapter, req: routed, ...submitted };
    } catch (err) {
      const next = routes[i + 1];
      if (!(err instanceof ProviderError) || !err.canFallBack || !next) throw err;
      deps.log.warn({ generationId: g.id, provider: route.adapter.name, next: next.adapter.name, reason: err.message }, 'provider failed before accepting the work; trying the next route');
    }
  }
}

/** Records which provider serves the attempt now, when routing moved it (fallback, or a job adopted from another provider). */
export async function moveToProvider(deps: AppDeps, g: GenerationRow, provider: string): Promise<GenerationRow> {
  if (g.provider === provider) return g;
  await setAttemptProvider(deps.db, g.id, g.attempt, provider);
  return { ...g, provider };
}

/** Extends this node's lease on the job; false when the job is gone or another node owns it. */
function renewLease(deps: AppDeps, generationId: string): Promise<boolean> {
  return renewJobLease(deps.db, generationId, deps.nodeId, deps.config.jobLeaseMs / 1000);
}

/**
 * Keeps this node's lease on a job alive for as long as a run lasts (a slow
 * upstream call, a long stream), independently of any poll loop. `lost` turns
 * true once the job is gone or owned by another node.
 */
export function leaseHeartbeat(deps: AppDeps, generationId: string): { stop(): void; readonly lost: boolean } {
  let lost = false;
  const timer = setInterval(() => {
    renewLease(deps, generationId).then(
      (ok) => {
        if (!ok) lost = true;
      },
      () => {},
    );
  }, Math.max(50, Math.floor(deps.config.jobLeaseMs / 3)));
  timer.unref();
  return {
    stop: () => clearInterval(timer),
    get lost() {
      return lost;
    },
  };
}

/** Deletes a job only once its generation is terminal: a retry may have queued a new one meanwhile. */
export async function deleteJobIfTerminal(deps: AppDeps, generationId: string): Promise<void> {
  await deleteTerminalJob(deps.db, generationId);
}

/** Consecutive failed polls (network, unknown errors) before the generation is failed and refunded. */
const MAX_POLL_ERRORS = 10;

export async function runGeneration(deps: AppDeps, generationId: string, opts: RunOptions = {}): Promise<RunResult> {
  const heartbeat = leaseHeartbeat(deps, generationId);
  try {
    return await run(deps, generationId, opts, heartbeat);
  } finally {
    heartbeat.stop();
    // An early provider call this run did not take up (it found the generation finished, canceled, …) is stopped.
    opts.early?.abort();
  }
}

async function run(deps: AppDeps, generationId: string, opts: RunOptions, heartbeat: { readonly lost: boolean }): Promise<RunResult> {
  let g = opts.row ?? (await loadGeneration(deps.db, generationId));
  if (!g) return { outcome: 'not_runnable' };
  if (isTerminal(g.status)) {
    await deleteJobIfTerminal(deps, generationId);
    return { outcome: 'finished' };
  }
  let fresh = opts.fresh === true;
  if (g.status === 'queued') {
    // Only the run that moves it out of `queued` knows nothing was submitted for a first attempt.
    const moved = await markRunning(deps.db, g.id, deps.nodeId);
    if (moved) {
      g = moved;
      fresh ||= g.attempt === 1;
    } else {
      g = await loadGeneration(deps.db, generationId);
      if (!g || isTerminal(g.status)) return { outcome: 'finished' };
      fresh = false;
    }
  }
  if (g.runner_node !== deps.nodeId) {
    await setRunnerNode(deps.db, g.id, deps.nodeId);
  }
  const baseReq = await upstreamRequest(deps, g);

  let upstreamId = g.upstream_id;
  let placement: Placement;
  if (upstreamId) {
    const adapter = deps.providers.byName(g.provider ?? '');
    if (!adapter) return finishFailed(deps, g, `The provider '${g.provider}' is not configured on this node.`);
    placement = { adapter, req: baseReq };
  } else {
    const adopted = fresh ? null : await reconcile(deps, g, baseReq);
    if (adopted) {
      placement = adopted;
      upstreamId = adopted.upstreamId;
    } else {
      let submitted: Awaited<ReturnType<typeof submitWithFallback>>;
      try {
        submitted = await submitWithFallback(deps, g, baseReq, fresh ? opts.early?.take() : null);
      } catch (err) {
        if (!(err instanceof ProviderError)) deps.log.warn({ err, generationId }, 'submission failed');
        return finishFailed(deps, g, err instanceof ProviderError ? err.message : 'The provider could not be reached.');
      }
      placement = submitted;
      upstreamId = submitted.upstreamId;
      g = await moveToProvider(deps, g, submitted.adapter.name);
      // Answered at once: nothing to wait on, so the id is recorded with the result.
      if (submitted.status && isTerminal(submitted.status.state)) {
        const early = opts.replyEarly === true && submitted.status.state === 'succeeded' && !submitted.status.outputs?.length;
        // Answered before it is finished, its finishing statement can wait to share a round trip; not a seeded one, which
        // the same request repeated at once must find in the cache.
        const settled = finishWith(deps, g, submitted.status, submitted.upstreamId, submitted.req, early && g.cache_key === null);
        if (early) return { outcome: 'finished', early: { status: submitted.status, settled } };
        return settled;
      }
    }
    g = await moveToProvider(deps, g, placement.adapter.name);
    const adapter = placement.adapter;
    if (!(await recordUpstreamId(deps.db, g.id, g.attempt, upstreamId))) {
      const now = await loadGeneration(deps.db, generationId);
      if (now?.status === 'running' && now.attempt === g.attempt && now.upstream_id) {
        // Another runner recorded its own submission first: follow that one, stop ours.
        if (now.upstream_id !== upstreamId) await adapter.cancel(upstreamId).catch(() => {});
        upstreamId = now.upstream_id;
        const theirs = deps.providers.byName(now.provider ?? '');
        if (theirs) placement = { adapter: theirs, req: { ...baseReq, upstreamModel: upstreamModelFor(baseReq.model, now.provider) } };
      } else {
        // Canceled (or retried) while we submitted: the upstream job must not run on.
        await adapter.cancel(upstreamId).catch(() => {});
        return { outcome: 'finished' };
      }
    }
  }
  const { adapter, req } = placement;

  // Polls never wait longer than a quarter of the lease, so a run notices a lost lease or a cancel in time.
  const maxDelay = Math.min(POLL_MAX_MS, Math.max(POLL_MIN_MS, Math.floor(deps.config.jobLeaseMs / 4)));
  let delay = POLL_MIN_MS;
  let pollErrors = 0;
  const waitStarted = Date.now();
  for (;;) {
    let status: UpstreamStatus;
    try {
      status = await adapter.poll(upstreamId, req);
      pollErrors = 0;
    } catch (err) {
      if (err instanceof ProviderError && !err.opts.retryable) return finishFailed(deps, g, err.message);
      pollErrors++;
      deps.log.warn({ err, generationId, pollErrors }, 'poll failed');
      if (pollErrors >= MAX_POLL_ERRORS) {
        await adapter.cancel(upstreamId).catch(() => {});
        return finishFailed(deps, g, `The provider could not be asked about this job ${MAX_POLL_ERRORS} times in a row.`);
      }
      status = { state: 'running' };
    }
    if (isTerminal(status.state)) return finishWith(deps, g, status, upstreamId, req);
    if (Date.now() - waitStarted > deps.config.upstream.jobTimeoutMs) {
      // The job is left running upstream: its id is recorded, so a retry adopts its result if it finishes.
      return finishFailed(
        deps, g,
        `The provider did not finish this job within ${Math.round(deps.config.upstream.jobTimeoutMs / 1000)} s; it was refunded. ` +
          'Retrying it asks the provider about the same job first.',
      );
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, maxDelay);
    // Shut down past its grace period: the job goes back to the queue with its upstream id recorded.
    if (deps.lifecycle.halted) return { outcome: 'lost_lease' };
    const current = await loadGeneration(deps.db, generationId);
    if (!current || current.status !== 'running' || current.attempt !== g.attempt) {
      if (current?.status === 'canceled') await adapter.cancel(upstreamId).catch(() => {});
      return { outcome: 'finished' };
    }
    if (heartbeat.lost) return { outcome: 'lost_lease' };
  }
}

function finishWith(deps: AppDeps, g: GenerationRow, status: UpstreamStatus, upstreamId: string, req: UpstreamRequest, batched = false): Promise<RunResult> {
  if (status.state === 'succeeded') return finishSucceeded(deps, g, status, upstreamId, req, batched);
  return finishFailed(deps, g, status.error?.message ?? `The upstream job ended as ${status.state}.`, upstreamId);
}

/**
 * Before submitting, asks the providers about this generation's earlier
 * submissions: the current attempt's (a crash between submit and record) and
 * those of earlier attempts (a retry after a lost answer or a timed-out
 * wait), each on the provider that served it. An upstream job that succeeded
 * or is still running is adopted instead of paying twice.
 */
async function reconcile(deps: AppDeps, g: GenerationRow, req: UpstreamRequest): Promise<(Placement & { upstreamId: string }) | null> {
  for (let attempt = g.attempt; attempt >= 1; attempt--) {
    const earlier = g.upstream_history.find((h) => h.attempt === attempt);
    const provider = attempt === g.attempt ? g.provider : (earlier?.provider ?? null);
    const adapter = deps.providers.byName(provider ?? '');
    if (!adapter) continue;
    const id = earlier?.upstream_id ?? (await adapter.findByClientRef(clientRef(g.id, attempt)).catch(() => null));
    if (!id) continue;
    const routed = { ...req, upstreamModel: upstreamModelFor(req.model, provider) };
    const status = await adapter.poll(id, routed).catch(() => null);
    if (status && (status.state === 'succeeded' || status.state === 'running' || status.state === 'queued')) return { adapter, req: routed, upstreamId: id };
  }
  return null;
}

async function storeOutputs(deps: AppDeps, g: GenerationRow, status: UpstreamStatus, req: UpstreamRequest): Promise<OutputRow[]> {
  const files = await materializeOutputs(deps, req, status.outputs ?? []);
  const stored: OutputRow[] = [];
  try {
    for (const [position, out] of files.entries()) {
      const id = newId('out');
      const key = `outputs/${g.id}/${id}`;
      await deps.blobs.put(key, out.bytes, out.mime);
      stored.push({
        id,
        generation_id: g.id,
        position,
        type: out.type,
        mime: out.mime,
        width: out.width,
        height: out.height,
        duration_s: out.duration_s,
        blob_key: key,
        size_bytes: out.bytes.length,
        moderation_status: out.moderation,
      });
    }
  } catch (err) {
    // A partly stored set belongs to no output row.
    await deleteBlobs(deps, stored);
    throw err;
  }
  return stored;
}

/** What follows a finished attempt in this process: its settlement is scheduled, metrics and the log. */
function afterFinish(deps: AppDeps, row: GenerationRow, charged: number): void {
  deps.settler.pending(row.organization_id);
  deps.metrics.settled(row, charged);
  deps.log.info(
    { generationId: row.id, modality: row.modality, model: row.model, status: row.status, attempt: row.attempt, chargedCredits: charged },
    'generation finished',
  );
}

export async function finish(deps: AppDeps, g: GenerationRow, end: AttemptEnd, opts: { batched?: boolean } = {}): Promise<RunResult> {
  const [row] = opts.batched ? [await deps.finishes.add({ g, end })] : await finishAttempts(deps.db, [{ g, end }]);
  if (!row) return { outcome: 'finished' };
  afterFinish(deps, row, end.charged);
  return { outcome: 'finished', row, outputs: end.outputs };
}

export async function finishSucceeded(
  deps: AppDeps,
  g: GenerationRow,
  status: UpstreamStatus,
  upstreamId: string | null = null,
  req?: UpstreamRequest,
  batched = false,
): Promise<RunResult> {
  let outputs: OutputRow[] = [];
  if (status.outputs?.length) {
    try {
      outputs = await storeOutputs(deps, g, status, req ?? (await upstreamRequest(deps, g)));
    } catch (err) {
      if (!(err instanceof OutputError)) throw err;
      // The provider's job succeeded and its id is kept: a retry adopts it and downloads again.
      return finishFailed(deps, g, `The provider finished, but ${err.message}.`, upstreamId);
    }
  }
  const model = deps.catalog.find(g.model)!;
  const charged = actualCredits(model, g, { outputs, outputTokens: status.usage?.output_tokens });
  const result = {
    ...(g.result ?? {}),
    ...(status.message ? { message: status.message } : {}),
    ...(status.usage ? { usage: status.usage } : {}),
    ...(status.finish_reason ? { finish_reason: status.finish_reason } : {}),
  };
  const done = await finish(deps, g, { status: 'succeeded', charged, result, error: null, upstreamId, outputs }, { batched });
  // Nothing was recorded (canceled or finished meanwhile): the files belong to no output row.
  if (!done.row) await deleteBlobs(deps, outputs);
  return done;
}

async function deleteBlobs(deps: AppDeps, outputs: OutputRow[]): Promise<void> {
  await Promise.all(
    outputs.map((o) => deps.blobs.delete(o.blob_key).catch((err: unknown) => deps.log.warn({ err, key: o.blob_key }, 'could not delete an unrecorded output file'))),
  );
}

/** Fails an attempt (refunded); an upstream id is kept so that a retry can ask about that job. */
export async function finishFailed(deps: AppDeps, g: GenerationRow, message: string, upstreamId: string | null = null): Promise<RunResult> {
  return finish(deps, g, {
    status: 'failed', charged: 0, result: null, upstreamId, outputs: [],
    error: { type: 'upstream_error', code: 'upstream_error', message },
  });
}
