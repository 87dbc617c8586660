import type { Queryable } from './db.js';

/** A worker whose last beat is older than this is presumed gone. */
export const WORKER_STALE_S = 30;
/** How often a worker beats. */
export const WORKER_BEAT_MS = 5_000;

export interface QueueStats {
  /** Jobs due and not held by any live lease: waiting for a worker. */
  waiting: number;
  /** Jobs held under a live lease: being worked on. */
  running: number;
  /** Seconds the longest-waiting due job has waited (0 when none waits). */
  oldestWaitingS: number;
  /** Workers that beat within WORKER_STALE_S. */
  liveWorkers: number;
  /** Webhook deliveries due and not held: waiting for a dispatcher. */
  webhooksDue: number;
  oldestWebhookDueS: number;
}

/**
 * The state of the shared queues, the same from every node (it is read from
 * the database): one statement, cheap enough for every scrape and probe.
 */
export async function queueStats(db: Queryable): Promise<QueueStats> {
  const r = await db.query<{ waiting: number; running: number; oldest: number | null; workers: number; hooks: number; hook_oldest: number | null }>(
    `SELECT
       (SELECT count(*) FROM jobs WHERE run_at <= now() AND (lease_expires_at IS NULL OR lease_expires_at < now()))::int AS waiting,
       (SELECT count(*) FROM jobs WHERE lease_expires_at >= now())::int AS running,
       (SELECT extract(epoch FROM now() - min(run_at))::float8 FROM jobs
          WHERE run_at <= now() AND (lease_expires_at IS NULL OR lease_expires_at < now())) AS oldest,
       (SELECT count(*) FROM worker_heartbeats WHERE beat_at > now() - make_interval(secs => $1))::int AS workers,
       (SELECT count(*) FROM webhook_deliveries
          WHERE next_attempt_at <= now() AND (lease_expires_at IS NULL OR lease_expires_at < now()))::int AS hooks,
       (SELECT extract(epoch FROM now() - min(next_attempt_at))::float8 FROM webhook_deliveries
          WHERE next_attempt_at <= now() AND (lease_expires_at IS NULL OR lease_expires_at < now())) AS hook_oldest`,
    [WORKER_STALE_S],
  );
  const row = r.rows[0]!;
  return {
    waiting: row.waiting,
    running: row.running,
    oldestWaitingS: Math.max(0, row.oldest ?? 0),
    liveWorkers: row.workers,
    webhooksDue: row.hooks,
    oldestWebhookDueS: Math.max(0, row.hook_oldest ?? 0),
  };
}

/** Records that this worker is alive (an upsert of its row). */
export async function beat(db: Queryable, nodeId: string): Promise<void> {
  await db.query(
    `INSERT INTO worker_heartbeats (node_id) VALUES ($1)
     ON CONFLICT (node_id) DO UPDATE SET beat_at = now()`,
    [nodeId],
  );
}

/** A worker stopping cleanly removes its row; rows of workers long gone are swept by whoever beats. */
export async function forgetWorker(db: Queryable, nodeId: string): Promise<void> {
  await db.query(`DELETE FROM worker_heartbeats WHERE node_id = $1 OR beat_at < now() - interval '1 day'`, [nodeId]);
}
