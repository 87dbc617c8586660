import type { Logger } from 'pino';
import type { Counter } from 'prom-client';
import { DAY_MS, utcDay, type Clock } from '../clock.js';
import { Batcher } from '../jobs/batcher.js';
import { errorCode, type Db } from '../store/db.js';
import { createRequestLogPartitions, insertRequestLogRows, listRequestLogPartitions, type RequestLogInsert } from '../store/request-log.js';
import type { DataPolicyCache } from './policies.js';

/** What the HTTP layer knows of a finished request; the writer adds its expiry. */
export type RequestLogEntry = Omit<RequestLogInsert, 'expiresOn' | 'organization'> & { organizationId: string };

/** Rows waiting to be written at most; past it (the database is away) new rows are dropped and counted. */
export const MAX_WAITING_ROWS = 50_000;

/**
 * Writes the request log off the request's path: `record` only queues the row; a Batcher writes what gathered
 * in one statement every `delayMs` (or at `maxItems`). A failed write is logged and its rows lost: the log is a
 * record of calls, and losing it must never fail or slow a call.
 */
export class RequestLogRecorder {
  private readonly batcher: Batcher<RequestLogEntry, void>;
  private knownDays = new Set<string>();
  private waiting = 0;
  private readonly expiryDays = new Map<number, string>();
  /** Rows dropped because MAX_WAITING_ROWS were waiting, or their write failed. */
  dropped = 0;
  readonly enabled: boolean;

  constructor(
    private readonly deps: { db: Db; log: Logger; clock: Clock; dataPolicies: DataPolicyCache; rows: Counter<'outcome'> },
    opts: { delayMs: number; maxItems: number; enabled: boolean },
  ) {
    this.enabled = opts.enabled;
    this.batcher = new Batcher((rows) => this.write(rows), { delayMs: opts.delayMs, maxItems: opts.maxItems });
  }

  record(entry: RequestLogEntry): void {
    if (!this.enabled) return;
    if (this.waiting >= MAX_WAITING_ROWS) {
      this.dropped++;
      this.deps.rows.inc({ outcome: 'dropped' });
      return;
    }
    this.waiting++;
    this.batcher.enqueue(entry);
  }

  /** Writes whatever waits (shutdown, tests). */
  flush(): Promise<void> {
    return this.batcher.flush();
  }

  /** Partitions dropped elsewhere (retention) are made again if a row needs one. */
  forgetPartitions(): void {
    this.knownDays = new Set();
  }

  private async write(entries: RequestLogEntry[]): Promise<void[]> {
    try {
      const policies = await this.deps.dataPolicies.getMany(entries.map((e) => e.organizationId));
      const rows: RequestLogInsert[] = [];
      for (const e of entries) {
        const policy = policies.get(e.organizationId);
        if (!policy) continue;
        rows.push({
          at: e.at, expiresOn: this.expiryDay(e.at.getTime(), policy.request_log_days), latencyUs: e.latencyUs, status: e.status, live: e.live,
          organization: policy.organization_seq, requestId: e.requestId, route: e.route, keyId: e.keyId, model: e.model,
          generationId: e.generationId, errorCode: e.errorCode, payload: e.payload,
        });
      }
      await this.ensurePartitions(rows);
      try {
        await insertRequestLogRows(this.deps.db, rows);
      } catch (err) {
        // 23514: no partition for a row (another node's retention dropped one this node still counted as made).
        if (errorCode(err) !== '23514') throw err;
        this.forgetPartitions();
        await this.ensurePartitions(rows);
        await insertRequestLogRows(this.deps.db, rows);
      }
      this.deps.rows.inc({ outcome: 'written' }, rows.length);
    } catch (err) {
      this.dropped += entries.length;
      this.deps.rows.inc({ outcome: 'dropped' }, entries.length);
      this.deps.log.warn({ err, rows: entries.length }, 'could not write request log rows');
    } finally {
      this.waiting -= entries.length;
    }
    return [];
  }

  /** The day a row expires, made once per day and retention rather than once per row. */
  private expiryDay(atMs: number, days: number): string {
    const key = Math.floor(atMs / DAY_MS) + days;
    let day = this.expiryDays.get(key);
    if (day === undefined) {
      day = utcDay(atMs + days * DAY_MS);
      if (this.expiryDays.size > 1_000) this.expiryDays.clear();
      this.expiryDays.set(key, day);
    }
    return day;
  }

  private async ensurePartitions(rows: RequestLogInsert[]): Promise<void> {
    if (this.knownDays.size === 0) for (const p of await listRequestLogPartitions(this.deps.db)) this.knownDays.add(p.day);
    const missing = [...new Set(rows.map((r) => r.expiresOn))].filter((d) => !this.knownDays.has(d));
    if (missing.length === 0) return;
    await createRequestLogPartitions(this.deps.db, missing);
    for (const d of missing) this.knownDays.add(d);
  }
}
