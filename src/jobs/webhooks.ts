import { performance } from 'node:perf_hooks';
import type { AppDeps } from '../deps.js';
import { deliveryHeaders, eventBody, subscribes, TEST_EVENT_TYPE } from '../domain/webhooks/events.js';
import { FetchFailed, FetchRefused, GuardedPool, safeFetch } from '../files/safe-fetch.js';
import { newId } from '../ids.js';
import {
  claimDueDeliveries,
  insertFanOutDeliveries,
  parkClaimedDeliveries,
  recordDeliveryAttempts,
  releaseAllDeliveryLeases,
  releaseDeliveryLeases,
  type AttemptOutcome,
  type ClaimedDelivery,
  type FanOutDelivery,
} from '../store/deliveries.js';
import { claimUnfannedEvents, hasUnfannedEvents, markEventsFannedOut } from '../store/events.js';
import { findEnabledWebhooks } from '../store/webhooks.js';
import { ReceiverLanes } from './receiver-lanes.js';
import { settledWithin } from './inflight.js';

export type DispatcherPorts = Pick<AppDeps, 'config' | 'db' | 'log' | 'metrics' | 'nodeId' | 'webhooksDue'>;

/** Service spec §6: after the sixth failed attempt a delivery is exhausted. */
export const MAX_ATTEMPTS = 6;
/** Receivers are told to answer at once; whatever they write back beyond this is not read. */
const RESPONSE_BYTES = 64 * 1024;
/** Kept in an attempt's error text, so one odd receiver cannot bloat the table. */
const ERROR_CHARS = 500;

export interface DispatcherOptions {
  /** Deliveries in flight at once in this process. */
  concurrency?: number;
  /** How often an idle dispatcher looks for new events and due deliveries. */
  pollMs?: number;
  /** Events fanned out per transaction. */
  fanOutBatch?: number;
}

/**
 * The webhook dispatcher. Two loops share a process with the generation worker:
 *
 * - fan-out claims unfanned events (FOR UPDATE SKIP LOCKED, in batches) and,
 *   in the same transaction, creates one pending delivery per enabled webhook
 *   of the event's organization and mode whose filter matches, then marks the
 *   events fanned out;
 * - delivery claims due deliveries with a lease, sends each (at most
 *   `concurrency` at once, over one keep-alive pool under the SSRF guard), and
 *   records the outcomes in batches, scheduling retries or marking exhaustion.
 *   Receivers are kept apart (ReceiverLanes): an attempt that passes `slowMs`
 *   gives its slot back (it still runs to the timeout, up to `4 × concurrency`
 *   outstanding in all), and a slow receiver is held to a few attempts at once
 *   and left out of claims meanwhile, so no receiver delays the others.
 *
 * Any number of processes may run it on one PostgreSQL: claims skip locked
 * rows and leases keep a delivery with one sender at a time; a sender that
 * dies leaves its lease to expire and the delivery is sent again (receivers
 * deduplicate on the event id).
 */
export class WebhookDispatcher {
  private stopped = true;
  /** Set once stop() has handed everything back; outcomes arriving later are dropped (their leases were released). */
  private closed = false;
  /** Attempts holding one of the `concurrency` slots (an attempt past slowMs gives its slot back). */
  private running = 0;
  /** Attempts not finished, slots or not; at most maxOutstanding. */
  private outstanding = 0;
  private readonly maxOutstanding: number;
  private readonly slowMs: number;
  private readonly lanes: ReceiverLanes;
  /** Claimed (leased) deliveries waiting for a free slot. */
  private queue: ClaimedDelivery[] = [];
  private loops: Promise<void>[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private results: AttemptOutcome[] = [];
  private flushing: Promise<void> | null = null;
  private flushTimer: NodeJS.Timeout | null = null;
  private wakeDeliver: (() => void) | null = null;
  private wakeFanOut: (() => void) | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private retryAt = Infinity;
  private unsubscribe: (() => void) | null = null;
  private pool: GuardedPool | null = null;
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly fanOutBatch: number;
  private readonly leaseSeconds: number;

  constructor(
    private readonly deps: DispatcherPorts,
    opts: DispatcherOptions = {},
  ) {
    this.concurrency = opts.concurrency ?? 32;
    this.pollMs = opts.pollMs ?? Math.min(deps.config.workerPollMs, 100);
    this.fanOutBatch = opts.fanOutBatch ?? 500;
    this.leaseSeconds = deps.config.webhookTimeoutMs / 1000 + 60;
    this.maxOutstanding = 4 * this.concurrency;
    // Receivers are asked to answer at once; one that takes a second is not.
    this.slowMs = Math.min(1000, Math.max(1, Math.floor(deps.config.webhookTimeoutMs / 2)));
    this.lanes = new ReceiverLanes({ initialCap: 4, normalCap: this.concurrency, slowCap: 2, slowMs: this.slowMs, penaltyMs: 60_000 });
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.closed = false;
    this.unsubscribe = this.deps.webhooksDue.subscribe(() => this.notify());
    this.pool = new GuardedPool(this.deps.config.allowPrivateNetwork, { connectionsPerOrigin: this.concurrency });
    this.loops = [this.fanOutLoop(), this.deliverLoop()];
  }

  /** Nudges an idle dispatcher: an event or a delivery was just made in this process. */
  notify(): void {
    this.wakeFanOut?.();
    this.wakeDeliver?.();
  }

  /**
   * Stops claiming, waits for the deliveries in flight (at most `graceMs`),
   * records their outcomes, and hands back what it still holds so another
   * process sends it without waiting for the lease to run out.
   */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.stopped) return;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.stopped = true;
    this.notify();
    await Promise.all(this.loops);
    // Claimed but never started: their leases are handed back below.
    for (const d of this.queue) this.lanes.queued(d.webhook_id, -1);
    this.queue = [];
    await settledWithin(this.inFlight, graceMs);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.flush();
    this.closed = true;
    await releaseAllDeliveryLeases(this.deps.db, this.deps.nodeId).catch((err: unknown) => this.deps.log.warn({ err }, 'could not release webhook delivery leases'));
    await this.pool?.close();
    this.pool = null;
  }

  private sleep(ms: number, set: (wake: (() => void) | null) => void): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        set(null);
        resolve();
      }
      set(done);
    });
  }

  private async fanOutLoop(): Promise<void> {
    while (!this.stopped) {
      let n = 0;
      try {
        n = await this.fanOut();
      } catch (err) {
        this.deps.log.error({ err }, 'webhook fan-out failed');
      }
      if (n > 0) this.wakeDeliver?.();
      if (n < this.fanOutBatch && !this.stopped) await this.sleep(this.pollMs, (w) => (this.wakeFanOut = w));
    }
  }

  /** Fans out one batch of events; returns how many events it took. */
  async fanOut(): Promise<number> {
    const { db } = this.deps;
    // Outside a transaction: an idle poll costs one index probe, not BEGIN/COMMIT.
    if (!(await hasUnfannedEvents(db))) return 0;
    return db.tx(async (q) => {
      const events = await claimUnfannedEvents(q, this.fanOutBatch);
      if (events.length === 0) return 0;
      const hooks = await findEnabledWebhooks(q, [...new Set(events.map((e) => e.organization_id))]);
      const deliveries: FanOutDelivery[] = [];
      for (const e of events) {
        for (const h of hooks) {
          // A webhook hears what happens after it exists, not a backlog from before.
          if (h.organization_id !== e.organization_id || h.mode !== e.mode || h.created_at > e.created_at) continue;
          if (!subscribes(h.events, e.type)) continue;
          deliveries.push({ id: newId('whd'), webhookId: h.id, eventId: e.id, eventType: e.type, organizationId: e.organization_id, mode: e.mode });
        }
      }
      if (deliveries.length > 0) await insertFanOutDeliveries(q, deliveries);
      await markEventsFannedOut(q, events.map((e) => e.id));
      return events.length;
    });
  }

  /**
   * Claims keep up to two rounds of deliveries in hand (in flight plus
   * queued) and refill only once a full round is free, so a busy dispatcher
   * makes one claim per `concurrency` deliveries, not one per delivery.
   */
  private async deliverLoop(): Promise<void> {
    while (!this.stopped) {
      const held = this.running + this.queue.length;
      const want = 2 * this.concurrency - held;
      let claimed = 0;
      if (want >= this.concurrency && this.outstanding < this.maxOutstanding) {
        try {
          claimed = await this.claim(want);
        } catch (err) {
          this.deps.log.error({ err }, 'claiming webhook deliveries failed');
        }
        this.pump();
      }
      // Asleep until a round is free again, something is made due here, or the poll interval passes.
      if ((claimed < want || this.running + this.queue.length > this.concurrency) && !this.stopped) {
        await this.sleep(this.pollMs, (w) => (this.wakeDeliver = w));
      }
    }
  }

  private async claim(limit: number): Promise<number> {
    const { blocked, roomIds, rooms } = this.lanes.claimLimits();
    const claimed = await claimDueDeliveries(this.deps.db, {
      owner: this.deps.nodeId,
      leaseSeconds: this.leaseSeconds,
      limit,
      blockedWebhookIds: blocked,
      roomWebhookIds: roomIds,
      rooms,
      defaultRoom: this.lanes.initialCap,
    });
    const parked: string[] = [];
    for (const d of claimed) {
      const explicit = d.replay_of !== null || d.event_type === TEST_EVENT_TYPE;
      if (d.deleted || (!d.enabled && !explicit)) parked.push(d.id);
      else {
        this.queue.push(d);
        this.lanes.queued(d.webhook_id, 1);
      }
    }
    if (parked.length > 0) {
      // A disabled or deleted webhook's deliveries wait unscheduled; enabling it schedules them again.
      await parkClaimedDeliveries(this.deps.db, parked, this.deps.nodeId);
    }
    return claimed.length;
  }

  /**
   * Starts queued deliveries while there are free slots, each as its
   * receiver's allowance permits (the others wait their turn). A delivery of
   * a receiver that turned slow after the claim is handed back to the table
   * rather than kept waiting here on a lease that could run out.
   */
  private pump(): void {
    const handBack: string[] = [];
    const waiting: ClaimedDelivery[] = [];
    while (this.queue.length > 0 && this.running < this.concurrency && this.outstanding < this.maxOutstanding && !this.stopped) {
      const d = this.queue.shift()!;
      if (this.lanes.mayStart(d.webhook_id)) {
        this.lanes.queued(d.webhook_id, -1);
        this.begin(d);
      } else if (this.lanes.isSlow(d.webhook_id)) {
        this.lanes.queued(d.webhook_id, -1);
        handBack.push(d.id);
      } else {
        waiting.push(d);
      }
    }
    this.queue = [...waiting, ...this.queue];
    if (handBack.length > 0) {
      releaseDeliveryLeases(this.deps.db, handBack, this.deps.nodeId).catch((err: unknown) => this.deps.log.warn({ err }, 'could not hand back webhook deliveries; their leases run out instead'));
    }
  }

  private begin(d: ClaimedDelivery): void {
    this.running++;
    this.outstanding++;
    const startedAt = this.lanes.begin(d.webhook_id);
    let holdsSlot = true;
    const releaseSlot = () => {
      if (!holdsSlot) return;
      holdsSlot = false;
      this.running--;
    };
    // Past slowMs the attempt stops counting against concurrency: a hanging receiver never holds the dispatcher.
    const slow = setTimeout(() => {
      releaseSlot();
      this.pump();
      this.wakeDeliver?.();
    }, this.slowMs);
    const p = this.send(d)
      .then((result) => this.record(result))
      .catch((err: unknown) => this.deps.log.error({ err, deliveryId: d.id }, 'webhook delivery crashed; it is retried when its lease ends'))
      .finally(() => {
        clearTimeout(slow);
        releaseSlot();
        this.outstanding--;
        this.lanes.end(d.webhook_id, startedAt);
        this.inFlight.delete(p);
        this.pump();
        if (this.running + this.queue.length <= this.concurrency) this.wakeDeliver?.();
      });
    this.inFlight.add(p);
  }

  /** One attempt: signed POST, no redirects, 2xx within the timeout or it failed. */
  private async send(d: ClaimedDelivery): Promise<AttemptOutcome> {
    const { config } = this.deps;
    const body = eventBody({ id: d.event_id, type: d.event_type, created_at: d.event_created_at, data: d.event_data });
    const startedAt = new Date();
    const t0 = performance.now();
    let responseStatus: number | null = null;
    let error: string | null = null;
    let outcome: 'success' | 'http_error' | 'timeout' | 'network_error' | 'refused' = 'success';
    try {
      const res = await safeFetch(d.url, {
        method: 'POST',
        body,
        headers: deliveryHeaders(d.secret, body, d.event_type, d.id),
        allowPrivateNetwork: config.allowPrivateNetwork,
        allowHttp: d.mode === 'test',
        timeoutMs: config.webhookTimeoutMs,
        maxBytes: RESPONSE_BYTES,
        overflow: 'truncate',
        ...(this.pool ? { pool: this.pool } : {}),
      });
      responseStatus = res.status;
      if (res.status < 200 || res.status >= 300) {
        error = `the endpoint answered HTTP ${res.status}`;
        outcome = 'http_error';
      }
    } catch (err) {
      if (err instanceof FetchRefused) {
        if (err.detail.status !== undefined) responseStatus = err.detail.status;
        error = err.message;
        outcome = err.reason === 'redirect' ? 'http_error' : 'refused';
      } else if (err instanceof FetchFailed) {
        error = err.message;
        outcome = err.reason === 'timeout' ? 'timeout' : 'network_error';
      } else {
        throw err;
      }
    }
    this.deps.metrics.webhookAttempts.inc({ outcome });
    return {
      id: d.id,
      ok: error === null,
      responseStatus,
      error: error === null ? null : error.slice(0, ERROR_CHARS),
      startedAt,
      durationMs: Math.round(performance.now() - t0),
    };
  }

  private record(result: AttemptOutcome): void {
    if (this.closed) return;
    this.results.push(result);
    if (this.results.length >= 128) void this.flush();
    else this.flushTimer ??= setTimeout(() => void this.flush(), 10);
  }

  private wakeAt(at: number): void {
    if (at >= this.retryAt || at - Date.now() >= this.pollMs) return;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryAt = at;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.retryAt = Infinity;
      this.wakeDeliver?.();
    }, Math.max(0, at - Date.now()));
  }

  /** Writes the recorded attempts; one flush at a time, each taking everything recorded so far. */
  private async flush(): Promise<void> {
    if (this.flushTimer) {
      clearTimeout(this.flushTimer);
      this.flushTimer = null;
    }
    while (this.flushing) await this.flushing;
    if (this.results.length === 0) return;
    const batch = this.results;
    this.results = [];
    this.flushing = this.write(batch).finally(() => (this.flushing = null));
    await this.flushing;
  }

  private async write(batch: AttemptOutcome[]): Promise<void> {
    try {
      await recordDeliveryAttempts(this.deps.db, this.deps.nodeId, batch, this.deps.config.webhookRetryDelaysS, MAX_ATTEMPTS);
      if (batch.some((r) => !r.ok)) {
        // The shortest retry delay, so a short schedule (tests) is kept without waiting for a poll.
        this.wakeAt(Date.now() + Math.min(...this.deps.config.webhookRetryDelaysS) * 1000 + 5);
      }
    } catch (err) {
      // Lost outcomes are not lost deliveries: the leases run out and the deliveries are sent again.
      this.deps.log.error({ err, deliveries: batch.length }, 'recording webhook attempts failed');
    }
  }
}
