import type { AppDeps } from '../../deps.js';
import { renewJobLease } from '../../store/jobs.js';

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
