import type { Queryable } from './db.js';
import type { GenerationRow } from './generations.js';

/**
 * The job queue: one row per generation that a worker still has to run. A
 * leased job's run_at is its lease's end (migration 0009), so the due scan
 * never walks the jobs that are running, and an expired lease is due.
 */
export interface ClaimedJob {
  generation_id: string;
  claims: number;
}

/** A claimed job, with its generation when the claim also took it up (moved it from queued to running here). */
export interface ClaimedJobTakenUp extends ClaimedJob {
  /** The generation as the claim left it, running on this node; null: not queued (running elsewhere, terminal, gone) or claimed too often. */
  takenUp: GenerationRow | null;
}

/**
 * Claims due jobs for this node (a lease, FOR UPDATE SKIP LOCKED) and, in the same statement, moves each claimed
 * job's generation that is still queued to running on this node (what markRunning does), returning its row: a run
 * then starts without reading or moving its generation, two round trips fewer per job. A job claimed more than
 * `maxClaims` times is only claimed (its run gives up); a generation not queued is left as it is, for the run to
 * read and decide.
 *
 * A paused organization's queued generations are not claimed (contract §7): they wait, due, until the unpause. A
 * running one (a lease that ran out, a dead node's job handed back) is claimed as ever, so it finishes. The check is
 * two primary-key probes per candidate row.
 */
export async function claimDueJobsTakingUp(q: Queryable, nodeId: string, leaseSeconds: number, limit: number, maxClaims: number): Promise<ClaimedJobTakenUp[]> {
  const r = await q.query<GenerationRow & { claimed_id: string; claimed_claims: number }>(
    `WITH c AS (
       UPDATE jobs SET lease_owner = $1, lease_expires_at = now() + make_interval(secs => $2),
         run_at = now() + make_interval(secs => $2), claims = claims + 1
       WHERE id IN (
         SELECT j.id FROM jobs j WHERE j.run_at <= now()
           AND NOT EXISTS (SELECT 1 FROM generations g JOIN organizations o ON o.id = g.organization_id
                           WHERE g.id = j.generation_id AND g.status = 'queued' AND o.paused)
         ORDER BY j.run_at LIMIT $3 FOR UPDATE OF j SKIP LOCKED)
       RETURNING generation_id, claims),
     t AS (
       UPDATE generations SET status = 'running', started_at = coalesce(started_at, now()), runner_node = $1, version = version + 1
       FROM c WHERE generations.id = c.generation_id AND generations.status = 'queued' AND c.claims <= $4
       RETURNING generations.*)
     SELECT c.generation_id AS claimed_id, c.claims AS claimed_claims, t.* FROM c LEFT JOIN t ON t.id = c.generation_id`,
    [nodeId, leaseSeconds, limit, maxClaims],
  );
  return r.rows.map(({ claimed_id, claimed_claims, ...g }) => ({
    generation_id: claimed_id,
    claims: claimed_claims,
    takenUp: g.id === null ? null : (g as GenerationRow),
  }));
}

/** Extends a node's lease on a job; false when the job is gone or another node owns it. */
export async function renewJobLease(q: Queryable, generationId: string, nodeId: string, leaseSeconds: number): Promise<boolean> {
  const r = await q.query(
    `UPDATE jobs SET lease_expires_at = now() + make_interval(secs => $3), run_at = now() + make_interval(secs => $3)
     WHERE generation_id = $1 AND lease_owner = $2`,
    [generationId, nodeId, leaseSeconds],
  );
  return r.rowCount === 1;
}

/** Deletes a job only once its generation is terminal: a retry may have queued a new one meanwhile. */
export async function deleteJobIfTerminal(q: Queryable, generationId: string): Promise<void> {
  await q.query(
    `DELETE FROM jobs WHERE generation_id = $1
       AND EXISTS (SELECT 1 FROM generations WHERE id = $1 AND status IN ('succeeded', 'failed', 'canceled'))`,
    [generationId],
  );
}

export async function enqueueJob(q: Queryable, generationId: string): Promise<void> {
  await q.query('INSERT INTO jobs (generation_id) VALUES ($1) ON CONFLICT (generation_id) DO NOTHING', [generationId]);
}

/** Hands a node's jobs back to the queue, due at once. Handed back unfinished, not crashed: the claim is not counted. */
export async function releaseNodeLeases(q: Queryable, nodeId: string): Promise<void> {
  await q.query('UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL, run_at = now(), claims = greatest(claims - 1, 0) WHERE lease_owner = $1', [nodeId]);
}
