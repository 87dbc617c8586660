import type { Mode } from '../domain/access.js';
import type { Queryable } from './db.js';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'exhausted';

/** Getting one event to one webhook; `next_attempt_at` null means nothing is scheduled (done, exhausted or parked). */
export interface DeliveryRow {
  id: string;
  seq: number;
  webhook_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date | null;
  last_response_status: number | null;
  last_error: string | null;
  replay_of: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface AttemptRow {
  attempt: number;
  started_at: Date;
  duration_ms: number;
  response_status: number | null;
  error: string | null;
}

/** A delivery made by hand (a replay or a test), not by fan-out. */
export interface NewDelivery {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  organizationId: string;
  mode: Mode;
  replayOf: string | null;
}

/** A delivery fan-out makes: one per (webhook, event). */
export type FanOutDelivery = Omit<NewDelivery, 'replayOf'>;

/** A leased delivery with what sending it needs: its event and its webhook. */
export interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  attempts: number;
  replay_of: string | null;
  mode: Mode;
  event_id: string;
  event_type: string;
  event_data: unknown;
  event_created_at: Date;
  url: string;
  secret: string;
  enabled: boolean;
  deleted: boolean;
}

export interface ClaimRequest {
  /** Lease owner: the claiming node. */
  owner: string;
  leaseSeconds: number;
  limit: number;
  /** Webhooks none of whose deliveries may be claimed now. */
  blockedWebhookIds: string[];
  /** Webhooks with a room of their own (`rooms`, same order) … */
  roomWebhookIds: string[];
  rooms: number[];
  /** … and the room of every other webhook. */
  defaultRoom: number;
}

/** The outcome of one attempt, as it is recorded. */
export interface AttemptOutcome {
  id: string;
  ok: boolean;
  responseStatus: number | null;
  error: string | null;
  startedAt: Date;
  durationMs: number;
}

export async function findDelivery(q: Queryable, webhookId: string, id: string): Promise<DeliveryRow | null> {
  const r = await q.query<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = $1 AND webhook_id = $2', [id, webhookId]);
  return r.rows[0] ?? null;
}

/** Up to `limit` of the webhook's deliveries (of that status, unless null), newest first, older than `beforeSeq`. */
export async function listDeliveriesBefore(
  q: Queryable,
  webhookId: string,
  beforeSeq: number,
  status: DeliveryStatus | null,
  limit: number,
): Promise<DeliveryRow[]> {
  const r = await q.query<DeliveryRow>(
    `SELECT * FROM webhook_deliveries WHERE webhook_id = $1 AND seq < $2 AND ($3::text IS NULL OR status = $3)
     ORDER BY seq DESC LIMIT $4`,
    [webhookId, beforeSeq, status, limit],
  );
  return r.rows;
}

export async function listAttempts(q: Queryable, deliveryId: string): Promise<AttemptRow[]> {
  const r = await q.query<AttemptRow>(
    'SELECT attempt, started_at, duration_ms, response_status, error FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt',
    [deliveryId],
  );
  return r.rows;
}

const INSERT_DELIVERY = `
  INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, organization_id, mode, replay_of, next_attempt_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, now()) RETURNING *`;

/** A delivery due at once, whether or not its webhook is enabled. */
export async function insertDelivery(q: Queryable, d: NewDelivery): Promise<DeliveryRow> {
  const r = await q.query<DeliveryRow>(INSERT_DELIVERY, [d.id, d.webhookId, d.eventId, d.eventType, d.organizationId, d.mode, d.replayOf]);
  return r.rows[0]!;
}

/** Due at once; a (webhook, event) pair that already has its fan-out delivery is left as it is. */
export async function insertFanOutDeliveries(q: Queryable, deliveries: readonly FanOutDelivery[]): Promise<void> {
  await q.query(
    `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, organization_id, mode, next_attempt_at)
           SELECT id, webhook_id, event_id, event_type, organization_id, mode, now()
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
             AS x(id, webhook_id, event_id, event_type, organization_id, mode)
           ON CONFLICT (webhook_id, event_id) WHERE replay_of IS NULL DO NOTHING`,
    [
      deliveries.map((d) => d.id),
      deliveries.map((d) => d.webhookId),
      deliveries.map((d) => d.eventId),
      deliveries.map((d) => d.eventType),
      deliveries.map((d) => d.organizationId),
      deliveries.map((d) => d.mode),
    ],
  );
}

/** Unschedules the webhook's fan-out deliveries still to be made; replays and `testEventType` deliveries stay scheduled. */
export async function parkFanOutDeliveries(q: Queryable, webhookId: string, testEventType: string): Promise<void> {
  await q.query(
    `UPDATE webhook_deliveries SET next_attempt_at = NULL, updated_at = now()
         WHERE webhook_id = $1 AND status IN ('pending', 'failed') AND next_attempt_at IS NOT NULL
           AND replay_of IS NULL AND event_type <> $2`,
    [webhookId, testEventType],
  );
}

/** Unschedules every delivery of the webhook still to be made. */
export async function parkAllDeliveries(q: Queryable, webhookId: string): Promise<void> {
  await q.query(
    `UPDATE webhook_deliveries SET next_attempt_at = NULL, updated_at = now()
       WHERE webhook_id = $1 AND status IN ('pending', 'failed') AND next_attempt_at IS NOT NULL`,
    [webhookId],
  );
}

/** Schedules the webhook's parked deliveries at once. */
export async function unparkDeliveries(q: Queryable, webhookId: string): Promise<void> {
  await q.query(
    `UPDATE webhook_deliveries SET next_attempt_at = now(), updated_at = now()
         WHERE webhook_id = $1 AND status IN ('pending', 'failed') AND next_attempt_at IS NULL`,
    [webhookId],
  );
}

// The lease outlives the longest possible attempt; the owner check on recording
// makes a result that comes after someone else took the delivery over a no-op.
// Fair between receivers: lanes this node has full ($4) are skipped, and no
// webhook gets more than its room ($5/$6, else $7) out of one claim, so a
// backlog of one receiver never fills a claim that others are waiting behind.
const CLAIM_SQL = `
  WITH cand AS (
    SELECT id, webhook_id, next_attempt_at FROM webhook_deliveries
    WHERE next_attempt_at <= now() AND (lease_expires_at IS NULL OR lease_expires_at < now())
      AND webhook_id <> ALL($4::text[])
    ORDER BY next_attempt_at LIMIT ($3::int * 4) FOR UPDATE SKIP LOCKED),
  due AS (
    SELECT c.id FROM (
      SELECT id, webhook_id, next_attempt_at, row_number() OVER (PARTITION BY webhook_id ORDER BY next_attempt_at) AS rn FROM cand) c
    LEFT JOIN unnest($5::text[], $6::int[]) AS room(webhook_id, n) ON room.webhook_id = c.webhook_id
    WHERE c.rn <= coalesce(room.n, $7::int)
    ORDER BY c.next_attempt_at LIMIT $3)
  UPDATE webhook_deliveries d SET lease_owner = $1, lease_expires_at = now() + make_interval(secs => $2)
  FROM due, events e, webhooks w
  WHERE d.id = due.id AND e.id = d.event_id AND w.id = d.webhook_id
  RETURNING d.id, d.webhook_id, d.attempts, d.replay_of, d.mode, e.id AS event_id, e.type AS event_type, e.data AS event_data,
    e.created_at AS event_created_at, w.url, w.secret, w.enabled, (w.deleted_at IS NOT NULL) AS deleted`;

/** Leases up to `limit` due deliveries to `owner`, oldest due first. */
export async function claimDueDeliveries(q: Queryable, c: ClaimRequest): Promise<ClaimedDelivery[]> {
  const r = await q.query<ClaimedDelivery>(CLAIM_SQL, [c.owner, c.leaseSeconds, c.limit, c.blockedWebhookIds, c.roomWebhookIds, c.rooms, c.defaultRoom]);
  return r.rows;
}

/** Unschedules and releases deliveries `owner` claimed but will not send; enabling the webhook schedules them again. */
export async function parkClaimedDeliveries(q: Queryable, ids: string[], owner: string): Promise<void> {
  await q.query(
    `UPDATE webhook_deliveries SET next_attempt_at = NULL, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
         WHERE id = ANY($1::text[]) AND lease_owner = $2`,
    [ids, owner],
  );
}

/** Hands these deliveries back, if `owner` still holds them, to be claimed again at once. */
export async function releaseDeliveryLeases(q: Queryable, ids: string[], owner: string): Promise<void> {
  await q.query('UPDATE webhook_deliveries SET lease_owner = NULL, lease_expires_at = NULL WHERE id = ANY($1::text[]) AND lease_owner = $2', [ids, owner]);
}

/** Hands back every delivery `owner` holds. */
export async function releaseAllDeliveryLeases(q: Queryable, owner: string): Promise<void> {
  await q.query('UPDATE webhook_deliveries SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = $1', [owner]);
}

// One statement records a batch of attempts: the delivery's new state and its
// attempt row. $7 and $9 are the retry policy's delays (seconds; SQL arrays are
// 1-based, so after attempt n fails, attempt n+1 waits $7[n]) and attempt limit.
const RECORD_SQL = `
  WITH r AS (
    SELECT * FROM unnest($2::text[], $3::boolean[], $4::int[], $5::text[], $6::timestamptz[], $8::int[])
      AS r(id, ok, response_status, error, started_at, duration_ms)),
  u AS (
    UPDATE webhook_deliveries d SET
      attempts = d.attempts + 1,
      status = CASE WHEN r.ok THEN 'succeeded' WHEN d.attempts + 1 >= $9 THEN 'exhausted' ELSE 'failed' END,
      next_attempt_at = CASE WHEN r.ok OR d.attempts + 1 >= $9 THEN NULL
        ELSE now() + make_interval(secs => ($7::float8[])[d.attempts + 1]) END,
      lease_owner = NULL, lease_expires_at = NULL,
      last_response_status = r.response_status, last_error = r.error, updated_at = now()
    FROM r WHERE d.id = r.id AND d.lease_owner = $1
    RETURNING d.id, d.attempts)
  INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, response_status, error)
  SELECT u.id, u.attempts, r.started_at, r.duration_ms, r.response_status, r.error FROM u JOIN r ON r.id = u.id
  ON CONFLICT DO NOTHING`;

/**
 * What the recording statement reads of the retry policy
 * (domain/webhooks/retry-policy.ts, which the store may not import): the
 * delays and the attempt limit, both from that one object.
 */
export interface RetrySchedule {
  readonly delaysS: readonly number[];
  readonly maxAttempts: number;
}

/**
 * Records the attempts of deliveries `owner` still holds (others are ignored)
 * and releases them: succeeded, exhausted after `retries.maxAttempts`, or
 * failed and tried again `retries.delaysS[attempts - 1]` seconds later.
 */
export async function recordDeliveryAttempts(
  q: Queryable,
  owner: string,
  batch: readonly AttemptOutcome[],
  retries: RetrySchedule,
): Promise<void> {
  await q.query(RECORD_SQL, [
    owner,
    batch.map((r) => r.id),
    batch.map((r) => r.ok),
    batch.map((r) => r.responseStatus),
    batch.map((r) => r.error),
    batch.map((r) => r.startedAt),
    retries.delaysS,
    batch.map((r) => r.durationMs),
    retries.maxAttempts,
  ]);
}
