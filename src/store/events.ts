import type { Mode } from '../domain/access.js';
import type { Queryable } from './db.js';

export interface NewEvent {
  id: string;
  organizationId: string;
  mode: string;
  type: string;
  data: Record<string, unknown>;
}

/**
 * An event's `fanned_out_at` as it is written: already fanned out when its organization has no webhook in its mode, so
 * the fan-out (a probe, then a transaction of four statements) never runs for the events nobody hears. Read in the
 * writing statement's snapshot: a webhook committed after it was not there to hear the event, as a fan-out that
 * ran at that moment would have found (docs/contract-addenda.md, "Webhooks"). `org` and `mode` are SQL expressions
 * of the event's organization and mode, qualified where a FROM could shadow them.
 */
export function fannedOutUnlessHeard(org: string, mode: string): string {
  return `CASE WHEN EXISTS (SELECT 1 FROM webhooks w WHERE w.organization_id = ${org} AND w.mode = ${mode} AND w.deleted_at IS NULL) THEN NULL ELSE now() END`;
}

/** Records an event; webhook fan-out picks it up from the table if a webhook of its organization may hear it. */
export async function insertEvent(q: Queryable, e: NewEvent): Promise<void> {
  await q.query(`INSERT INTO events (id, organization_id, mode, type, data, fanned_out_at) VALUES ($1, $2, $3, $4, $5, ${fannedOutUnlessHeard('$2', '$3')})`, [
    e.id, e.organizationId, e.mode, e.type, JSON.stringify(e.data),
  ]);
}

/** An outbox event not yet turned into deliveries. */
export interface UnfannedEvent {
  id: string;
  organization_id: string;
  mode: Mode;
  type: string;
  created_at: Date;
}

/** Whether any event waits for fan-out: one index probe. */
export async function hasUnfannedEvents(q: Queryable): Promise<boolean> {
  const any = await q.query('SELECT 1 FROM events WHERE fanned_out_at IS NULL LIMIT 1');
  return any.rows.length > 0;
}

/** Locks up to `limit` unfanned events, oldest first, skipping those another fan-out holds. */
export async function claimUnfannedEvents(q: Queryable, limit: number): Promise<UnfannedEvent[]> {
  const ev = await q.query<UnfannedEvent>(
    `SELECT id, organization_id, mode, type, created_at FROM events WHERE fanned_out_at IS NULL
         ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [limit],
  );
  return ev.rows;
}

export async function markEventsFannedOut(q: Queryable, ids: string[]): Promise<void> {
  await q.query('UPDATE events SET fanned_out_at = now() WHERE id = ANY($1::text[])', [ids]);
}

/** An event born fanned out: fan-out never sees it, so it reaches only the deliveries made for it by hand. */
export async function insertFannedOutEvent(q: Queryable, e: NewEvent): Promise<void> {
  await q.query(
    `INSERT INTO events (id, organization_id, mode, type, data, fanned_out_at) VALUES ($1, $2, $3, $4, $5, now())`,
    [e.id, e.organizationId, e.mode, e.type, JSON.stringify(e.data)],
  );
}
