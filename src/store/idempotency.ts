import type { Queryable } from './db.js';

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
}

export interface IdempotencyKeyRow {
  method: string;
  path: string;
  request_sha256: string;
  state: 'in_flight' | 'completed';
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  expired: boolean;
  /** In flight, and not renewed for the given number of seconds. */
  stale: boolean;
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
    `INSERT INTO idempotency_keys (api_key_id, idempotency_key, method, path, request_sha256, state, request_id)
     VALUES ($1, $2, $3, $4, $5, 'in_flight', $6) ON CONFLICT DO NOTHING RETURNING request_id`,
    [c.apiKeyId, c.key, c.method, c.path, c.requestSha256, c.requestId],
  );
  return r.rows.length === 1;
}

export async function findIdempotencyKey(
  q: Queryable,
  apiKeyId: string,
  key: string,
  staleAfterSeconds: number,
): Promise<IdempotencyKeyRow | null> {
  const r = await q.query<IdempotencyKeyRow>(
    `SELECT method, path, request_sha256, state, response_status, response_headers, response_body,
            expires_at <= now() AS expired,
            (state = 'in_flight' AND locked_at < now() - $3::int * interval '1 second') AS stale
     FROM idempotency_keys WHERE api_key_id = $1 AND idempotency_key = $2`,
    [apiKeyId, key, staleAfterSeconds],
  );
  return r.rows[0] ?? null;
}

export async function deleteExpiredOrStaleIdempotencyKey(q: Queryable, apiKeyId: string, key: string, staleAfterSeconds: number): Promise<void> {
  // The condition is repeated so that a row another request has just claimed afresh is left alone.
  await q.query(
    `DELETE FROM idempotency_keys WHERE api_key_id = $1 AND idempotency_key = $2
     AND (expires_at <= now() OR (state = 'in_flight' AND locked_at < now() - $3::int * interval '1 second'))`,
    [apiKeyId, key, staleAfterSeconds],
  );
}

export async function completeIdempotencyClaim(q: Queryable, c: IdempotencyClaim, response: KeptResponse): Promise<void> {
  await q.query(
    `UPDATE idempotency_keys SET state = 'completed', response_status = $4, response_headers = $5::jsonb, response_body = $6, completed_at = now()
     WHERE api_key_id = $1 AND idempotency_key = $2 AND request_id = $3`,
    [c.apiKeyId, c.key, c.requestId, response.status, JSON.stringify(response.headers), response.body],
  );
}

export async function releaseIdempotencyClaim(q: Queryable, c: IdempotencyClaim): Promise<void> {
  await q.query(
    `DELETE FROM idempotency_keys WHERE api_key_id = $1 AND idempotency_key = $2 AND request_id = $3 AND state = 'in_flight'`,
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
