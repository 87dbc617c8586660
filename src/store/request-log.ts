import { advisoryXactLock, type Db, type Queryable } from './db.js';

/**
 * The request log's statements (migration 0060). Rows live in one partition per expiry day
 * (`request_log_eYYYYMMDD`, the range [day, day + 1)); a partition is made when a row first needs it and dropped
 * whole once its day has passed.
 */
export interface RequestLogInsert {
  at: Date;
  /** YYYY-MM-DD: the day after which the row is gone. */
  expiresOn: string;
  latencyUs: number;
  status: number;
  live: boolean;
  /** organizations.seq of the organization. */
  organization: number;
  requestId: string;
  route: string;
  keyId: string | null;
  model: string | null;
  generationId: string | null;
  errorCode: string | null;
  payload: string | null;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const PARTITION = /^request_log_e(\d{4})(\d{2})(\d{2})$/;

export function partitionName(day: string): string {
  if (!DAY.test(day)) throw new Error(`not a day: ${day}`);
  return `request_log_e${day.replaceAll('-', '')}`;
}

function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

// Any constant works; it only has to be the same in every mmgen process.
const PARTITION_LOCK = 7_262_060;

/** Makes the partitions of these expiry days that do not exist yet (nodes making the same one serialize on a lock). */
export async function createRequestLogPartitions(db: Db, days: readonly string[]): Promise<void> {
  if (days.length === 0) return;
  await db.tx(async (q) => {
    await advisoryXactLock(q, PARTITION_LOCK);
    const existing = new Set((await listRequestLogPartitions(q)).map((p) => p.day));
    for (const day of days) {
      if (existing.has(day)) continue;
      await q.query(`CREATE TABLE IF NOT EXISTS ${partitionName(day)} PARTITION OF request_log FOR VALUES FROM ('${day}') TO ('${nextDay(day)}')`);
    }
  });
}

/** The partitions there are, by expiry day. */
export async function listRequestLogPartitions(q: Queryable): Promise<Array<{ name: string; day: string }>> {
  const r = await q.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'request_log'::regclass`,
  );
  const out: Array<{ name: string; day: string }> = [];
  for (const { name } of r.rows) {
    const m = PARTITION.exec(name);
    if (m) out.push({ name, day: `${m[1]}-${m[2]}-${m[3]}` });
  }
  return out.sort((a, b) => a.day.localeCompare(b.day));
}

/** Drops every partition whose expiry day is before `today`; answers the days dropped. */
export async function dropRequestLogPartitionsBefore(db: Db, today: string): Promise<string[]> {
  return db.tx(async (q) => {
    await advisoryXactLock(q, PARTITION_LOCK);
    const dropped: string[] = [];
    for (const p of await listRequestLogPartitions(q)) {
      if (p.day >= today) continue;
      await q.query(`DROP TABLE IF EXISTS ${partitionName(p.day)}`);
      dropped.push(p.day);
    }
    return dropped;
  });
}

/** The captured payloads' blob keys of one expiry day's partition (deleted from the blob store before it is dropped). */
export async function selectPartitionPayloads(q: Queryable, day: string): Promise<string[]> {
  const r = await q.query<{ payload: string }>(`SELECT payload FROM ${partitionName(day)} WHERE payload IS NOT NULL`);
  return r.rows.map((x) => x.payload);
}

/**
 * One statement for the whole batch, its rows one JSON parameter: a row costs the writing node one object that
 * `JSON.stringify` serializes natively, where thirteen arrays of escaped strings made a dozen small strings a row
 * (bench/README.md, "Issue 30, the seventh sitting").
 */
export async function insertRequestLogRows(q: Queryable, rows: readonly RequestLogInsert[]): Promise<void> {
  if (rows.length === 0) return;
  await q.query(
    `INSERT INTO request_log (at, expires_on, latency_us, status, live, organization, request_id, route, key_id, model, generation_id, error_code, payload)
     SELECT "at", "expiresOn", "latencyUs", "status", "live", "organization", "requestId", "route", "keyId", "model", "generationId", "errorCode", "payload"
       FROM json_to_recordset($1::json) AS r("at" timestamptz, "expiresOn" date, "latencyUs" int, "status" smallint, "live" boolean,
         "organization" bigint, "requestId" text, "route" text, "keyId" text, "model" text, "generationId" text, "errorCode" text, "payload" text)`,
    [JSON.stringify(rows)],
  );
}

export interface RequestLogFilter {
  /** The organization's id (its generations' cost is read by it). */
  organizationId: string;
  /** organizations.seq */
  organization: number;
  live: boolean;
  requestId?: string | undefined;
  /** An exact status, or a class: [400, 499]. */
  status?: { from: number; to: number } | undefined;
  /** `POST /v1/images`, or the path alone (any method). */
  route?: string | undefined;
  model?: string | undefined;
  keyId?: string | undefined;
  generationId?: string | undefined;
  /** Rows at or after this time (the retention's horizon already folded in). */
  since: Date;
  until?: Date | undefined;
  /** Rows strictly before this one, newest first. */
  before?: { at: Date; requestId: string } | undefined;
}

export interface RequestLogRow {
  at: Date;
  request_id: string;
  route: string;
  status: number;
  error_code: string | null;
  key_id: string | null;
  model: string | null;
  generation_id: string | null;
  latency_us: number;
  payload: string | null;
  /** The generation's charge, once it has ended; null for a request that made none. */
  cost_credits: number | null;
}

/**
 * The organization's rows matching the filter, newest first. The statement names only the filters given, so each
 * combination gets a plan that uses the request id index when there is one to find.
 */
export async function selectRequestLog(q: Queryable, f: RequestLogFilter, limit: number): Promise<RequestLogRow[]> {
  const params: unknown[] = [f.organization, f.live, f.since.toISOString()];
  const where = ['r.organization = $1', 'r.live = $2', 'r.at >= $3'];
  const add = (sql: (n: string) => string, ...values: unknown[]) => {
    const names = values.map((v) => {
      params.push(v);
      return `$${params.length}`;
    });
    where.push(sql(names.join(',')));
  };
  if (f.requestId !== undefined) add((n) => `r.request_id = ${n}`, f.requestId);
  if (f.status !== undefined) {
    if (f.status.from === f.status.to) add((n) => `r.status = ${n}`, f.status.from);
    else {
      add((n) => `r.status >= ${n}`, f.status.from);
      add((n) => `r.status <= ${n}`, f.status.to);
    }
  }
  if (f.route !== undefined) {
    if (f.route.includes(' ')) add((n) => `r.route = ${n}`, f.route);
    else add((n) => `substr(r.route, strpos(r.route, ' ') + 1) = ${n}`, f.route);
  }
  if (f.model !== undefined) add((n) => `r.model = ${n}`, f.model);
  if (f.keyId !== undefined) add((n) => `r.key_id = ${n}`, f.keyId);
  if (f.generationId !== undefined) add((n) => `r.generation_id = ${n}`, f.generationId);
  if (f.until !== undefined) add((n) => `r.at < ${n}`, f.until.toISOString());
  if (f.before !== undefined) {
    params.push(f.before.at.toISOString(), f.before.requestId);
    const a = `$${params.length - 1}`;
    const b = `$${params.length}`;
    // The first term lets the (organization_id, at) index bound the scan; the second breaks ties.
    where.push(`r.at <= ${a}::timestamptz AND (r.at, r.request_id) < (${a}::timestamptz, ${b}::text)`);
  }
  params.push(f.organizationId, limit);
  const orgId = `$${params.length - 1}`;
  const r = await q.query<RequestLogRow>(
    `SELECT r.at, r.request_id, r.route, r.status, r.error_code, r.key_id, r.model, r.generation_id, r.latency_us, r.payload,
            CASE WHEN g.status IN ('succeeded', 'failed', 'canceled') THEN g.charged_credits END AS cost_credits
       FROM request_log r LEFT JOIN generations g ON g.id = r.generation_id AND g.organization_id = ${orgId}
      WHERE ${where.join(' AND ')}
      ORDER BY r.at DESC, r.request_id DESC
      LIMIT $${params.length}`,
    params,
  );
  return r.rows;
}

/** Where a row of this organization and mode stands in the list (a cursor); null when it has none. */
export async function selectRequestLogPosition(q: Queryable, organization: number, live: boolean, requestId: string): Promise<{ at: Date } | null> {
  const r = await q.query<{ at: Date }>(
    'SELECT at FROM request_log WHERE request_id = $1 AND organization = $2 AND live = $3 LIMIT 1',
    [requestId, organization, live],
  );
  return r.rows[0] ?? null;
}

/** Removes an organization's rows written before `before` (retention shortened: rows already written under the longer one). */
export async function deleteRequestLogBefore(q: Queryable, organization: number, before: Date): Promise<number> {
  const r = await q.query('DELETE FROM request_log WHERE organization = $1 AND at < $2', [organization, before.toISOString()]);
  return r.rowCount;
}

/** The request log's bytes on disk, partitions and their indexes (bench, operators). */
export async function requestLogBytes(q: Queryable): Promise<number> {
  const r = await q.query<{ bytes: string | number | null }>(
    `SELECT COALESCE(sum(pg_total_relation_size(i.inhrelid)), 0)::bigint AS bytes FROM pg_inherits i WHERE i.inhparent = 'request_log'::regclass`,
  );
  return Number(r.rows[0]?.bytes ?? 0);
}
