import type { Queryable } from './db.js';
import { nodeAliveSql } from './nodes.js';

/** A request's claim on an Idempotency-Key: only the request that holds it may complete, renew or release it. */
export interface IdempotencyClaim {
  apiKeyId: string;
  key: string;
  requestId: string;
}

export interface NewIdempotencyClaim extends IdempotencyClaim {
  method: string;
  path: string;
  requestSha256: string;
  /** The node whose request holds the claim: while it lives and renews, the claim answers 409. */
  nodeId: string;
}

export interface IdempotencyKeyRow {
  method: string;
  path: string;
  request_sha256: string;
  state: 'in_flight' | 'completed';
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  /** The request that holds the claim. */
  request_id: string;
  /** What that request accepted (a generation or a comparison), written in its accepting transaction; null before. */
  resource_id: string | null;
  expired: boolean;
  /**
   * In flight, but nobody works on it any more: its node is dead (or let it go), or its request has not renewed it
   * for the given number of seconds. It is taken over, and answered from `resource_id` if that is set.
   */
  orphaned: boolean;
}

/** How a claim is judged orphaned: the node bound and the renewal bound, in seconds. */
export interface OrphanBounds {
  nodeDeadAfterSeconds: number;
  staleAfterSeconds: number;
}

export interface KeptResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Rows deleted by one sweep statement, so a backlog never becomes one long statement. */
const SWEEP_BATCH = 1000;

/** True when the key was free and is now claimed; false when a row already holds it. */
export async function insertIdempotencyClaim(q: Queryable, c: NewIdempotencyClaim): Promise<boolean> {
  const r = await q.query(
    `INSERT INTO idempotency_keys (api_key_id, idempotency_key, method, path, request_sha256, state, request_id, node_id)
     VALUES ($1, $2, $3, $4, $5, 'in_flight', $6, $7) ON CONFLICT DO NOTHING RETURNING request_id`,
    [c.apiKeyId, c.key, c.method, c.path, c.requestSha256, c.requestId, c.nodeId],
  );
  return r.rows.length === 1;
}

export async function findIdempotencyKey(q: Queryable, apiKeyId: string, key: string, bounds: OrphanBounds): Promise<IdempotencyKeyRow | null> {
  const r = await q.query<IdempotencyKeyRow>(
    `SELECT method, path, request_sha256, state, response_status, response_headers, response_body, request_id, resource_id,
            expires_at <= now() AS expired,
            (state = 'in_flight' AND (NOT ${nodeAliveSql('k.node_id', '$3')} OR locked_at < now() - make_interval(secs => $4))) AS orphaned
     FROM idempotency_keys k WHERE api_key_id = $1 AND idempotency_key = $2`,
    [apiKeyId, key, bounds.nodeDeadAfterSeconds, bounds.staleAfterSeconds],
  );
  return r.rows[0] ?? null;
}

export async function deleteExpiredIdempotencyKey(q: Queryable, apiKeyId: string, key: string): Promise<void> {
  // The condition is repeated so that a row another request has just claimed afresh is left alone.
  await q.query(`DELETE FROM idempotency_keys WHERE api_key_id = $1 AND idempotency_key = $2 AND expires_at <= now()`, [apiKeyId, key]);
}

/**
 * Moves an orphaned claim to a new request on a live node, if it is still held by the request that was seen
 * (of two retries racing for it, one wins). Returns what the dead request had accepted (null: nothing, and the
 * new request runs as a first one would), or undefined when the claim was not taken over.
 */
export async function takeOverIdempotencyClaim(q: Queryable, orphan: IdempotencyClaim, requestId: string, nodeId: string): Promise<string | null | undefined> {
  const r = await q.query<{ resource_id: string | null }>(
    `UPDATE idempotency_keys SET request_id = $4, node_id = $5, locked_at = now()
     WHERE api_key_id = $1 AND idempotency_key = $2 AND request_id = $3 AND state = 'in_flight'
     RETURNING resource_id`,
    [orphan.apiKeyId, orphan.key, orphan.requestId, requestId, nodeId],
  );
  return r.rows.length === 1 ? r.rows[0]!.resource_id : undefined;
}

/**
 * For the accepting statement: a CTE body that returns a row only if the request still holds the claim, and
 * locks it until the commit, so no takeover can slip in between this check and the link written after the
 * generation (`linkClaimSql`). Parameters: the claim's API key id, key and request id.
 */
export function claimHeldSql(apiKeyId: string, key: string, requestId: string, lock = true): string {
  return `SELECT 1 FROM idempotency_keys WHERE api_key_id = ${apiKeyId} AND idempotency_key = ${key} AND request_id = ${requestId}
            AND state = 'in_flight'${lock ? ' FOR UPDATE' : ''}`;
}

/** For the accepting statement: a CTE body that names the accepted resource on the claim, once `written` holds. */
export function linkClaimSql(resource: string, apiKeyId: string, key: string, requestId: string, written = 'true'): string {
  return `UPDATE idempotency_keys SET resource_id = ${resource}, locked_at = now()
          WHERE api_key_id = ${apiKeyId} AND idempotency_key = ${key} AND request_id = ${requestId} AND state = 'in_flight' AND ${written}
          RETURNING 1`;
}

export async function claimStillHeld(q: Queryable, c: IdempotencyClaim): Promise<boolean> {
  const r = await q.query(claimHeldSql('$1', '$2', '$3', false), [c.apiKeyId, c.key, c.requestId]);
  return r.rows.length === 1;
}

/** Records what a request accepted on its claim, inside the accepting transaction; false when the claim was taken over. */
export async function linkIdempotencyClaim(q: Queryable, c: IdempotencyClaim, resourceId: string): Promise<boolean> {
  const r = await q.query(linkClaimSql('$1', '$2', '$3', '$4'), [resourceId, c.apiKeyId, c.key, c.requestId]);
  return r.rows.length === 1;
}

export async function completeIdempotencyClaim(q: Queryable, c: IdempotencyClaim, response: KeptResponse): Promise<void> {
  await q.query(
    `UPDATE idempotency_keys SET state = 'completed', response_status = $4, response_headers = $5::jsonb, response_body = $6, completed_at = now()
     WHERE api_key_id = $1 AND idempotency_key = $2 AND request_id = $3`,
    [c.apiKeyId, c.key, c.requestId, response.status, JSON.stringify(response.headers), response.body],
  );
}

/**
 * Ends a claim whose response is not kept. Nothing accepted, or a generation that failed or was canceled (its
 * credits came back): the key is free again. Anything else accepted stays bound to the key, as an orphan, so
 * the next request with it is answered from what was accepted instead of accepting again.
 */
export async function releaseIdempotencyClaim(q: Queryable, c: IdempotencyClaim): Promise<void> {
  await q.query(
    `WITH d AS (
       DELETE FROM idempotency_keys k WHERE api_key_id = $1 AND idempotency_key = $2 AND request_id = $3 AND state = 'in_flight'
         AND (resource_id IS NULL OR EXISTS (SELECT 1 FROM generations g WHERE g.id = k.resource_id AND g.status IN ('failed', 'canceled')))
       RETURNING 1)
     UPDATE idempotency_keys SET node_id = NULL
     WHERE api_key_id = $1 AND idempotency_key = $2 AND request_id = $3 AND state = 'in_flight' AND NOT EXISTS (SELECT 1 FROM d)`,
    [c.apiKeyId, c.key, c.requestId],
  );
}

export async function renewIdempotencyClaim(q: Queryable, c: IdempotencyClaim): Promise<void> {
  await q.query(
    `UPDATE idempotency_keys SET locked_at = now() WHERE api_key_id = $1 AND idempotency_key = $2 AND request_id = $3 AND state = 'in_flight'`,
    [c.apiKeyId, c.key, c.requestId],
  );
}

export async function deleteExpiredIdempotencyKeys(q: Queryable): Promise<void> {
  await q.query(
    `DELETE FROM idempotency_keys WHERE (api_key_id, idempotency_key) IN (
       SELECT api_key_id, idempotency_key FROM idempotency_keys WHERE expires_at <= now() LIMIT ${SWEEP_BATCH})`,
  );
}
