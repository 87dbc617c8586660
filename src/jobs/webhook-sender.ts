import type { Logger } from 'pino';
import type { Counter } from 'prom-client';
import { TEST_EVENT_TYPE } from '../domain/webhooks/events.js';
import type { RetryPolicy } from '../domain/webhooks/retry-policy.js';
import { GuardedPool } from '../files/safe-fetch.js';
import type { Queryable } from '../store/db.js';
import type { Tracing } from '../tracing.js';
import {
  claimDueDeliveries,
  parkClaimedDeliveries,
  releaseAllDeliveryLeases,
  releaseDeliveryLeases,
  type ClaimedDelivery,
} from '../store/deliveries.js';
import { settledWithin } from './inflight.js';
import { PollLoop, type RoundEnd } from './poll-loop.js';
import { ReceiverLanes } from './receiver-lanes.js';
import { attemptDelivery } from './webhook-attempt.js';
import { AttemptOutcomes } from './webhook-outcomes.js';

/** What sending touches: the deliveries table (claims, leases, outcomes), the log, and the attempts counter. */
export interface SenderPorts {
  db: Queryable;
  log: Pick<Logger, 'error' | 'warn'>;
  /** The lease owner this node claims as. */
  nodeId: string;
  metrics: { webhookAttempts: Pick<Counter<'outcome'>, 'inc'> };
  tracing: Tracing;
}

export interface SenderSettings {
  /** Attempts holding a slot at once. */
  concurrency: number;
  /** How often an idle sender looks for due deliveries. */
  pollMs: number;
  /** An attempt without a 2xx within this has failed. */
  timeoutMs: number;
  allowPrivateNetwork: boolean;
  retries: RetryPolicy;
}

/**
 * The consumer side of the dispatcher: claims due deliveries with a lease
 * (FOR UPDATE SKIP LOCKED), sends each (at most `concurrency` at once, over
 * one keep-alive pool under the SSRF guard), and hands the outcomes to
 * AttemptOutcomes, which records them in batches. Receivers are kept apart
 * (ReceiverLanes): an attempt that passes `slowMs` gives its slot back (it
 * still runs to the timeout, up to `4 × concurrency` outstanding in all), and
 * a slow receiver is held to a few attempts at once and left out of claims
 * meanwhile, so no receiver delays the others.
 */
export class WebhookSender {
  private readonly loop: PollLoop;
  private readonly lanes: ReceiverLanes;
  private readonly outcomes: AttemptOutcomes;
  private readonly limits: { leaseSeconds: number; slowMs: number; maxOutstanding: number };
  /** Claimed (leased) deliveries waiting for a free slot. */
  private queue: ClaimedDelivery[] = [];
  /** Attempts holding one of the `concurrency` slots (an attempt past slowMs gives its slot back). */
  private running = 0;
  /** Attempts not finished, slots or not: at most maxOutstanding; stop() waits for them. */
  private readonly inFlight = new Set<Promise<void>>();
  private pool: GuardedPool | null = null;

  constructor(
    private readonly ports: SenderPorts,
    private readonly settings: SenderSettings,
  ) {
    const { concurrency, timeoutMs } = settings;
    this.limits = {
      // The lease outlives the longest possible attempt.
      leaseSeconds: timeoutMs / 1000 + 60,
      // Receivers are asked to answer at once; one that takes a second is not.
      slowMs: Math.min(1000, Math.max(1, Math.floor(timeoutMs / 2))),
      maxOutstanding: 4 * concurrency,
    };
    this.lanes = new ReceiverLanes({ initialCap: 4, normalCap: concurrency, slowCap: 2, slowMs: this.limits.slowMs, penaltyMs: 60_000 });
    this.loop = new PollLoop(() => this.round(), settings.pollMs);
    this.outcomes = new AttemptOutcomes(ports, settings.retries, (at) => this.loop.wakeAt(at));
  }

  start(): void {
    if (this.pool) return;
    this.pool = new GuardedPool(this.settings.allowPrivateNetwork, { connectionsPerOrigin: this.settings.concurrency });
    this.outcomes.open();
    this.loop.start();
  }

  /** Deliveries were made due in this process: claim now rather than at the next poll. */
  wake(): void {
    this.loop.wake();
  }

  /**
   * Stops claiming, waits for the attempts in flight (at most `graceMs`),
   * records their outcomes, and hands back what it still holds so another
   * process sends it without waiting for the lease to run out.
   */
  async stop(graceMs: number): Promise<void> {
    if (!this.pool) return;
    await this.loop.stop();
    // Claimed but never started: their leases are handed back below.
    for (const d of this.queue) this.lanes.queued(d.webhook_id, -1);
    this.queue = [];
    await settledWithin(this.inFlight, graceMs);
    await this.outcomes.close();
    const { db, log, nodeId } = this.ports;
    await releaseAllDeliveryLeases(db, nodeId).catch((err: unknown) => log.warn({ err }, 'could not release webhook delivery leases'));
    await this.pool.close();
    this.pool = null;
  }

  /**
   * Claims keep up to two rounds of deliveries in hand (in flight plus
   * queued) and refill only once a full round is free, so a busy sender
   * makes one claim per `concurrency` deliveries, not one per delivery.
   */
  private async round(): Promise<RoundEnd> {
    const { concurrency } = this.settings;
    const want = 2 * concurrency - (this.running + this.queue.length);
    let claimed = 0;
    if (want >= concurrency && this.inFlight.size < this.limits.maxOutstanding) {
      try {
        claimed = await this.claim(want);
      } catch (err) {
        this.ports.log.error({ err }, 'claiming webhook deliveries failed');
      }
      this.pump();
    }
    // Asleep until a round is free again, something is made due here, or the poll interval passes.
    return claimed < want || this.running + this.queue.length > concurrency ? 'rest' : 'again';
  }

  private async claim(limit: number): Promise<number> {
    const { db, nodeId } = this.ports;
    const { blocked, roomIds, rooms } = this.lanes.claimLimits();
    const claimed = await claimDueDeliveries(db, {
      owner: nodeId,
      leaseSeconds: this.limits.leaseSeconds,
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
    // A disabled or deleted webhook's deliveries wait unscheduled; enabling it schedules them again.
    if (parked.length > 0) await parkClaimedDeliveries(db, parked, nodeId);
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
    while (this.queue.length > 0 && this.running < this.settings.concurrency && this.inFlight.size < this.limits.maxOutstanding && !this.loop.stopped) {
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
      const { db, log, nodeId } = this.ports;
      releaseDeliveryLeases(db, handBack, nodeId).catch((err: unknown) => log.warn({ err }, 'could not hand back webhook deliveries; their leases run out instead'));
    }
  }

  private begin(d: ClaimedDelivery): void {
    this.running++;
    const startedAt = this.lanes.begin(d.webhook_id);
    let holdsSlot = true;
    const releaseSlot = () => {
      if (!holdsSlot) return;
      holdsSlot = false;
      this.running--;
    };
    // Past slowMs the attempt stops counting against concurrency: a hanging receiver never holds the sender.
    const slow = setTimeout(() => {
      releaseSlot();
      this.pump();
      this.loop.wake();
    }, this.limits.slowMs);
    const p = this.tracedAttempt(d)
      .then(({ kind, outcome }) => {
        this.ports.metrics.webhookAttempts.inc({ outcome: kind });
        this.outcomes.record(outcome);
      })
      .catch((err: unknown) => this.ports.log.error({ err, deliveryId: d.id }, 'webhook delivery crashed; it is retried when its lease ends'))
      .finally(() => {
        clearTimeout(slow);
        releaseSlot();
        this.lanes.end(d.webhook_id, startedAt);
        this.inFlight.delete(p);
        this.pump();
        if (this.running + this.queue.length <= this.settings.concurrency) this.loop.wake();
      });
    this.inFlight.add(p);
  }

  /** One attempt in a span of its own, linked to the request that made its generation when this process accepted it. */
  private tracedAttempt(d: ClaimedDelivery): ReturnType<typeof attemptDelivery> {
    const settings = { timeoutMs: this.settings.timeoutMs, allowPrivateNetwork: this.settings.allowPrivateNetwork, pool: this.pool };
    const { tracing } = this.ports;
    if (!tracing.on) return attemptDelivery(d, settings);
    const data = d.event_data as { generation_id?: unknown; comparison_id?: unknown } | null;
    const generationId = typeof data?.generation_id === 'string' ? data.generation_id : undefined;
    const origin = typeof data?.comparison_id === 'string' ? data.comparison_id : generationId;
    return tracing.span(
      'mmgen.webhook.deliver',
      {
        'http.request.method': 'POST',
        'mmgen.webhook.id': d.webhook_id,
        'mmgen.webhook.delivery.id': d.id,
        'mmgen.webhook.attempt': d.attempts + 1,
        'mmgen.event.id': d.event_id,
        'mmgen.event.type': d.event_type,
        'mmgen.generation.id': generationId,
      },
      async (span) => {
        const result = await attemptDelivery(d, settings);
        span.set({ 'http.response.status_code': result.outcome.responseStatus ?? undefined, 'mmgen.outcome': result.kind });
        if (!result.outcome.ok) span.fail(result.kind);
        return result;
      },
      { kind: 'client', root: true, ...(origin ? { linkTo: origin } : {}) },
    );
  }
}
