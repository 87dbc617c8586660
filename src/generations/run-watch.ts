import type { Config } from '../config.js';
import type { Queryable } from '../store/db.js';
import { renewJobLease } from '../store/jobs.js';
import { selectGeneration } from '../store/generations.js';

/** The lease is renewed, and the generation read, one statement at a time, under this node's name. */
export interface RunWatchPorts {
  config: Pick<Config, 'jobLeaseMs'>;
  db: Queryable;
  nodeId: string;
}

/** Why a run must stop before it reaches an end of its own. */
export type RunStop =
  /** The generation was canceled: the upstream work must stop and nothing is charged. */
  | 'canceled'
  /** It ended (or moved to a new attempt) elsewhere: another runner or a retry owns it now. */
  | 'ended'
  /** This node's lease on the job is gone: another node may have taken it. */
  | 'lost_lease';

export interface RunWatch {
  /** Aborted once the run must stop; an upstream call or stream is handed it. */
  readonly signal: AbortSignal;
  /** Why the run must stop, or null while it may go on. */
  readonly stopped: RunStop | null;
  /** Looks at the generation now: still running this attempt, or why not. */
  check(attempt: number): Promise<RunStop | null>;
  /** Ends the watch (the run is over). */
  stop(): void;
}

/**
 * The one place a run learns it must stop: it keeps this node's lease on the
 * job alive for as long as the run lasts (a slow upstream call, a long
 * stream), and it notices a cancel, an end elsewhere or a lost lease. The
 * asynchronous and synchronous modes ask (`check`) between polls; the streamed
 * mode, which has no polls, has it look every `every.ms`.
 */
export function watchRun(
  deps: RunWatchPorts,
  generationId: string,
  every?: { ms: number; attempt: number },
): RunWatch {
  const abort = new AbortController();
  let stopped: RunStop | null = null;
  const stopWith = (why: RunStop): RunStop => {
    stopped ??= why;
    abort.abort();
    return stopped;
  };
  const check = async (attempt: number): Promise<RunStop | null> => {
    if (stopped) return stopped;
    const now = await selectGeneration(deps.db, generationId);
    if (!now || now.status !== 'running' || now.attempt !== attempt) return stopWith(now?.status === 'canceled' ? 'canceled' : 'ended');
    return null;
  };
  const lease = setInterval(() => {
    renewJobLease(deps.db, generationId, deps.nodeId, deps.config.jobLeaseMs / 1000).then(
      (ok) => {
        if (!ok) stopWith('lost_lease');
      },
      () => {},
    );
  }, Math.max(50, Math.floor(deps.config.jobLeaseMs / 3)));
  lease.unref();
  const looking = every ? setInterval(() => void check(every.attempt).catch(() => {}), every.ms) : null;
  return {
    signal: abort.signal,
    get stopped() {
      return stopped;
    },
    check,
    stop: () => {
      clearInterval(lease);
      if (looking) clearInterval(looking);
    },
  };
}
