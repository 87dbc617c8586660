import type { Mode } from '../domain/access.js';
import type { Queryable } from './db.js';

/**
 * The audit log's rows (migration 0030): appended under the lock of their chain's head, read by organization with
 * filters, and walked chain by chain by the verifier. Nothing here updates or deletes an entry (a trigger refuses it).
 */
export type AuditActorType = 'member' | 'api_key' | 'operator' | 'system';

export interface AuditEventRow {
  id: string;
  chain: string;
  seq: number;
  organization_id: string | null;
  at: Date;
  mode: Mode | null;
  actor_type: AuditActorType;
  actor_id: string;
  actor_user_id: string | null;
  client_address: string | null;
  request_id: string | null;
  action: string;
  target_type: string;
  target_id: string;
  before: unknown;
  after: unknown;
  prev_hash: string;
  hash: string;
}

export interface ChainHead {
  last_seq: number;
  last_hash: string;
}

const COLUMNS = `id, chain, seq, organization_id, at, mode, actor_type, actor_id, actor_user_id, client_address, request_id,
  action, target_type, target_id, before, after, prev_hash, hash`;

/**
 * Creates the chain's head if it has none and locks it until the caller's transaction ends (the no-op update takes
 * the row lock, and waits for a concurrent writer's commit, whose head it then returns).
 */
export async function lockChainHead(q: Queryable, chain: string, genesisHash: string): Promise<ChainHead> {
  const r = await q.query<ChainHead>(
    `INSERT INTO audit_chains (chain, last_seq, last_hash) VALUES ($1, 0, $2)
     ON CONFLICT (chain) DO UPDATE SET chain = audit_chains.chain
     RETURNING last_seq, last_hash`,
    [chain, genesisHash],
  );
  return r.rows[0]!;
}

/** Appends the entry and moves its chain's head to it, in one statement. */
export async function appendAuditRow(q: Queryable, row: AuditEventRow): Promise<void> {
  await q.query(
    `WITH appended AS (
       INSERT INTO audit_events (${COLUMNS})
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::jsonb, $16::jsonb, $17, $18)
       RETURNING chain, seq, hash
     )
     UPDATE audit_chains c SET last_seq = a.seq, last_hash = a.hash FROM appended a WHERE c.chain = a.chain`,
    [
      row.id, row.chain, row.seq, row.organization_id, row.at, row.mode, row.actor_type, row.actor_id, row.actor_user_id,
      row.client_address, row.request_id, row.action, row.target_type, row.target_id,
      row.before === null ? null : JSON.stringify(row.before), row.after === null ? null : JSON.stringify(row.after),
      row.prev_hash, row.hash,
    ],
  );
}

export interface AuditFilter {
  organizationId: string;
  /** The caller's mode: entries of that mode and the organization-wide ones (mode NULL). */
  mode: Mode;
  action?: string | undefined;
  /** An actor's id (key_…, usr_…, an operator's name, a system part), or the member behind a key. */
  actor?: string | undefined;
  actorType?: AuditActorType | undefined;
  targetType?: string | undefined;
  targetId?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
  /** Entries before this seq of the organization's chain (newest first). */
  beforeSeq?: number | undefined;
}

/**
 * An action filter ending in `.*` matches the prefix (`api_key.*`); otherwise the exact name. The organization's
 * chain is its id, so the chain's (chain, seq) index serves the order.
 */
export async function selectAuditEvents(q: Queryable, f: AuditFilter, limit: number): Promise<AuditEventRow[]> {
  const actionPrefix = f.action?.endsWith('.*') ? f.action.slice(0, -1) : null;
  const r = await q.query<AuditEventRow>(
    `SELECT ${COLUMNS} FROM audit_events
     WHERE chain = $1 AND (mode IS NULL OR mode = $2)
       AND ($3::text IS NULL OR action = $3) AND ($4::text IS NULL OR left(action, length($4)) = $4)
       AND ($5::text IS NULL OR actor_id = $5 OR actor_user_id = $5)
       AND ($6::text IS NULL OR actor_type = $6)
       AND ($7::text IS NULL OR target_type = $7) AND ($8::text IS NULL OR target_id = $8)
       AND ($9::timestamptz IS NULL OR at >= $9) AND ($10::timestamptz IS NULL OR at < $10)
       AND ($11::bigint IS NULL OR seq < $11)
     ORDER BY seq DESC LIMIT $12`,
    [
      f.organizationId, f.mode, actionPrefix === null ? (f.action ?? null) : null, actionPrefix, f.actor ?? null, f.actorType ?? null,
      f.targetType ?? null, f.targetId ?? null, f.since ?? null, f.until ?? null, f.beforeSeq ?? null, limit,
    ],
  );
  return r.rows;
}

/** An entry of the organization's chain visible in the mode, by id (a page's cursor). */
export async function selectAuditEvent(q: Queryable, organizationId: string, mode: Mode, id: string): Promise<AuditEventRow | undefined> {
  const r = await q.query<AuditEventRow>(
    `SELECT ${COLUMNS} FROM audit_events WHERE id = $1 AND chain = $2 AND (mode IS NULL OR mode = $3)`,
    [id, organizationId, mode],
  );
  return r.rows[0];
}

/** Every chain there is: those with a head, and any whose head is gone but entries remain. */
export async function selectChains(q: Queryable): Promise<Array<{ chain: string; head: ChainHead | null }>> {
  const r = await q.query<{ chain: string; last_seq: number | null; last_hash: string | null }>(
    `SELECT chain, c.last_seq, c.last_hash
     FROM (SELECT chain FROM audit_chains UNION SELECT DISTINCT chain FROM audit_events) k
     LEFT JOIN audit_chains c USING (chain)
     ORDER BY chain`,
  );
  return r.rows.map((x) => ({ chain: x.chain, head: x.last_seq === null || x.last_hash === null ? null : { last_seq: x.last_seq, last_hash: x.last_hash } }));
}

/** A chain's entries after `afterSeq`, in order: the verifier's walk, in batches. */
export async function selectChainBatch(q: Queryable, chain: string, afterSeq: number, limit: number): Promise<AuditEventRow[]> {
  const r = await q.query<AuditEventRow>(`SELECT ${COLUMNS} FROM audit_events WHERE chain = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [chain, afterSeq, limit]);
  return r.rows;
}
