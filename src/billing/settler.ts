import type { Logger } from 'pino';
import { organizationsWithPending, settlePending } from './credits.js';
import type { Queryable } from '../store/db.js';
import { Batcher } from '../jobs/batcher.js';

/** Organizations settled at once: each takes a pool connection, and requests need them too. */
const CONCURRENCY = 4;

/**
 * Applies pending settlements (credits.ts) in batches: one statement per
 * organization for all that finished in the last few milliseconds, instead
 * of one wallet-row update per generation. Nothing here is needed for
 * correctness: the wallet as read includes pending rows, a refused
 * reservation settles first, and any process's sweep picks up what a dead one
 * left; batching only keeps wallet rows and usage rollups current cheaply.
 */
export class Settler {
  private readonly batch: Batcher<string, void>;
  private sweeper: NodeJS.Timeout | null = null;

  /**
   * `delayMs`: how long a new pending settlement waits so that one statement applies many;
   * `sweepMs`: how often this process applies whatever any process left pending (one that died, say).
   */
  constructor(
    private readonly db: Queryable,
    private readonly log: Logger,
    private readonly opts: { delayMs: number; sweepMs: number },
  ) {
    this.batch = new Batcher((orgs) => this.settle([...new Set(orgs)]).then(() => orgs.map(() => undefined)), { delayMs: opts.delayMs, maxItems: Infinity });
  }

  /** An organization has a new pending settlement: apply it soon, with whatever else arrives meanwhile. */
  pending(organizationId: string): void {
    void this.batch.add(organizationId);
  }

  /** Starts the periodic sweep (serve and worker processes). */
  startSweeping(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      void this.sweep();
    }, this.opts.sweepMs);
    this.sweeper.unref();
  }

  /** Settles every organization with pending rows, whoever left them. */
  async sweep(): Promise<void> {
    let orgs: string[];
    try {
      orgs = await organizationsWithPending(this.db);
    } catch (err) {
      this.log.warn({ err }, 'could not look for pending settlements');
      return;
    }
    for (const org of orgs) void this.batch.add(org);
    await this.flush();
  }

  /** Applies everything this process marked, now; awaited on shutdown. */
  flush(): Promise<void> {
    return this.batch.flush();
  }

  async stop(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    await this.flush();
  }

  /** Never fails: an organization that could not be settled is left pending for the next mark or sweep. */
  private async settle(orgs: string[]): Promise<void> {
    for (let i = 0; i < orgs.length; i += CONCURRENCY) {
      await Promise.all(
        orgs.slice(i, i + CONCURRENCY).map((org) =>
          settlePending(this.db, org).catch((err: unknown) => {
            this.log.warn({ err, organizationId: org }, 'could not apply pending settlements');
          }),
        ),
      );
    }
  }
}
