import type { Mode } from '../domain/access.js';
import type { Queryable } from './db.js';

export interface NewEvent {
  id: string;
  organizationId: string;
  mode: string;
  type: string;
  data: Record<string, unknown>;
}

/** Records an event; webhook fan-out picks it up from the table. */
export async function insertEvent(q: Queryable, e: NewEvent): Promise<void> {
  await q.query('INSERT INTO events (id, organization_id, mode, type, data) VALUES ($1, $2, $3, $4, $5)', [
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
