import type { Logger } from 'pino';
import { shortestDelayS, type RetryPolicy } from '../domain/webhooks/retry-policy.js';
import type { Queryable } from '../store/db.js';
import { recordDeliveryAttempts, type AttemptOutcome } from '../store/deliveries.js';

/** Outcomes written in one statement at most; a busy sender writes one batch per this many attempts. */
const BATCH = 128;
/** How long an outcome waits for others to share its statement. */
const BATCH_WAIT_MS = 10;

/** What recording touches: the deliveries this node leases, and the log. */
export interface OutcomePorts {
  db: Queryable;
  log: Pick<Logger, 'error'>;
  nodeId: string;
}

/**
 * Writes attempt outcomes in batches, one statement each
 * (store/deliveries.ts recordDeliveryAttempts): a delivery succeeds, or its
 * next attempt is scheduled, or it is exhausted, all as `policy` says. One
 * write at a time, each taking everything recorded so far.
 */
export class AttemptOutcomes {
  private pending: AttemptOutcome[] = [];
  private writing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Set once the sender has handed its leases back: outcomes arriving later are dropped. */
  private closed = false;

  constructor(
    private readonly ports: OutcomePorts,
    private readonly policy: RetryPolicy,
    /** Told when a retry falls due (ms since the epoch), so the sender can wake for it before its next poll. */
    private readonly onRetryDue: (at: number) => void,
  ) {}

  open(): void {
    this.closed = false;
  }

  record(outcome: AttemptOutcome): void {
    if (this.closed) return;
    this.pending.push(outcome);
    if (this.pending.length >= BATCH) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), BATCH_WAIT_MS);
  }

  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    while (this.writing) await this.writing;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.writing = this.write(batch).finally(() => (this.writing = null));
    await this.writing;
  }

  /** Writes what is pending and takes no more. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
  }

  private async write(batch: AttemptOutcome[]): Promise<void> {
    try {
      await recordDeliveryAttempts(this.ports.db, this.ports.nodeId, batch, this.policy);
      // The shortest delay, so a short schedule (tests) is kept without waiting for a poll.
      if (batch.some((r) => !r.ok)) this.onRetryDue(Date.now() + shortestDelayS(this.policy) * 1000 + 5);
    } catch (err) {
      // Lost outcomes are not lost deliveries: the leases run out and the deliveries are sent again.
      this.ports.log.error({ err, deliveries: batch.length }, 'recording webhook attempts failed');
    }
  }
}
