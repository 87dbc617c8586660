import { ApiError, notFound } from '../../errors.js';
import { classifyAddress, parseIpLiteral } from '../../files/safe-fetch.js';
import { newId, randomBase62 } from '../../ids.js';
import type { Db, Queryable } from '../../store/db.js';
import {
  findDelivery,
  insertDelivery,
  listAttempts,
  listDeliveriesBefore,
  parkAllDeliveries,
  parkFanOutDeliveries,
  unparkDeliveries,
  type DeliveryRow,
  type DeliveryStatus,
} from '../../store/deliveries.js';
import { insertFannedOutEvent } from '../../store/events.js';
import { findWebhook, insertWebhook, listWebhooksBefore, markWebhookDeleted, updateWebhookSettings, type WebhookRow } from '../../store/webhooks.js';
import type { Mode, Principal } from '../access.js';
import { recordAudit, type AuditOrigin } from '../audit.js';
import { TEST_EVENT_TYPE } from './events.js';

/*
 * The ports of the webhook use cases, combined per use case below, so each
 * signature names what it touches: one statement at a time, or a transaction;
 * the operator's network rule (for a URL); the dispatcher's nudge (when a
 * delivery falls due).
 */
interface StatementPorts {
  db: Queryable;
}
interface TransactionPorts {
  db: Db;
}
interface UrlRulePorts {
  config: { allowPrivateNetwork: boolean };
}
interface DeliveryDuePorts {
  webhooksDue: { notify(): void };
}

/**
 * Webhooks glossary
 * - event: one row of the outbox (`events`, prefix evt_), written by the state
 *   change that causes it; immutable. Its `id` is the receivers' deduplication key.
 * - webhook (whk_): an organization's subscription, for one mode (live/test),
 *   to some event types or to all (`*`), delivered to one URL and signed with
 *   its secret (whsec_, shown only when created).
 * - fan-out: turning an event into one delivery per enabled webhook of the same
 *   organization and mode that subscribes to its type; exactly once per pair.
 * - delivery (whd_): getting one event to one webhook. pending → succeeded, or
 *   failed (another attempt is scheduled) → … → exhausted after the last
 *   attempt. Its id is the X-Service-Delivery header, the same on every attempt.
 * - attempt: one signed POST of a delivery; each is recorded with its outcome.
 * - replay: a new delivery of an event that was already delivered (or not),
 *   with the same evt_ id and a new whd_ id.
 * - parked: a delivery whose webhook was disabled or deleted; nothing is
 *   scheduled for it until its webhook is enabled again.
 * - test event: a `webhook.test` event made for one webhook on request, delivered
 *   to it only, whatever its filter.
 */

export { ALL_EVENTS, EVENT_TYPES, SUBSCRIBABLE_EVENTS, TEST_EVENT_TYPE, subscribes } from './events.js';

export interface WebhookView {
  id: string;
  object: 'webhook';
  url: string;
  events: string[];
  enabled: boolean;
  mode: Mode;
  created_at: string;
}

export type { DeliveryStatus };

export interface DeliveryView {
  id: string;
  object: 'webhook_delivery';
  webhook_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_response_status: number | null;
  last_error: string | null;
  replay_of: string | null;
  created_at: string;
  updated_at: string;
}

export interface AttemptView {
  attempt: number;
  started_at: string;
  duration_ms: number;
  response_status: number | null;
  error: string | null;
}

/** 40 base62 characters: about 238 bits, so a secret cannot be guessed and never repeats. */
const SECRET_RANDOM_LENGTH = 40;
export const MAX_URL_LENGTH = 2048;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

function toWebhookView(r: WebhookRow): WebhookView {
  return { id: r.id, object: 'webhook', url: r.url, events: r.events, enabled: r.enabled, mode: r.mode, created_at: r.created_at.toISOString() };
}

export function toDeliveryView(r: DeliveryRow): DeliveryView {
  return {
    id: r.id,
    object: 'webhook_delivery',
    webhook_id: r.webhook_id,
    event_id: r.event_id,
    event_type: r.event_type,
    status: r.status,
    attempts: r.attempts,
    next_attempt_at: iso(r.next_attempt_at),
    last_response_status: r.last_response_status,
    last_error: r.last_error,
    replay_of: r.replay_of,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

/**
 * A webhook URL must parse, use http(s), carry no credentials, and, for live
 * webhooks, use https (unless the operator allows private networks, where
 * local receivers speak http). An IP literal that is not public is refused
 * now; host names are checked on every connection, when delivering.
 */
export function validateWebhookUrl(raw: string, mode: Mode, allowPrivateNetwork: boolean): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ApiError('parameter_invalid', 'url must be an absolute http or https URL.', 'url');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') {
    throw new ApiError('parameter_invalid', `url must use https${mode === 'test' || allowPrivateNetwork ? ' or http' : ''}, not ${u.protocol.replace(/:$/, '')}.`, 'url');
  }
  if (u.protocol === 'http:' && mode === 'live' && !allowPrivateNetwork) {
    throw new ApiError('parameter_invalid', 'Live-mode webhooks need an https URL (test-mode webhooks may use http).', 'url');
  }
  if (u.username || u.password) {
    throw new ApiError('parameter_invalid', 'url must not contain a user name or password; authenticate deliveries by their signature.', 'url');
  }
  if (!allowPrivateNetwork && parseIpLiteral(u.hostname)) {
    const c = classifyAddress(u.hostname);
    if (!c.public) throw new ApiError('parameter_invalid', `url points at a ${c.range} address (${c.address}); webhooks are delivered to public addresses only.`, 'url');
  }
  return raw;
}

function dedupe(events: readonly string[]): string[] {
  return [...new Set(events)];
}

async function loadWebhook(q: Queryable, caller: Principal, id: string): Promise<WebhookRow> {
  const row = await findWebhook(q, caller.organizationId, caller.mode, id);
  if (!row) throw notFound('webhook', id);
  return row;
}

async function loadDelivery(q: Queryable, webhookId: string, id: string, param = 'delivery_id'): Promise<DeliveryRow> {
  const row = await findDelivery(q, webhookId, id);
  if (!row) throw new ApiError('resource_not_found', `No such webhook delivery: '${id}'`, param);
  return row;
}

export interface CreateWebhookRequest {
  url: string;
  events: string[];
  enabled?: boolean | undefined;
}

/** Creates the webhook and records `webhook.created` (never its secret), in one transaction. */
export async function createWebhook(deps: TransactionPorts & UrlRulePorts, caller: Principal, req: CreateWebhookRequest, origin: AuditOrigin): Promise<WebhookView & { secret: string }> {
  const url = validateWebhookUrl(req.url, caller.mode, deps.config.allowPrivateNetwork);
  const secret = `whsec_${randomBase62(SECRET_RANDOM_LENGTH)}`;
  const row = await deps.db.tx(async (q) => {
    const inserted = await insertWebhook(q, {
      id: newId('whk'),
      organizationId: caller.organizationId,
      mode: caller.mode,
      url,
      events: dedupe(req.events),
      enabled: req.enabled ?? true,
      secret,
    });
    await recordAudit(q, { ...origin, organizationId: caller.organizationId, action: 'webhook.created', target: { type: 'webhook', id: inserted.id }, before: null, after: toWebhookView(inserted) });
    return inserted;
  });
  return { ...toWebhookView(row), secret };
}

export async function getWebhook(deps: StatementPorts, caller: Principal, id: string): Promise<WebhookView> {
  return toWebhookView(await loadWebhook(deps.db, caller, id));
}

export async function listWebhooks(
  deps: StatementPorts,
  caller: Principal,
  page: { limit: number; startingAfter?: string | undefined },
): Promise<{ object: 'list'; data: WebhookView[]; has_more: boolean }> {
  let cursor = Number.MAX_SAFE_INTEGER;
  if (page.startingAfter) cursor = (await loadWebhook(deps.db, caller, page.startingAfter).catch(() => {
    throw new ApiError('resource_not_found', `No such webhook: '${page.startingAfter}'`, 'starting_after');
  })).seq;
  const rows = await listWebhooksBefore(deps.db, caller.organizationId, caller.mode, cursor, page.limit + 1);
  return { object: 'list', data: rows.slice(0, page.limit).map(toWebhookView), has_more: rows.length > page.limit };
}

export interface UpdateWebhookRequest {
  url?: string | undefined;
  events?: string[] | undefined;
  enabled?: boolean | undefined;
}

export async function updateWebhook(deps: TransactionPorts & UrlRulePorts & DeliveryDuePorts, caller: Principal, id: string, req: UpdateWebhookRequest, origin: AuditOrigin): Promise<WebhookView> {
  const url = req.url !== undefined ? validateWebhookUrl(req.url, caller.mode, deps.config.allowPrivateNetwork) : undefined;
  const row = await deps.db.tx(async (q) => {
    const current = await loadWebhook(q, caller, id);
    const updated = await updateWebhookSettings(q, id, {
      url: url ?? current.url,
      events: req.events !== undefined ? dedupe(req.events) : current.events,
      enabled: req.enabled ?? current.enabled,
    });
    if (!updated) throw notFound('webhook', id);
    if (current.enabled && !updated.enabled) {
      // Automatic deliveries wait while the webhook is disabled; replays and tests were asked for explicitly.
      await parkFanOutDeliveries(q, id, TEST_EVENT_TYPE);
    } else if (!current.enabled && updated.enabled) {
      await unparkDeliveries(q, id);
    }
    await recordAudit(q, { ...origin, organizationId: caller.organizationId, action: 'webhook.updated', target: { type: 'webhook', id }, before: toWebhookView(current), after: toWebhookView(updated) });
    return updated;
  });
  if (row.enabled) deps.webhooksDue.notify();
  return toWebhookView(row);
}

/** Deleting stops every delivery not yet made; the deliveries stay on record. */
export async function deleteWebhook(deps: TransactionPorts, caller: Principal, id: string, origin: AuditOrigin): Promise<{ id: string; object: 'webhook'; deleted: true }> {
  await deps.db.tx(async (q) => {
    const current = await loadWebhook(q, caller, id);
    await markWebhookDeleted(q, id);
    await parkAllDeliveries(q, id);
    await recordAudit(q, { ...origin, organizationId: caller.organizationId, action: 'webhook.deleted', target: { type: 'webhook', id }, before: toWebhookView(current), after: null });
  });
  return { id, object: 'webhook', deleted: true };
}

export async function listDeliveries(
  deps: StatementPorts,
  caller: Principal,
  webhookId: string,
  page: { limit: number; startingAfter?: string | undefined; status?: DeliveryStatus | undefined },
): Promise<{ object: 'list'; data: DeliveryView[]; has_more: boolean }> {
  await loadWebhook(deps.db, caller, webhookId);
  let cursor = Number.MAX_SAFE_INTEGER;
  if (page.startingAfter) cursor = (await loadDelivery(deps.db, webhookId, page.startingAfter, 'starting_after')).seq;
  const rows = await listDeliveriesBefore(deps.db, webhookId, cursor, page.status ?? null, page.limit + 1);
  return { object: 'list', data: rows.slice(0, page.limit).map(toDeliveryView), has_more: rows.length > page.limit };
}

export async function getDelivery(
  deps: StatementPorts,
  caller: Principal,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryView & { attempt_log: AttemptView[] }> {
  await loadWebhook(deps.db, caller, webhookId);
  const d = await loadDelivery(deps.db, webhookId, deliveryId);
  const attempts = await listAttempts(deps.db, deliveryId);
  return {
    ...toDeliveryView(d),
    attempt_log: attempts.map((x) => ({
      attempt: x.attempt,
      started_at: x.started_at.toISOString(),
      duration_ms: x.duration_ms,
      response_status: x.response_status,
      error: x.error,
    })),
  };
}

/** A new delivery of the same event (same evt_ id), attempted at once, even if the webhook is disabled. */
export async function replayDelivery(deps: StatementPorts & DeliveryDuePorts, caller: Principal, webhookId: string, deliveryId: string): Promise<DeliveryView> {
  const hook = await loadWebhook(deps.db, caller, webhookId);
  const d = await loadDelivery(deps.db, webhookId, deliveryId);
  const row = await insertDelivery(deps.db, {
    id: newId('whd'),
    webhookId: hook.id,
    eventId: d.event_id,
    eventType: d.event_type,
    organizationId: hook.organization_id,
    mode: hook.mode,
    replayOf: d.id,
  });
  deps.webhooksDue.notify();
  return toDeliveryView(row);
}

/** A `webhook.test` event for this webhook alone (already fanned out, so no other webhook sees it). */
export async function sendTestEvent(deps: TransactionPorts & DeliveryDuePorts, caller: Principal, webhookId: string): Promise<DeliveryView> {
  const row = await deps.db.tx(async (q) => {
    const hook = await loadWebhook(q, caller, webhookId);
    const eventId = newId('evt');
    await insertFannedOutEvent(q, {
      id: eventId,
      organizationId: hook.organization_id,
      mode: hook.mode,
      type: TEST_EVENT_TYPE,
      data: { webhook_id: hook.id, message: 'A test event sent with POST /v1/webhooks/{id}/test.' },
    });
    return insertDelivery(q, {
      id: newId('whd'),
      webhookId: hook.id,
      eventId,
      eventType: TEST_EVENT_TYPE,
      organizationId: hook.organization_id,
      mode: hook.mode,
      replayOf: null,
    });
  });
  deps.webhooksDue.notify();
  return toDeliveryView(row);
}
