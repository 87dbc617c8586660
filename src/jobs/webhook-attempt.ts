import { performance } from 'node:perf_hooks';
import { deliveryHeaders, eventBody } from '../domain/webhooks/events.js';
import { FetchFailed, FetchRefused, safeFetch, type GuardedPool } from '../files/safe-fetch.js';
import type { AttemptOutcome, ClaimedDelivery } from '../store/deliveries.js';

/** Receivers are told to answer at once; whatever they write back beyond this is not read. */
const RESPONSE_BYTES = 64 * 1024;
/** Kept in an attempt's error text, so one odd receiver cannot bloat the table. */
const ERROR_CHARS = 500;

/** How an attempt ended, as the metrics count it. */
export type AttemptKind = 'success' | 'http_error' | 'timeout' | 'network_error' | 'refused';

export interface AttemptSettings {
  timeoutMs: number;
  allowPrivateNetwork: boolean;
  /** Keep-alive connections under the SSRF guard; without it each attempt connects anew. */
  pool: GuardedPool | null;
}

/** One attempt: a signed POST, no redirects, and a 2xx within the timeout or it failed. */
export async function attemptDelivery(d: ClaimedDelivery, s: AttemptSettings): Promise<{ kind: AttemptKind; outcome: AttemptOutcome }> {
  const body = eventBody({ id: d.event_id, type: d.event_type, created_at: d.event_created_at, data: d.event_data });
  const startedAt = new Date();
  const t0 = performance.now();
  let responseStatus: number | null = null;
  let error: string | null = null;
  let kind: AttemptKind = 'success';
  try {
    const res = await safeFetch(d.url, {
      method: 'POST',
      body,
      headers: deliveryHeaders(d.secret, body, d.event_type, d.id),
      allowPrivateNetwork: s.allowPrivateNetwork,
      allowHttp: d.mode === 'test',
      timeoutMs: s.timeoutMs,
      maxBytes: RESPONSE_BYTES,
      overflow: 'truncate',
      ...(s.pool ? { pool: s.pool } : {}),
    });
    responseStatus = res.status;
    if (res.status < 200 || res.status >= 300) {
      error = `the endpoint answered HTTP ${res.status}`;
      kind = 'http_error';
    }
  } catch (err) {
    if (err instanceof FetchRefused) {
      if (err.detail.status !== undefined) responseStatus = err.detail.status;
      error = err.message;
      kind = err.reason === 'redirect' ? 'http_error' : 'refused';
    } else if (err instanceof FetchFailed) {
      error = err.message;
      kind = err.reason === 'timeout' ? 'timeout' : 'network_error';
    } else {
      throw err;
    }
  }
  return {
    kind,
    outcome: {
      id: d.id,
      ok: error === null,
      responseStatus,
      error: error === null ? null : error.slice(0, ERROR_CHARS),
      startedAt,
      durationMs: Math.round(performance.now() - t0),
    },
  };
}
