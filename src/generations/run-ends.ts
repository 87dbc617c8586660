import type { Config } from '../config.js';
import { ProviderError, type ProviderAdapter, type UpstreamRequest, type UpstreamStatus } from '../providers/types.js';
import type { Queryable } from '../store/db.js';
import { deleteJobIfTerminal } from '../store/jobs.js';
import { failureCode, finishFailed, finishWith, type FinishPorts, type FinishWithPorts, type RunResult } from './finish.js';
import type { RunStop } from './run-watch.js';
import type { GenerationRow } from './views.js';

/**
 * Every way a run of a generation ends (runner.ts), one step each. An end
 * that fails or succeeds the attempt writes the finishing statement
 * (finish.ts), which does nothing when the attempt was finished meanwhile; an
 * end that leaves the generation to someone else writes nothing.
 */

/** Where a generation's upstream work runs: the adapter, and the request as that adapter's route names the model. */
export interface Placement {
  adapter: ProviderAdapter;
  req: UpstreamRequest;
}

/** The upstream job a run waits on: the attempt as this run knows it, the job's id, and where it runs. */
export interface UpstreamJob extends Placement {
  g: GenerationRow;
  upstreamId: string;
}

/** No such generation (a job whose row is gone): nothing to run. */
export function notRunnable(): RunResult {
  return { outcome: 'not_runnable' };
}

/** Found finished before anything was done: only a job row left behind (a run that died after finishing) is cleared. */
export async function endAlreadyTerminal(deps: { db: Queryable }, generationId: string): Promise<RunResult> {
  await deleteJobIfTerminal(deps.db, generationId);
  return { outcome: 'finished' };
}

/** It ended, or moved to a new attempt, elsewhere (another runner, a cancel, a retry): whoever did so owns it now. */
export function endedElsewhere(): RunResult {
  return { outcome: 'finished' };
}

/** The attempt's recorded job runs on a provider that is not configured on this node: failed, refunded. */
export function endProviderMissing(deps: FinishPorts, g: GenerationRow): Promise<RunResult> {
  return finishFailed(deps, g, `The provider '${g.provider}' is not configured on this node.`);
}

/** An avatar's speech step (speech-step.ts) failed before anything was submitted: failed, refunded. */
export function endSpeechFailed(deps: FinishPorts, g: GenerationRow, err: ProviderError): Promise<RunResult> {
  return finishFailed(deps, g, `The avatar's audio could not be prepared: ${err.message}.`);
}

/** No route took the work: the last one failed, or a failure that may not fall back ended it (fallback.ts). Failed, refunded. */
export function endNoRouteTook(deps: FinishPorts, g: GenerationRow, err: unknown): Promise<RunResult> {
  if (!(err instanceof ProviderError)) deps.log.warn({ err, generationId: g.id }, 'submission failed');
  return finishFailed(deps, g, err instanceof ProviderError ? err.message : 'The provider could not be reached.', null, failureCode(err));
}

/**
 * The provider answered the submission with the job's end: nothing to wait on, so the id is recorded with the
 * result. With `replyEarly`, a file-less success is handed back before its finishing statement, which may then
 * wait to share a round trip (not a seeded one, which the same request repeated at once must find in the cache).
 */
export function endAnsweredAtOnce(
  deps: FinishWithPorts,
  g: GenerationRow,
  answer: Placement & { upstreamId: string; status: UpstreamStatus },
  replyEarly: boolean,
): Promise<RunResult> {
  const early = replyEarly && answer.status.state === 'succeeded' && !answer.status.outputs?.length;
  const settled = finishWith(deps, g, answer.status, answer.upstreamId, answer.req, sharesFinish(g, early));
  if (early) return Promise.resolve({ outcome: 'finished', early: { status: answer.status, settled } });
  return settled;
}

/** The attempt was canceled or retried while this run submitted (its id could not be recorded): its job must not run on. */
export async function endSuperseded(mine: Placement & { upstreamId: string }): Promise<RunResult> {
  await mine.adapter.cancel(mine.upstreamId).catch(() => {});
  return { outcome: 'finished' };
}

/** The provider answered a poll with a failure that asking again cannot mend: failed, refunded. */
export function endPollRefused(deps: FinishPorts, job: UpstreamJob, err: ProviderError): Promise<RunResult> {
  return finishFailed(deps, job.g, err.message, null, failureCode(err));
}

/** The provider could not be asked about the job `times` times in a row: the job is stopped upstream; failed, refunded. */
export async function endUnreachable(deps: FinishPorts, job: UpstreamJob, times: number): Promise<RunResult> {
  await job.adapter.cancel(job.upstreamId).catch(() => {});
  return finishFailed(deps, job.g, `The provider could not be asked about this job ${times} times in a row.`);
}

/** The provider reported the job's end: a success's outputs stored and charged, a failure refunded (finish.ts). */
export function endReported(deps: FinishWithPorts, job: UpstreamJob, status: UpstreamStatus): Promise<RunResult> {
  return finishWith(deps, job.g, status, job.upstreamId, job.req, sharesFinish(job.g, false));
}

/**
 * Whether an attempt's finishing statement may wait (MMGEN_FINISH_BATCH_MS) to share a round trip and a commit with
 * others: when nobody waits on it, an asynchronous generation (its client polls or gets a webhook) or a reply
 * already handed back; never a seeded one, which the same request repeated at once must find in the cache.
 */
function sharesFinish(g: GenerationRow, repliedEarly: boolean): boolean {
  return (repliedEarly || !g.sync) && g.cache_key === null;
}

/**
 * Waited longer than `upstream.jobTimeoutMs`: failed, refunded. The job is left running upstream; its id is
 * recorded, so a retry adopts its result if it finishes.
 */
export function endTimedOut(deps: FinishPorts & { config: Pick<Config, 'upstream'> }, job: UpstreamJob): Promise<RunResult> {
  return finishFailed(
    deps, job.g,
    `The provider did not finish this job within ${Math.round(deps.config.upstream.jobTimeoutMs / 1000)} s; it was refunded. ` +
      'Retrying it asks the provider about the same job first.',
  );
}

/** This process shut down past its grace period: the job goes back to the queue with its upstream id recorded. */
export function endHalted(): RunResult {
  return { outcome: 'lost_lease' };
}

/** Canceled while it ran: the cancel's own finishing statement refunded it; the upstream job is told to stop. */
export async function endCanceled(job: UpstreamJob): Promise<RunResult> {
  await job.adapter.cancel(job.upstreamId).catch(() => {});
  return { outcome: 'finished' };
}

/** This node's lease on the job is gone: another node may run it, so this run leaves it as it is. */
export function endLostLease(): RunResult {
  return { outcome: 'lost_lease' };
}

/** The end of a run that its watch (run-watch.ts) stopped. */
export function endStopped(job: UpstreamJob, why: RunStop): RunResult | Promise<RunResult> {
  switch (why) {
    case 'canceled':
      return endCanceled(job);
    case 'lost_lease':
      return endLostLease();
    case 'ended':
      return endedElsewhere();
  }
}
