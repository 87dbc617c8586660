import type { RetryPolicy } from '../domain/webhooks/retry-policy.js';
import { WebhookFanOut, type FanOutPorts } from './webhook-fan-out.js';
import { WebhookSender, type SenderPorts } from './webhook-sender.js';

/** What the dispatcher reads itself, beside what its fan-out and sender touch. */
export type DispatcherPorts = FanOutPorts &
  SenderPorts & {
    config: { workerPollMs: number; webhookTimeoutMs: number; allowPrivateNetwork: boolean; webhookRetries: RetryPolicy };
    /** Events and deliveries made in this process wake the dispatcher instead of its next poll. */
    webhooksDue: { subscribe(wake: () => void): () => void };
  };

export interface DispatcherOptions {
  /** Deliveries in flight at once in this process. */
  concurrency?: number;
  /** How often an idle dispatcher looks for new events and due deliveries. */
  pollMs?: number;
  /** Events fanned out per transaction. */
  fanOutBatch?: number;
}

/**
 * The webhook dispatcher: a producer and a consumer, apart, as in Svix's
 * worker, sharing a process with the generation worker.
 *
 * - fan-out (webhook-fan-out.ts) turns events into deliveries;
 * - the sender (webhook-sender.ts) claims due deliveries, sends them
 *   (webhook-attempt.ts), and records the outcomes (webhook-outcomes.ts),
 *   scheduling each retry, or the end, as the retry policy says
 *   (domain/webhooks/retry-policy.ts).
 *
 * Any number of processes may run it on one PostgreSQL: claims skip locked
 * rows and leases keep a delivery with one sender at a time; a sender that
 * dies leaves its lease to expire and the delivery is sent again (receivers
 * deduplicate on the event id).
 */
export class WebhookDispatcher {
  private readonly fanOut: WebhookFanOut;
  private readonly sender: WebhookSender;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly ports: DispatcherPorts,
    opts: DispatcherOptions = {},
  ) {
    const { config } = ports;
    const pollMs = opts.pollMs ?? Math.min(config.workerPollMs, 100);
    this.sender = new WebhookSender(ports, {
      concurrency: opts.concurrency ?? 32,
      pollMs,
      timeoutMs: config.webhookTimeoutMs,
      allowPrivateNetwork: config.allowPrivateNetwork,
      retries: config.webhookRetries,
    });
    this.fanOut = new WebhookFanOut(ports, { batch: opts.fanOutBatch ?? 500, pollMs }, () => this.sender.wake());
  }

  start(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.ports.webhooksDue.subscribe(() => this.notify());
    this.sender.start();
    this.fanOut.start();
  }

  /** Nudges an idle dispatcher: an event or a delivery was just made in this process. */
  notify(): void {
    this.fanOut.wake();
    this.sender.wake();
  }

  /**
   * Stops fanning out and claiming, waits for the attempts in flight (at most
   * `graceMs`), records their outcomes, and hands back every lease it holds.
   */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.unsubscribe) return;
    this.unsubscribe();
    this.unsubscribe = null;
    await Promise.all([this.fanOut.stop(), this.sender.stop(graceMs)]);
  }
}
