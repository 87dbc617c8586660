import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, describeEachBackend, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';
import { metric, scrape, type Sample } from '../helpers/prometheus.js';

type Api = ReturnType<typeof client>;

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function firstModel(api: Api, key: string, modality: string): Promise<string> {
  return (await api('GET', `/v1/models?modality=${modality}`, { key })).body.data[0].slug as string;
}

describeOnBackend('/metrics', 'pglite', (backend) => {
  let s: TestServer;
  let api: Api;
  let org: TestOrg;
  let receiver: Server;
  let receiverUrl: string;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(req.url?.startsWith('/fail') ? 500 : 200);
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    s = await startTestServer(backend, {
      MMGEN_SIMULATE_PROVIDERS: '1',
      MMGEN_ALLOW_PRIVATE_NETWORK: '1',
      MMGEN_WEBHOOK_RETRY_DELAYS: '1,1,1,1,1',
      MMGEN_WORKER_POLL_MS: '50',
    });
    api = client(s.url);
    org = await s.createOrg({ credits: 1_000_000 });
  });
  afterAll(async () => {
    await s?.close();
    receiver?.closeAllConnections();
    await new Promise((r) => receiver?.close(r));
  });

  it('counts the request log rows written, and every call of the organization is in its request log', async () => {
    const before = metric(await scrape(s.url), 'mmgen_request_log_rows_total', { outcome: 'written' }) ?? 0;
    const res = await api('GET', '/v1/wallet', { key: org.live });
    await s.runtime.deps.requestLog.flush();
    expect(metric(await scrape(s.url), 'mmgen_request_log_rows_total', { outcome: 'written' })).toBeGreaterThan(before);
    const rows = (await api('GET', `/v1/requests?request_id=${res.headers.get('x-request-id')}`, { key: org.live })).body.data;
    expect(rows).toMatchObject([{ route: 'GET /v1/wallet', status: 200 }]);
  });

  it('is scraped without a key, and its counters move with the work done', async () => {
    const before = await scrape(s.url);
    for (const name of ['mmgen_queue_depth', 'mmgen_queue_oldest_age_seconds', 'mmgen_workers_live', 'process_cpu_user_seconds_total']) {
      expect(metric(before, name), name).toBeDefined();
    }
    const m = (samples: Sample[], name: string, labels: Record<string, string> = {}) => metric(samples, name, labels) ?? 0;

    // Webhooks in test mode (http to loopback is allowed there): one receiver answers 200, one 500.
    for (const path of ['/ok', '/fail']) {
      const res = await api('POST', '/v1/webhooks', { key: org.test, body: { url: `${receiverUrl}${path}`, events: ['generation.completed'] } });
      expect(res.status).toBe(201);
    }
    const image = await firstModel(api, org.live, 'image');
    const music = await firstModel(api, org.live, 'music');
    const ok = await api('POST', '/v1/images', { key: org.live, body: { model: image, prompt: 'metrics', width: 256, height: 256 } });
    expect(ok.status).toBe(200);
    const failed = await api('POST', '/v1/images', { key: org.live, body: { model: image, prompt: 'metrics', width: 256, height: 256, simulate: { outcome: 'failure' } } });
    expect(failed.status).toBe(502);
    const queued = await api('POST', '/v1/music', { key: org.live, body: { model: music, prompt: 'metrics', duration_s: 5 } });
    expect(queued.status).toBe(202);
    const testImage = await api('POST', '/v1/images', { key: org.test, body: { model: image, prompt: 'for the webhooks', width: 256, height: 256 } });
    expect(testImage.status).toBe(200);
    await until('the music', async () => (await api('GET', `/v1/generations/${queued.body.id}`, { key: org.live })).body.status === 'succeeded');
    const after = await until('the webhook attempts', async () => {
      const x = await scrape(s.url);
      return m(x, 'mmgen_webhook_attempts_total', { outcome: 'success' }) >= m(before, 'mmgen_webhook_attempts_total', { outcome: 'success' }) + 1 &&
        m(x, 'mmgen_webhook_attempts_total', { outcome: 'http_error' }) >= m(before, 'mmgen_webhook_attempts_total', { outcome: 'http_error' }) + 1
        ? x
        : null;
    });

    const moved = (name: string, labels: Record<string, string> = {}) => m(after, name, labels) - m(before, name, labels);
    expect(moved('mmgen_generations_total', { modality: 'image', status: 'succeeded' })).toBe(2);
    expect(moved('mmgen_generations_total', { modality: 'image', status: 'failed' })).toBe(1);
    expect(moved('mmgen_generations_total', { modality: 'music', status: 'succeeded' })).toBe(1);
    expect(moved('mmgen_generations_accepted_total', { modality: 'image', cache_hit: 'false' })).toBe(3);
    // Live credits: what the successes were charged, and the failed image's whole reservation refunded.
    const money = await s.db.query<{ charged: number; refunded: number }>(
      "SELECT sum(charged_credits)::int AS charged, sum(refunded_credits)::int AS refunded FROM generations WHERE organization_id = $1 AND mode = 'live'",
      [org.id],
    );
    expect(moved('mmgen_credits_charged_total')).toBe(money.rows[0]!.charged);
    expect(moved('mmgen_credits_refunded_total')).toBe(money.rows[0]!.refunded);
    expect(money.rows[0]!.refunded).toBeGreaterThan(0);
    expect(moved('mmgen_http_request_duration_seconds_count', { route: '/v1/images', method: 'POST', status_code: '200' })).toBe(2);
    expect(moved('mmgen_http_request_duration_seconds_count', { route: '/v1/images', method: 'POST', status_code: '502' })).toBe(1);
    expect(moved('mmgen_http_request_duration_seconds_count', { route: '/v1/music', method: 'POST', status_code: '202' })).toBe(1);
    expect(m(after, 'mmgen_workers_live')).toBeGreaterThanOrEqual(1);
  });

  it('MMGEN_METRICS_TOKEN guards it', async () => {
    const guarded = await startTestServer(backend, { MMGEN_METRICS_TOKEN: 'metrics-secret-123' }, { sameDbAs: s, worker: false });
    try {
      const g = client(guarded.url);
      const none = await g('GET', '/metrics');
      expect(none.status).toBe(401);
      expect(none.body.error).toMatchObject({ code: 'missing_authorization', type: 'authentication_error' });
      const wrong = await g('GET', '/metrics', { headers: { authorization: 'Bearer metrics-secret-124' } });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.code).toBe('invalid_authorization');
      const right = await fetch(`${guarded.url}/metrics`, { headers: { authorization: 'Bearer metrics-secret-123' } });
      expect(right.status).toBe(200);
      expect(right.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      // Read to the end: undici 7 (Node 20's fetch goes through the package's dispatcher once it is loaded) throws an
      // uncaught assert(!this.paused) when a socket ends under a body nobody read (nodejs/undici#5360, fixed in 8).
      expect(await right.text()).toMatch(/^# HELP /m);
    } finally {
      await guarded.close();
    }
  });
});

// Readiness asks each backend its own way (a PGlite handle, a PostgreSQL pool): both run.
describeEachBackend('/readyz and /healthz', (backend) => {
  let s: TestServer;
  let api: Api;

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1' });
    api = client(s.url);
  });
  afterAll(async () => s?.close());

  it('ready: database, blob store, workers and queue are ok', async () => {
    const res = await api('GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'ok',
      checks: { database: 'ok', blob_store: 'ok', workers: 'ok', queue: 'ok' },
      queue: { depth: 0, live_workers: 1 },
    });
    expect(res.body.checks.redis).toBeUndefined();
    expect((await api('GET', '/healthz')).body).toEqual({ status: 'ok' });
  });

  if (backend === 'postgres') {
    it('a node that runs a worker serves only once its heartbeat is written, so it is never its own "workers: none"', async () => {
      const c = new pg.Client({ connectionString: s.dbUrl });
      await c.connect();
      let second: TestServer | undefined;
      try {
        // Holding the heartbeat table keeps the new node's first beat from being written.
        await c.query('BEGIN');
        await c.query('LOCK TABLE worker_heartbeats IN EXCLUSIVE MODE');
        let started = false;
        const starting = startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1' }, { sameDbAs: s }).then((x) => {
          started = true;
          return x;
        });
        await new Promise((r) => setTimeout(r, 500));
        expect(started).toBe(false);
        await c.query('COMMIT');
        second = await starting;
        const res = await client(second.url)('GET', '/readyz');
        expect(res.body).toMatchObject({ status: 'ok', checks: { workers: 'ok' }, queue: { live_workers: 2 } });
      } finally {
        await c.query('ROLLBACK').catch(() => {});
        await c.end();
        await second?.close();
      }
    });
  }

  it('a queue nobody works: degraded while nothing waits, unavailable once its oldest job is older than MMGEN_READY_MAX_QUEUE_AGE_S', async () => {
    // An installation with no worker at all (an API node alone on its database).
    const alone = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_READY_MAX_QUEUE_AGE_S: '30' }, { worker: false });
    try {
      const a = client(alone.url);
      const idle = await a('GET', '/readyz');
      expect(idle.status).toBe(200);
      expect(idle.body).toMatchObject({ status: 'degraded', checks: { workers: 'none', queue: 'ok' }, queue: { live_workers: 0 } });

      const org = await alone.createOrg({ credits: 100_000 });
      const music = await firstModel(a, org.live, 'music');
      const created = await a('POST', '/v1/music', { key: org.live, body: { model: music, prompt: 'stuck', duration_s: 5 } });
      expect(created.status).toBe(202);
      const waiting = await a('GET', '/readyz');
      expect(waiting.status).toBe(200);
      expect(waiting.body.checks.workers).toBe('none: jobs are waiting and no worker runs');
      expect(waiting.body.queue.depth).toBe(1);

      // Rather than wait half a minute, let the job have waited a minute.
      await alone.db.query("UPDATE jobs SET run_at = now() - interval '1 minute' WHERE generation_id = $1", [created.body.id]);
      const stuck = await a('GET', '/readyz');
      expect(stuck.status).toBe(503);
      expect(stuck.body.status).toBe('unavailable');
      expect(stuck.body.checks.queue).toMatch(/^stalled: the oldest job has waited (59|60|61) s$/);
      expect(stuck.body.queue.oldest_age_s).toBeGreaterThanOrEqual(59);

      expect((await a('POST', `/v1/generations/${created.body.id}/cancel`, { key: org.live })).status).toBe(200);
      const after = await a('GET', '/readyz');
      expect(after.status).toBe(200);
      expect(after.body.checks.queue).toBe('ok');
    } finally {
      await alone.close();
    }
  });

  it('Redis that does not answer is reported, but the node stays ready (rate limits count per node meanwhile)', async () => {
    const r = await startTestServer(backend, { REDIS_URL: 'redis://127.0.0.1:1' }, { sameDbAs: s, worker: false });
    try {
      const res = await client(r.url)('GET', '/readyz');
      expect(res.body.checks.redis).toBe('unavailable');
      expect(['degraded']).toContain(res.body.status);
      expect(res.status).toBe(200);
    } finally {
      await r.close();
    }
  });

  it('reachable Redis is ok', { tags: ['redis'] }, async () => {
    const r = await startTestServer(backend, { REDIS_URL: process.env.TEST_REDIS_URL! }, { sameDbAs: s, worker: false });
    try {
      expect((await client(r.url)('GET', '/readyz')).body.checks.redis).toBe('ok');
    } finally {
      await r.close();
    }
  });
});

describeOnBackend('draining', 'pglite', (backend) => {
  let s: TestServer;
  let org: TestOrg;
  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1' });
    org = await s.createOrg({ credits: 1000 });
  });
  afterAll(async () => s?.close());

  it('a draining node refuses new work with 503 service_unavailable, stays live, is not ready, and ends event streams', async () => {
    const api = client(s.url);
    const music = await firstModel(api, org.live, 'music');
    const created = await api('POST', '/v1/music', { key: org.live, body: { model: music, prompt: 'stream', duration_s: 5, simulate: { delay_ms: 60_000 } } });
    const stream = await fetch(`${s.url}/v1/generations/${created.body.id}/events`, { headers: { authorization: `Bearer ${org.live}` } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    await reader.read(); // the current state

    s.runtime.deps.lifecycle.beginDrain();
    // The stream ends on its own.
    let ended = false;
    for (let i = 0; i < 50 && !ended; i++) ended = (await reader.read()).done;
    expect(ended).toBe(true);

    const refused = await api('GET', '/v1/wallet', { key: org.live });
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({ type: 'api_error', code: 'service_unavailable' });
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('connection')).toBe('close');
    expect(refused.headers.get('x-request-id')).toBe(refused.body.error.request_id);
    expect((await api('GET', '/healthz')).status).toBe(200);
    const ready = await api('GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.status).toBe('draining');
    const metrics = await fetch(`${s.url}/metrics`);
    expect(metrics.status).toBe(200);
    // Read to the end before the draining node closes the connection (see the /metrics test above).
    expect(await metrics.text()).toMatch(/^# HELP /m);
  });
});
