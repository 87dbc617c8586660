import type { AppDeps } from '../deps.js';
import { ProviderError, type ProviderAdapter, type UpstreamProgress, type UpstreamRequest, type UpstreamStatus } from '../providers/types.js';
import { markRunning, recordProgress, recordUpstreamId, setRunnerNode, selectGeneration } from '../store/generations.js';
import type { EarlyDispatch } from './early-dispatch.js';
import { firstRouteThatTakes, moveToProvider } from './fallback.js';
import { failureCode, finishFailed, finishWith, type RunResult } from './finish.js';
import { deleteJobIfTerminal } from '../store/jobs.js';
import { watchRun, type RunWatch } from './run-watch.js';
import { isTerminal, type GenerationRow } from './views.js';
import { clientRef, demandOf, upstreamModelFor, upstreamRequest } from './upstream-request.js';
import { withAvatarAudio } from './speech-step.js';

export type RunPorts = Pick<AppDeps, 'blobs' | 'catalog' | 'config' | 'db' | 'finishes' | 'lifecycle' | 'log' | 'metrics' | 'moderator' | 'nodeId' | 'policies' | 'providers' | 'settler'>;

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
/** At most one progress write per running generation per this interval: the rest wait for the next poll after it. */
const PROGRESS_WRITE_MS = 1000;

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

/** Where a generation's upstream work runs: the adapter, and the request as that adapter's route names the model. */
interface Placement {
  adapter: ProviderAdapter;
  req: UpstreamRequest;
}

/** Submits to the first route that takes the work (fallback.ts), or takes the early call's answer for the first. */
async function submitWithFallback(
  deps: RunPorts,
  g: GenerationRow,
  req: UpstreamRequest,
  early?: ReturnType<EarlyDispatch['take']>,
): Promise<Placement & { upstreamId: string; status?: UpstreamStatus | undefined }> {
  const routes = deps.providers.routes(g.mode, req.model, g.provider, demandOf(g));
  // The first route's call may already be under way, started alongside the reservation; routed elsewhere after all
  // (or nowhere), it must not run on.
  const head = early && routes[0]?.adapter === early.adapter ? early : null;
  if (early && !head) early.abort.abort();
  if (routes.length === 0) throw new ProviderError('No provider configured on this node takes this generation (its model, and the fields it was sent with).', { kind: 'authentication', retryable: false, accepted: false, origin: 'gateway' });
  return firstRouteThatTakes(
    deps,
    g.id,
    routes,
    async (route, i) => {
      const routed = i === 0 && head ? head.req : { ...req, upstreamModel: route.upstreamModel };
      // A fallback's answer may be lost too: the attempt names its provider before it is sent, so that a retry asks
      // that provider for the job (reconcile), not the one that failed before.
      if (route.adapter.name !== g.provider) await moveToProvider(deps, g, route.adapter.name);
      const submitted = await (i === 0 && head ? head.answer : route.adapter.submit(routed));
      return { adapter: route.adapter, req: routed, ...submitted };
    },
    { logMessage: 'provider failed before accepting the work; trying the next route' },
  );
}

/** Consecutive failed polls (network, unknown errors) before the generation is failed and refunded. */
const MAX_POLL_ERRORS = 10;

export async function runGeneration(deps: RunPorts, generationId: string, opts: RunOptions = {}): Promise<RunResult> {
  const watch = watchRun(deps, generationId);
  try {
    return await run(deps, generationId, opts, watch);
  } finally {
    watch.stop();
    // An early provider call this run did not take up (it found the generation finished, canceled, …) is stopped.
    opts.early?.abort();
  }
}

async function run(deps: RunPorts, generationId: string, opts: RunOptions, watch: RunWatch): Promise<RunResult> {
  let g = opts.row ?? (await selectGeneration(deps.db, generationId));
  if (!g) return { outcome: 'not_runnable' };
  if (isTerminal(g.status)) {
    await deleteJobIfTerminal(deps.db, generationId);
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
      g = await selectGeneration(deps.db, generationId);
      if (!g || isTerminal(g.status)) return { outcome: 'finished' };
      fresh = false;
    }
  }
  if (g.runner_node !== deps.nodeId) {
    await setRunnerNode(deps.db, g.id, deps.nodeId);
  }
  let baseReq = await upstreamRequest(deps, g);

  let upstreamId = g.upstream_id;
  let placement: Placement;
  if (upstreamId) {
    const adapter = deps.providers.byName(g.provider ?? '');
    if (!adapter) return finishFailed(deps, g, `The provider '${g.provider}' is not configured on this node.`);
    placement = { adapter, req: baseReq };
  } else {
    try {
      baseReq = await withAvatarAudio(deps, g, baseReq);
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      return finishFailed(deps, g, `The avatar's audio could not be prepared: ${err.message}.`);
    }
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
        return finishFailed(deps, g, err instanceof ProviderError ? err.message : 'The provider could not be reached.', null, failureCode(err));
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
      const now = await selectGeneration(deps.db, generationId);
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
  const progress = progressWriter(deps, g.id, g.attempt);
  for (;;) {
    let status: UpstreamStatus;
    try {
      status = await adapter.poll(upstreamId, req);
      pollErrors = 0;
    } catch (err) {
      if (err instanceof ProviderError && !err.opts.retryable) return finishFailed(deps, g, err.message, null, failureCode(err));
      pollErrors++;
      deps.log.warn({ err, generationId, pollErrors }, 'poll failed');
      if (pollErrors >= MAX_POLL_ERRORS) {
        await adapter.cancel(upstreamId).catch(() => {});
        return finishFailed(deps, g, `The provider could not be asked about this job ${MAX_POLL_ERRORS} times in a row.`);
      }
      status = { state: 'running' };
    }
    if (isTerminal(status.state)) return finishWith(deps, g, status, upstreamId, req);
    if (status.progress) await progress(status.progress);
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
    const stop = await watch.check(g.attempt);
    if (stop === 'canceled') await adapter.cancel(upstreamId).catch(() => {});
    if (stop === 'lost_lease') return { outcome: 'lost_lease' };
    if (stop) return { outcome: 'finished' };
  }
}

/**
 * Before submitting, asks the providers about this generation's earlier
 * submissions: the current attempt's (a crash between submit and record) and
 * those of earlier attempts (a retry after a lost answer or a timed-out
 * wait), each on the provider that served it. An upstream job that succeeded
 * or is still running is adopted instead of paying twice.
 */
async function reconcile(deps: RunPorts, g: GenerationRow, req: UpstreamRequest): Promise<(Placement & { upstreamId: string }) | null> {
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

/**
 * Writes what the provider reports of a running job when it changed, at most
 * every PROGRESS_WRITE_MS; a value held back is written at the first poll
 * after that. A failed write loses only that report.
 */
function progressWriter(deps: Pick<RunPorts, 'db' | 'log'>, id: string, attempt: number): (p: UpstreamProgress) => Promise<void> {
  let written = '';
  let at = 0;
  return async (p) => {
    const next: UpstreamProgress = { stage: p.stage, percent: p.percent, queue_position: p.queue_position };
    const value = JSON.stringify(next);
    if (value === written || Date.now() - at < PROGRESS_WRITE_MS) return;
    written = value;
    at = Date.now();
    await recordProgress(deps.db, id, attempt, next).catch((err: unknown) => deps.log.warn({ err, generationId: id }, 'progress not recorded'));
  };
}
