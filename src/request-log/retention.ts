import type { Logger } from 'pino';
import { utcDay, type Clock } from '../clock.js';
import type { Db } from '../store/db.js';
import { dropRequestLogPartitionsBefore, listRequestLogPartitions, selectPartitionPayloads } from '../store/request-log.js';
import { deleteExpiredSignUps } from '../store/sign-ups.js';
import type { BlobStore } from '../files/types.js';
import { runGenerationRetention, type GenerationRetentionResult } from '../generations/retention.js';
import type { RequestLogRecorder } from './recorder.js';

export interface RetentionPorts {
  db: Db;
  log: Logger;
  clock: Clock;
  requestLog: RequestLogRecorder;
  blobs: BlobStore;
}

/**
 * What each organization chose not to keep, removed: the request log's partitions whose expiry day has passed are
 * dropped whole (their disk is given back at once), then generations' prompts and files past the organization's
 * `generation_days` and `file_days` (generations/retention.ts); and sign-ups never verified whose link expired, with
 * the password hash each kept (a sign-up also clears them, but a quiet instance may see none for months). Every node
 * runs it; the statements serialize on locks, and a second run finds nothing left to do.
 */
export async function runRetention(
  deps: RetentionPorts,
): Promise<{ requestLogDaysDropped: string[]; generations: GenerationRetentionResult; expiredSignUpsDeleted: number }> {
  const today = utcDay(deps.clock.now());
  // Captured payloads first: a partition dropped before its blobs were deleted would leave them with no reference.
  for (const p of await listRequestLogPartitions(deps.db)) {
    if (p.day >= today) continue;
    for (const key of await selectPartitionPayloads(deps.db, p.day)) await deps.blobs.delete(key);
  }
  const requestLogDaysDropped = await dropRequestLogPartitionsBefore(deps.db, today);
  if (requestLogDaysDropped.length > 0) deps.requestLog.forgetPartitions();
  const generations = await runGenerationRetention(deps);
  const expiredSignUpsDeleted = await deleteExpiredSignUps(deps.db, new Date(deps.clock.now()));
  return { requestLogDaysDropped, generations, expiredSignUpsDeleted };
}

/** Runs retention every `intervalMs` (and once soon after start), never two at once. */
export class RetentionLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly deps: RetentionPorts,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => this.tick(), Math.min(this.intervalMs, 5_000));
    this.timer.unref();
  }

  private tick(): void {
    this.running = runRetention(this.deps)
      .catch((err: unknown) => this.deps.log.warn({ err }, 'retention run failed'))
      .finally(() => {
        this.running = null;
        if (this.timer) {
          this.timer = setTimeout(() => this.tick(), this.intervalMs);
          this.timer.unref();
        }
      });
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
