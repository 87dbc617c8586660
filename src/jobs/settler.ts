import type { Logger } from 'pino';
import { organizationsWithPending, settlePending } from '../domain/credits.js';
import type { Queryable } from '../store/db.js';

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
  private readonly dirty = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  /**
   * `delayMs`: how long a new pending settlement waits so that one statement applies many;
   * `sweepMs`: how often this process applies whatever any process left pending (one that died, say).
   */
  constructor(
    private readonly db: Queryable,
    private readonly log: Logger,
    private readonly opts: { delayMs: number; sweepMs: number },
  ) {}

  /** An organization has a new pending settlement: apply it soon, with whatever else arrives meanwhile. */
  pending(organizationId: string): void {
    this.dirty.add(organizationId);
    this.schedule();
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
    try {
      for (const org of await organizationsWithPending(this.db)) this.dirty.add(org);
    } catch (err) {
      this.log.warn({ err }, 'could not look for pending settlements');
      return;
    }
    if (this.dirty.size > 0) await this.flush();
  }

  /** Applies everything this process marked, now; awaited on shutdown. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.running) await this.running;
    if (this.dirty.size === 0) return;
    const orgs = [...this.dirty];
    this.dirty.clear();
    const settleAll = async () => {
      for (let i = 0; i < orgs.length; i += CONCURRENCY) {
        await Promise.all(
          orgs.slice(i, i + CONCURRENCY).map((org) =>
            settlePending(this.db, org).catch((err: unknown) => {
              // Left pending: the next mark or sweep applies it.
              this.log.warn({ err, organizationId: org }, 'could not apply pending settlements');
            }),
          ),
        );
      }
    };
    this.running = settleAll().then(() => {
      this.running = null;
      if (this.dirty.size > 0) this.schedule();
    });
    await this.running;
  }

  async stop(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    await this.flush();
  }

  private schedule(): void {
    if (this.timer || this.running) return;
    this.timer = setTimeout(() => void this.flush(), this.opts.delayMs);
  }
}
