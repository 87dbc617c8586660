import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { Lifecycle } from '../lifecycle.js';
import { ProviderError, type UpstreamProgress, type UpstreamRequest, type UpstreamStatus } from '../providers/types.js';
import type { Queryable } from '../store/db.js';
import { markRunning, recordProgress, recordUpstreamId, setRunnerNode, selectGeneration } from '../store/generations.js';
import type { EarlyDispatch } from './early-dispatch.js';
import { firstRouteThatTakes, moveToProvider, type MoveToProviderPorts } from './fallback.js';
import type { FinishWithPorts, RunResult } from './finish.js';
import {
  endAlreadyTerminal, endAnsweredAtOnce, endedElsewhere, endHalted, endNoRouteTook, endPollRefused, endProviderMissing,
  endReported, endSpeechFailed, endStopped, endSuperseded, endTimedOut, endUnreachable, notRunnable,
  type Placement, type UpstreamJob,
} from './run-ends.js';
import { watchRun, type RunWatch, type RunWatchPorts } from './run-watch.js';
import { isTerminal, type GenerationRow } from './views.js';
import { clientRef, demandOf, upstreamModelFor, upstreamRequest } from './upstream-request.js';
import { withAvatarAudio, type SpeechStepPorts } from './speech-step.js';

/**
 * A run reaches the whole lifecycle of a generation: its row and job (db, under this node's name, with a lease
 * kept alive: RunWatchPorts), its model and input (catalog, blobs), the providers (with the speech step's),
 * its outputs stored and judged, and the finishing statement with what follows it (FinishWithPorts); `lifecycle`
 * says when the process has shut down past its grace period.
 */
export interface RunPorts extends FinishWithPorts, SpeechStepPorts, RunWatchPorts, MoveToProviderPorts {
  config: Pick<Config, 'allowPrivateNetwork' | 'answeredFinishBatchMs' | 'jobLeaseMs' | 'upstream'>;
  providers: ProviderRegistry;
  lifecycle: Lifecycle;
}

const POLL_MIN_MS = 25;
const POLL_MAX_MS = 2000;
/** At most one progress write per running generation per this interval: the rest wait for the next poll after it. */
const PROGRESS_WRITE_MS = 1000;
/** Consecutive failed polls (network, unknown errors) before the generation is failed and refunded. */
const MAX_POLL_ERRORS = 10;

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

/**
 * Runs one generation to a terminal state. Every step is safe to repeat, so a
 * worker that dies anywhere leaves a job that the next worker resumes:
 * - the upstream job id is recorded before mmgen waits on it, and a
 *   submission whose answer was lost is found again by its client reference;
 * - finishing is one statement that moves the generation out of `running`
 *   (so a concurrent cancel or a second runner finds nothing to do), settles
 *   the attempt's credits (once, by ledger reference), writes the outputs and
 *   deletes the job.
 * Each way it ends is one step of run-ends.ts.
 */
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

/** What a step hands on to the next one, or the end the run came to (run-ends.ts). */
type Step<T> = { go: T } | { end: RunResult | Promise<RunResult> };

/**
 * The lifecycle: take the generation up, place its upstream job (the one recorded on the attempt, an earlier
 * submission adopted, or a new submission), then wait on it until one of the ends.
 */
async function run(deps: RunPorts, generationId: string, opts: RunOptions, watch: RunWatch): Promise<RunResult> {
  const taken = await takeUp(deps, generationId, opts);
  if ('end' in taken) return taken.end;
  const { g, fresh } = taken.go;
  const req = await upstreamRequest(deps, g);
  const placed = g.upstream_id ? followRecorded(deps, g, g.upstream_id, req) : await submitOrAdopt(deps, g, req, fresh, opts);
  if ('end' in placed) return placed.end;
  return waitForEnd(deps, placed.go, watch);
}

/**
 * Reads the generation and takes it up: out of `queued` (only the run that moves it knows that nothing was
 * submitted for a first attempt: `fresh`), with this node named as its runner.
 */
async function takeUp(deps: RunPorts, generationId: string, opts: RunOptions): Promise<Step<{ g: GenerationRow; fresh: boolean }>> {
  let g = opts.row ?? (await selectGeneration(deps.db, generationId));
  if (!g) return { end: notRunnable() };
  if (isTerminal(g.status)) return { end: endAlreadyTerminal(deps, generationId) };
  let fresh = opts.fresh === true;
  if (g.status === 'queued') {
    const moved = await markRunning(deps.db, g.id, deps.nodeId);
    if (moved) {
      g = moved;
      fresh ||= g.attempt === 1;
    } else {
      g = await selectGeneration(deps.db, generationId);
      if (!g || isTerminal(g.status)) return { end: endedElsewhere() };
      fresh = false;
    }
  }
  if (g.runner_node !== deps.nodeId) {
    await setRunnerNode(deps.db, g.id, deps.nodeId);
  }
  return { go: { g, fresh } };
}

/** The attempt's upstream job is recorded (a run that died or lost its lease after submitting): it is waited on where it runs. */
function followRecorded(deps: RunPorts, g: GenerationRow, upstreamId: string, req: UpstreamRequest): Step<UpstreamJob> {
  const adapter = deps.providers.byName(g.provider ?? '');
  if (!adapter) return { end: endProviderMissing(deps, g) };
  return { go: { g, adapter, req, upstreamId } };
}

/**
 * No job is recorded on the attempt: an avatar's speech is made first (speech-step.ts); then an earlier submission
 * that is still good is adopted (reconcile), or the work goes to the first route that takes it (fallback.ts).
 */
async function submitOrAdopt(deps: RunPorts, g: GenerationRow, baseReq: UpstreamRequest, fresh: boolean, opts: RunOptions): Promise<Step<UpstreamJob>> {
  let req: UpstreamRequest;
  try {
    req = await withAvatarAudio(deps, g, baseReq);
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    return { end: endSpeechFailed(deps, g, err) };
  }
  const adopted = fresh ? null : await reconcile(deps, g, req);
  if (adopted) return recordSubmission(deps, await moveToProvider(deps, g, adopted.adapter.name), adopted, req);
  let submitted: Awaited<ReturnType<typeof submitWithFallback>>;
  try {
    submitted = await submitWithFallback(deps, g, req, fresh ? opts.early?.take() : null);
  } catch (err) {
    return { end: endNoRouteTook(deps, g, err) };
  }
  const moved = await moveToProvider(deps, g, submitted.adapter.name);
  const { status } = submitted;
  if (status && isTerminal(status.state)) return { end: endAnsweredAtOnce(deps, moved, { ...submitted, status }, opts.replyEarly === true) };
  return recordSubmission(deps, moved, submitted, req);
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
    async (route, i, span) => {
      const routed = i === 0 && head ? head.req : { ...req, upstreamModel: route.upstreamModel };
      // A fallback's answer may be lost too: the attempt names its provider before it is sent, so that a retry asks
      // that provider for the job (reconcile), not the one that failed before.
      if (route.adapter.name !== g.provider) await moveToProvider(deps, g, route.adapter.name);
      const submitted = await (i === 0 && head ? head.answer : route.adapter.submit(routed));
      const usage = submitted.status?.usage;
      if (deps.tracing.on) span.set({
        'mmgen.upstream.id': submitted.upstreamId,
        'mmgen.upstream.state': submitted.status?.state ?? 'submitted',
        'mmgen.early_dispatch': i === 0 && head !== null,
        'gen_ai.usage.input_tokens': usage?.input_tokens,
        'gen_ai.usage.output_tokens': usage?.output_tokens,
        'gen_ai.response.finish_reasons': submitted.status?.finish_reason ? [submitted.status.finish_reason] : undefined,
      });
      return { adapter: route.adapter, req: routed, ...submitted };
    },
    { logMessage: 'provider failed before accepting the work; trying the next route', trace: { modality: g.modality, model: g.model, attempt: g.attempt } },
  );
}

/**
 * Records the job's id on the attempt before anything waits on it. A run that loses that race to another runner
 * of the same attempt follows the other's job and stops its own; one that finds the attempt over ends.
 */
async function recordSubmission(
  deps: RunPorts,
  g: GenerationRow,
  mine: Placement & { upstreamId: string },
  baseReq: UpstreamRequest,
): Promise<Step<UpstreamJob>> {
  if (await recordUpstreamId(deps.db, g.id, g.attempt, mine.upstreamId)) return { go: { g, adapter: mine.adapter, req: mine.req, upstreamId: mine.upstreamId } };
  const now = await selectGeneration(deps.db, g.id);
  if (!now || now.status !== 'running' || now.attempt !== g.attempt || !now.upstream_id) return { end: endSuperseded(mine) };
  // Another runner recorded its own submission first: follow that one, stop ours.
  if (now.upstream_id !== mine.upstreamId) await mine.adapter.cancel(mine.upstreamId).catch(() => {});
  const theirs = deps.providers.byName(now.provider ?? '');
  const where: Placement = theirs
    ? { adapter: theirs, req: { ...baseReq, upstreamModel: upstreamModelFor(baseReq.model, now.provider) } }
    : { adapter: mine.adapter, req: mine.req };
  return { go: { g, ...where, upstreamId: now.upstream_id } };
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
 * Polls the job, backing off to a quarter of the lease at most (so a run notices a lost lease or a cancel in time),
 * and writes the provider's progress, until one of the ends: the provider reports the job's end or refuses to be
 * asked, cannot be reached, takes too long, or the run's watch (or the process's shutdown) stops it.
 */
async function waitForEnd(deps: RunPorts, job: UpstreamJob, watch: RunWatch): Promise<RunResult> {
  const { g, adapter, req, upstreamId } = job;
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
      if (err instanceof ProviderError && !err.opts.retryable) return endPollRefused(deps, job, err);
      pollErrors++;
      deps.log.warn({ err, generationId: g.id, pollErrors }, 'poll failed');
      if (pollErrors >= MAX_POLL_ERRORS) return endUnreachable(deps, job, MAX_POLL_ERRORS);
      status = { state: 'running' };
    }
    if (isTerminal(status.state)) return endReported(deps, job, status);
    if (status.progress) await progress(status.progress);
    if (Date.now() - waitStarted > deps.config.upstream.jobTimeoutMs) return endTimedOut(deps, job);
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, maxDelay);
    if (deps.lifecycle.halted) return endHalted();
    const stop = await watch.check(g.attempt);
    if (stop) return endStopped(job, stop);
  }
}

/**
 * Writes what the provider reports of a running job when it changed, at most
 * every PROGRESS_WRITE_MS; a value held back is written at the first poll
 * after that. A failed write loses only that report.
 */
function progressWriter(deps: { db: Queryable; log: Logger }, id: string, attempt: number): (p: UpstreamProgress) => Promise<void> {
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
