import type { Logger } from 'pino';
import { subscribes } from '../domain/webhooks/events.js';
import { newId } from '../ids.js';
import type { Db } from '../store/db.js';
import { insertFanOutDeliveries, type FanOutDelivery } from '../store/deliveries.js';
import { claimUnfannedEvents, hasUnfannedEvents, markEventsFannedOut, type UnfannedEvent } from '../store/events.js';
import { findEnabledWebhooks, type SubscribedWebhook } from '../store/webhooks.js';
import { PollLoop } from './poll-loop.js';

/** What fan-out touches: the outbox and webhook tables (in one transaction), and the log. */
export interface FanOutPorts {
  db: Db;
  log: Pick<Logger, 'error'>;
}

/** A webhook hears the events of its organization and mode that it subscribes to, from its creation on (not a backlog from before). */
function hears(h: SubscribedWebhook, e: UnfannedEvent): boolean {
  return h.organization_id === e.organization_id && h.mode === e.mode && h.created_at <= e.created_at && subscribes(h.events, e.type);
}

/**
 * Turns up to `batch` unfanned events into deliveries: claims them (FOR UPDATE
 * SKIP LOCKED, so fan-outs on several nodes take different events), creates
 * one pending delivery per webhook that hears each, and marks them fanned
 * out, all in one transaction.
 */
export async function fanOutEvents(db: Db, batch: number): Promise<{ events: number; deliveries: number }> {
  // Outside a transaction: an idle poll costs one index probe, not BEGIN/COMMIT.
  if (!(await hasUnfannedEvents(db))) return { events: 0, deliveries: 0 };
  return db.tx(async (q) => {
    const events = await claimUnfannedEvents(q, batch);
    if (events.length === 0) return { events: 0, deliveries: 0 };
    const hooks = await findEnabledWebhooks(q, [...new Set(events.map((e) => e.organization_id))]);
    const deliveries: FanOutDelivery[] = [];
    for (const e of events) {
      for (const h of hooks) {
        if (hears(h, e)) deliveries.push({ id: newId('whd'), webhookId: h.id, eventId: e.id, eventType: e.type, organizationId: e.organization_id, mode: e.mode });
      }
    }
    if (deliveries.length > 0) await insertFanOutDeliveries(q, deliveries);
    await markEventsFannedOut(q, events.map((e) => e.id));
    return { events: events.length, deliveries: deliveries.length };
  });
}

/**
 * The producer side of the dispatcher: a loop of fanOutEvents that tells the
 * sender (`onDeliveries`) when it made deliveries, instead of leaving them to
 * the sender's next poll. A full batch is followed by another at once.
 */
export class WebhookFanOut {
  private readonly loop: PollLoop;

  constructor(ports: FanOutPorts, settings: { batch: number; pollMs: number }, onDeliveries: () => void) {
    this.loop = new PollLoop(async () => {
      try {
        const made = await fanOutEvents(ports.db, settings.batch);
        if (made.deliveries > 0) onDeliveries();
        return made.events < settings.batch ? 'rest' : 'again';
      } catch (err) {
        ports.log.error({ err }, 'webhook fan-out failed');
        return 'rest';
      }
    }, settings.pollMs);
  }

  start(): void {
    this.loop.start();
  }

  wake(): void {
    this.loop.wake();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
