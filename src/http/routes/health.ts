import { timingSafeEqual } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { queueStats } from '../../store/queue-stats.js';
import { ping } from '../../store/db.js';
import { defineRoute } from '../route.js';

export type ReadinessPorts = Pick<AppDeps, 'blobs' | 'config' | 'db' | 'lifecycle' | 'rateLimiter'>;

export const healthz = defineRoute({
  method: 'GET',
  path: '/healthz',
  operationId: 'healthz',
  summary: 'Liveness: the process answers',
  description: 'Always 200 while the process runs, draining included: restart a node only when this stops answering.',
  tag: 'Operations',
  auth: null,
  schema: { response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
  handler: async () => ({ status: 200, body: { status: 'ok' } }),
});

/** A dependency that has not answered within this is counted as unavailable. */
const CHECK_TIMEOUT_MS = 2_000;

function within<T>(p: Promise<T>, ms = CHECK_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), ms);
    }),
  ]);
}

const ReadyBody = Type.Object({
  status: Type.String({ enum: ['ok', 'degraded', 'unavailable', 'draining'] }),
  checks: Type.Record(Type.String(), Type.String(), {
    description: 'database, blob_store, redis (when configured), workers, queue: "ok", or what is wrong.',
  }),
  queue: Type.Object({
    depth: Type.Integer({ description: 'Jobs due and waiting for a worker.' }),
    running: Type.Integer({ description: 'Jobs held by a worker or a synchronous request.' }),
    oldest_age_s: Type.Number({ description: 'Seconds the longest-waiting job has waited.' }),
    live_workers: Type.Integer({ description: 'Worker processes that beat within the last 30 seconds.' }),
  }),
});

/**
 * Readiness. 503 when this node cannot serve (database or blob store down),
 * when the shared queue is stuck (its oldest due job has waited longer than
 * MMGEN_READY_MAX_QUEUE_AGE_S, e.g. no worker runs), or while it drains.
 * Redis trouble is `degraded`, not a failure: rate limits then count per
 * node until it is back, so taking every node out of rotation would be worse.
 */
export async function readiness(deps: ReadinessPorts): Promise<{ ok: boolean; body: Record<string, unknown> }> {
  const checks: Record<string, string> = {};
  const [database, blobs, redis] = await Promise.all([
    within(ping(deps.db)).then(() => 'ok', () => 'unavailable'),
    within(deps.blobs.ping()).then(() => 'ok', () => 'unavailable'),
    within(deps.rateLimiter.ping()).catch(() => 'unavailable' as const),
  ]);
  checks.database = database;
  checks.blob_store = blobs;
  if (redis !== null) checks.redis = redis === 'ok' ? 'ok' : 'unavailable';
  let queue = { depth: 0, running: 0, oldest_age_s: 0, live_workers: 0 };
  if (database === 'ok') {
    try {
      const s = await within(queueStats(deps.db));
      queue = { depth: s.waiting, running: s.running, oldest_age_s: Math.round(s.oldestWaitingS * 10) / 10, live_workers: s.liveWorkers };
      checks.queue = s.oldestWaitingS > deps.config.readyMaxQueueAgeS ? `stalled: the oldest job has waited ${Math.round(s.oldestWaitingS)} s` : 'ok';
      checks.workers = s.liveWorkers > 0 ? 'ok' : s.waiting > 0 ? 'none: jobs are waiting and no worker runs' : 'none';
    } catch {
      checks.queue = 'unavailable';
    }
  }
  const failed = database !== 'ok' || blobs !== 'ok' || (checks.queue !== undefined && checks.queue !== 'ok');
  const degraded = checks.redis === 'unavailable' || (checks.workers !== undefined && checks.workers !== 'ok');
  const status = deps.lifecycle.draining ? 'draining' : failed ? 'unavailable' : degraded ? 'degraded' : 'ok';
  return { ok: !failed && !deps.lifecycle.draining, body: { status, checks, queue } };
}

export const readyz = defineRoute({
  method: 'GET',
  path: '/readyz',
  operationId: 'readyz',
  summary: 'Readiness: database, blob store, Redis, workers and the queue',
  description:
    '200 when this node can serve (`status` ok, or degraded when Redis is unreachable or no worker runs while nothing waits); ' +
    '503 when the database or blob store fails, the oldest due job has waited longer than MMGEN_READY_MAX_QUEUE_AGE_S, or the node is draining.',
  tag: 'Operations',
  auth: null,
  schema: { response: { 200: ReadyBody, 503: ReadyBody } },
  handler: async ({ deps }) => {
    const r = await readiness(deps);
    return { status: r.ok ? 200 : 503, body: r.body };
  },
});

const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;

export const metrics = defineRoute({
  method: 'GET',
  path: '/metrics',
  operationId: 'metrics',
  summary: 'Prometheus metrics of this node',
  description:
    'Text exposition format. Counters and latency histograms are per node (sum them); queue gauges are installation-wide (take max). ' +
    'When MMGEN_METRICS_TOKEN is set, send it as `Authorization: Bearer <token>`.',
  tag: 'Operations',
  auth: null,
  errors: [401],
  schema: { response: { 200: Type.String({ description: 'text/plain; version=0.0.4', 'x-raw': true } as never) } },
  handler: async ({ deps, request, reply }) => {
    const token = deps.config.metricsToken;
    if (token) {
      const header = request.headers.authorization;
      if (!header) throw new ApiError('missing_authorization', 'This node guards /metrics: send Authorization: Bearer <MMGEN_METRICS_TOKEN>.');
      const given = Buffer.from(BEARER.exec(header)?.[1] ?? '');
      const expected = Buffer.from(token);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new ApiError('invalid_authorization', 'The metrics token is not valid.');
      }
    }
    const text = await deps.metrics.text();
    void reply.status(200).header('Content-Type', deps.metrics.contentType).header('Cache-Control', 'no-store');
    void reply.send(text);
    return 'sent';
  },
});
