import { Type, type Static } from '@sinclair/typebox';
import { DAY_MS, type Clock } from '../clock.js';
import type { Principal } from '../domain/access.js';
import { ApiError } from '../errors.js';
import type { Queryable } from '../store/db.js';
import { selectRequestLog, selectRequestLogPosition, type RequestLogFilter, type RequestLogRow } from '../store/request-log.js';
import type { DataPolicyCache } from './policies.js';

export interface RequestSearch {
  request_id?: string | undefined;
  status?: string | undefined;
  route?: string | undefined;
  model?: string | undefined;
  key_id?: string | undefined;
  generation_id?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

export interface RequestLogReadPorts {
  db: Queryable;
  clock: Clock;
  dataPolicies: DataPolicyCache;
}

/** One row as the API shows it: the schema GET /v1/requests serves, and the type toRequestView builds, are one. */
export const RequestRecord = Type.Object(
  {
    id: Type.String({ description: 'The request id (X-Request-Id of the response).' }),
    object: Type.Literal('request'),
    created_at: Type.String({ format: 'date-time' }),
    route: Type.String({ description: 'Method and path template, e.g. `POST /v1/images`.' }),
    status: Type.Integer({ description: 'The HTTP status answered.' }),
    error_code: Type.Union([Type.String({ description: "The error envelope's code, for a refused or failed request." }), Type.Null()]),
    key_id: Type.Union([Type.String({ description: 'The API key that called.' }), Type.Null()]),
    model: Type.Union([Type.String({ description: 'The catalog id of the model the request named.' }), Type.Null()]),
    generation_id: Type.Union([Type.String({ description: 'The generation the request made or read.' }), Type.Null()]),
    latency_ms: Type.Number({ description: 'Time from the request received to the response sent, in milliseconds.' }),
    cost_credits: Type.Union([Type.Integer({ description: "The generation's charge once it ended (1 credit = US$0.001); null without one." }), Type.Null()]),
    payload_captured: Type.Boolean({ description: "The request's and response's bodies were kept (data policy `capture: full`)." }),
  },
  { title: 'RequestRecord' },
);
export type RequestView = Static<typeof RequestRecord>;

export function toRequestView(r: RequestLogRow): RequestView {
  return {
    id: r.request_id,
    object: 'request',
    created_at: r.at.toISOString(),
    route: r.route,
    status: r.status,
    error_code: r.error_code,
    key_id: r.key_id,
    model: r.model,
    generation_id: r.generation_id,
    latency_ms: Math.round(r.latency_us / 100) / 10,
    cost_credits: r.cost_credits === null ? null : Number(r.cost_credits),
    payload_captured: r.payload !== null,
  };
}

/** `404`, `4xx`: the statuses a `status` filter names. */
function statusRange(s: string): { from: number; to: number } {
  if (/^[1-5]xx$/.test(s)) {
    const base = Number(s[0]) * 100;
    return { from: base, to: base + 99 };
  }
  return { from: Number(s), to: Number(s) };
}

function time(value: string, param: string): Date {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new ApiError('parameter_invalid', `${param} must be an RFC 3339 date-time.`, param);
  return d;
}

/** The filter of a search by this principal: its organization and mode, within its organization's retention. */
async function filterOf(ports: RequestLogReadPorts, principal: Principal, s: RequestSearch): Promise<RequestLogFilter> {
  const policy = await ports.dataPolicies.get(principal.organizationId);
  // Rows written under a longer retention than the one chosen now are not shown (nor kept: see setDataPolicy).
  const horizon = new Date(ports.clock.now() - policy.request_log_days * DAY_MS);
  const since = s.since === undefined ? horizon : new Date(Math.max(horizon.getTime(), time(s.since, 'since').getTime()));
  return {
    organizationId: principal.organizationId,
    organization: policy.organization_seq,
    live: principal.mode === 'live',
    requestId: s.request_id,
    status: s.status === undefined ? undefined : statusRange(s.status),
    route: s.route,
    model: s.model,
    keyId: s.key_id,
    generationId: s.generation_id,
    since,
    until: s.until === undefined ? undefined : time(s.until, 'until'),
  };
}

/** A page of the organization's requests, newest first; `startingAfter` is the last request id of the previous page. */
export async function listRequests(
  ports: RequestLogReadPorts,
  principal: Principal,
  s: RequestSearch & { limit: number; startingAfter?: string | undefined },
): Promise<{ rows: RequestLogRow[]; hasMore: boolean }> {
  const filter = await filterOf(ports, principal, s);
  if (s.startingAfter !== undefined) {
    const at = await selectRequestLogPosition(ports.db, filter.organization, principal.mode === 'live', s.startingAfter);
    if (!at) throw new ApiError('resource_not_found', `No such request: '${s.startingAfter}'`, 'starting_after');
    filter.before = { at: at.at, requestId: s.startingAfter };
  }
  const rows = await selectRequestLog(ports.db, filter, s.limit + 1);
  return { rows: rows.slice(0, s.limit), hasMore: rows.length > s.limit };
}

export const EXPORT_PAGE = 1_000;

/**
 * Every matching row, newest first, a page at a time: memory holds one page whatever the total, and the caller
 * writes each page before the next is read (the response's backpressure paces the reads).
 */
export async function* exportRequests(ports: RequestLogReadPorts, principal: Principal, s: RequestSearch): AsyncGenerator<RequestLogRow[]> {
  const filter = await filterOf(ports, principal, s);
  for (;;) {
    const rows = await selectRequestLog(ports.db, filter, EXPORT_PAGE);
    if (rows.length > 0) yield rows;
    if (rows.length < EXPORT_PAGE) return;
    const last = rows[rows.length - 1]!;
    filter.before = { at: last.at, requestId: last.request_id };
  }
}
