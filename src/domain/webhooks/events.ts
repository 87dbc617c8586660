import { SIGNATURE_HEADER, signatureHeader } from '../../webhooks/signing.js';

/** The events of service spec §6; a webhook subscribes to some of them, or to all with `*`. */
export const EVENT_TYPES = [
  'generation.completed',
  'generation.failed',
  'comparison.completed',
  'usage.budget_threshold',
  'usage.anomaly_detected',
  'billing.auto_topup_failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const ALL_EVENTS = '*';
export const SUBSCRIBABLE_EVENTS = [...EVENT_TYPES, ALL_EVENTS] as const;

/**
 * Sent by POST /v1/webhooks/{id}/test to that one webhook, whatever its
 * filter; not subscribable, so it never reaches any other webhook.
 */
export const TEST_EVENT_TYPE = 'webhook.test';

export const DELIVERY_USER_AGENT = 'mmgen-webhooks';

export function subscribes(events: readonly string[], type: string): boolean {
  return events.includes(ALL_EVENTS) || events.includes(type);
}

export interface EventRecord {
  id: string;
  type: string;
  created_at: Date;
  data: unknown;
}

/**
 * The delivery body. The event row is immutable and jsonb keeps its keys in
 * one canonical order, so every attempt and every replay sends the same bytes.
 */
export function eventBody(e: EventRecord): Buffer {
  return Buffer.from(JSON.stringify({ id: e.id, type: e.type, created_at: e.created_at.toISOString(), data: e.data }), 'utf8');
}

/** The headers of one attempt, signed by webhooks/signing.ts; only the signature's timestamp changes between attempts. */
export function deliveryHeaders(secret: string, body: Buffer, eventType: string, deliveryId: string, nowSeconds = Math.floor(Date.now() / 1000)): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': DELIVERY_USER_AGENT,
    [SIGNATURE_HEADER]: signatureHeader(secret, body, nowSeconds),
    'x-service-event': eventType,
    'x-service-delivery': deliveryId,
  };
}
