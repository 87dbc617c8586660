import type { Mode } from '../domain/access.js';
import type { Queryable } from './db.js';

/** A webhook endpoint: one organization's subscription, in one mode, delivered to one URL. */
export interface WebhookRow {
  id: string;
  seq: number;
  organization_id: string;
  mode: Mode;
  url: string;
  events: string[];
  enabled: boolean;
  secret: string;
  created_at: Date;
  deleted_at: Date | null;
}

export interface NewWebhook {
  id: string;
  organizationId: string;
  mode: Mode;
  url: string;
  events: string[];
  enabled: boolean;
  secret: string;
}

export interface WebhookSettings {
  url: string;
  events: string[];
  enabled: boolean;
}

/** What fan-out needs of a webhook to decide whether an event is for it. */
export type SubscribedWebhook = Pick<WebhookRow, 'id' | 'organization_id' | 'mode' | 'events' | 'created_at'>;

/** The organization's webhook in that mode, unless deleted. */
export async function findWebhook(q: Queryable, organizationId: string, mode: Mode, id: string): Promise<WebhookRow | null> {
  const r = await q.query<WebhookRow>(
    'SELECT * FROM webhooks WHERE id = $1 AND organization_id = $2 AND mode = $3 AND deleted_at IS NULL',
    [id, organizationId, mode],
  );
  return r.rows[0] ?? null;
}

export async function insertWebhook(q: Queryable, w: NewWebhook): Promise<WebhookRow> {
  const r = await q.query<WebhookRow>(
    `INSERT INTO webhooks (id, organization_id, mode, url, events, enabled, secret)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
    [w.id, w.organizationId, w.mode, w.url, w.events, w.enabled, w.secret],
  );
  return r.rows[0]!;
}

/** Up to `limit` webhooks not deleted, newest first, older than `beforeSeq`. */
export async function listWebhooksBefore(
  q: Queryable,
  organizationId: string,
  mode: Mode,
  beforeSeq: number,
  limit: number,
): Promise<WebhookRow[]> {
  const r = await q.query<WebhookRow>(
    `SELECT * FROM webhooks WHERE organization_id = $1 AND mode = $2 AND deleted_at IS NULL AND seq < $3
     ORDER BY seq DESC LIMIT $4`,
    [organizationId, mode, beforeSeq, limit],
  );
  return r.rows;
}

/** The updated webhook, or null if it was deleted meanwhile. */
export async function updateWebhookSettings(q: Queryable, id: string, s: WebhookSettings): Promise<WebhookRow | null> {
  const r = await q.query<WebhookRow>(
    `UPDATE webhooks SET url = $2, events = $3, enabled = $4, updated_at = now()
       WHERE id = $1 AND deleted_at IS NULL RETURNING *`,
    [id, s.url, s.events, s.enabled],
  );
  return r.rows[0] ?? null;
}

/** Soft delete: the row stays for the deliveries that refer to it. */
export async function markWebhookDeleted(q: Queryable, id: string): Promise<void> {
  await q.query('UPDATE webhooks SET deleted_at = now(), enabled = false, updated_at = now() WHERE id = $1 AND deleted_at IS NULL', [id]);
}

/** The enabled, not deleted webhooks of these organizations, both modes. */
export async function findEnabledWebhooks(q: Queryable, organizationIds: string[]): Promise<SubscribedWebhook[]> {
  const r = await q.query<SubscribedWebhook>(
    'SELECT id, organization_id, mode, events, created_at FROM webhooks WHERE organization_id = ANY($1::text[]) AND enabled AND deleted_at IS NULL',
    [organizationIds],
  );
  return r.rows;
}
