import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mmgen, serve, type ServeProcess } from '../helpers/processes.js';
import { client, describeOnBackend, freshDb, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

type Api = ReturnType<typeof client>;

function rateHeaders(res: { headers: Headers }) {
  const h = (name: string) => res.headers.get(name);
  return { limit: h('ratelimit-limit'), remaining: h('ratelimit-remaining'), reset: h('ratelimit-reset') };
}

function expectTooMany(res: { status: number; headers: Headers; body: any }) {
  expect(res.status).toBe(429);
  expect(res.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded', request_id: res.headers.get('x-request-id') });
  const retry = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retry) && retry >= 1 && retry <= 60, `Retry-After ${res.headers.get('retry-after')}`).toBe(true);
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
}

describeOnBackend('rate limits per API key', 'postgres', (backend) => {
  let s: TestServer;
  let api: Api;
  let org: TestOrg;

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_RATE_LIMIT_TEAM: '5', MMGEN_RATE_LIMIT_FREE: '2' });
    api = client(s.url);
    org = await s.createOrg({ plan: 'team', credits: 1_000_000 });
  });
  afterAll(async () => s?.close());

  it('the 6th request in the minute on a limit of 5 gets 429 with Retry-After; the RateLimit-* headers count down', async () => {
    const seen: Array<ReturnType<typeof rateHeaders>> = [];
    for (let i = 0; i < 5; i++) {
      const res = await api('GET', '/v1/organization', { key: org.live });
      expect(res.status).toBe(200);
      seen.push(rateHeaders(res));
    }
    expect(seen.map((h) => h.limit)).toEqual(['5', '5', '5', '5', '5']);
    expect(seen.map((h) => h.remaining)).toEqual(['4', '3', '2', '1', '0']);
    for (const h of seen) expect(Number(h.reset)).toBeGreaterThanOrEqual(1);
    for (const h of seen) expect(Number(h.reset)).toBeLessThanOrEqual(60);

    const over = await api('GET', '/v1/organization', { key: org.live });
    expectTooMany(over);
    expect(rateHeaders(over).limit).toBe('5');
    expect(Number(over.headers.get('retry-after'))).toBe(Number(rateHeaders(over).reset));
    // Every kind of request counts against the one budget, and stays refused.
    expectTooMany(await api('POST', '/v1/images', { key: org.live, body: { model: 'x', prompt: 'y' } }));
  });

  it('is per key: another key of the same organization has its own budget', async () => {
    const res = await api('GET', '/v1/organization', { key: org.test });
    expect(res.status).toBe(200);
    expect(rateHeaders(res)).toMatchObject({ limit: '5', remaining: '4' });
  });

  it('follows the plan: a free organization gets its own limit', async () => {
    const free = await s.createOrg({ plan: 'free' });
    const a = await api('GET', '/v1/wallet', { key: free.live });
    const b = await api('GET', '/v1/wallet', { key: free.live });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect([rateHeaders(a), rateHeaders(b)].map((h) => [h.limit, h.remaining])).toEqual([['2', '1'], ['2', '0']]);
    expectTooMany(await api('GET', '/v1/wallet', { key: free.live }));
  });

  it('comes after authentication and permissions (their errors carry no RateLimit headers), before validation', async () => {
    const fresh = await s.createOrg({ plan: 'team' });
    const unauth = await api('GET', '/v1/organization', { key: 'sk_live_nope00000000000000000000000000' });
    expect(unauth.status).toBe(401);
    expect(rateHeaders(unauth).limit).toBeNull();
    const viewer = await api('POST', '/v1/api-keys', { key: fresh.live, body: { name: 'viewer', role: 'viewer' } });
    expect(viewer.status).toBe(201);
    for (let i = 0; i < 6; i++) {
      const denied = await api('POST', '/v1/images', { key: viewer.body.key, body: {} });
      expect(denied.status).toBe(403);
      expect(rateHeaders(denied).limit).toBeNull();
    }
    expect(rateHeaders(await api('GET', '/v1/organization', { key: viewer.body.key }))).toMatchObject({ limit: '5', remaining: '4' });
    // A validation error is counted (the limit comes first) and carries the headers.
    const invalid = await api('POST', '/v1/images', { key: fresh.live, body: {} });
    expect(invalid.status).toBe(400);
    expect(rateHeaders(invalid)).toMatchObject({ limit: '5', remaining: '3' });
  });

  it('public routes are not limited and carry no RateLimit headers', async () => {
    for (let i = 0; i < 8; i++) {
      const res = await api('GET', '/healthz');
      expect(res.status).toBe(200);
      expect(rateHeaders(res).limit).toBeNull();
    }
  });

  it('streamed responses carry the headers too', async () => {
    const fresh = await s.createOrg({ plan: 'team', credits: 1_000_000 });
    const model = s.runtime.deps.catalog.list({ modality: 'chat' })[0]!.slug;
    const res = await fetch(`${s.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fresh.live}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(rateHeaders(res)).toMatchObject({ limit: '5', remaining: '4' });
    expect(await res.text()).toContain('[DONE]');
  });
});

describeOnBackend('rate limits with Redis', 'postgres', (backend) => {
  const redisUrl = process.env.TEST_REDIS_URL;
  // A prefix of its own per run and backend: parallel runs on one Redis never meet, and cleanup finds exactly ours.
  const prefix = `mmgen-test:${randomUUID()}:`;
  let redis: Redis | undefined;

  afterAll(async () => {
    if (!redis) return;
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('two servers on one database share a key\'s budget through Redis', { tags: ['redis'] }, async () => {
    redis = new Redis(redisUrl!);
    const env = { REDIS_URL: redisUrl!, MMGEN_REDIS_KEY_PREFIX: prefix, MMGEN_RATE_LIMIT_TEAM: '6' };
    const a = await startTestServer(backend, env);
    let b: TestServer | undefined;
    try {
      b = await startTestServer(backend, env, { sameDbAs: a });
      const org = await a.createOrg({ plan: 'team' });
      const onA = client(a.url);
      const onB = client(b.url);
      const remaining: string[] = [];
      for (const call of [onA, onA, onA, onB, onB, onB]) {
        const res = await call('GET', '/v1/organization', { key: org.live });
        expect(res.status).toBe(200);
        remaining.push(rateHeaders(res).remaining!);
      }
      expect(remaining).toEqual(['5', '4', '3', '2', '1', '0']);
      expectTooMany(await onA('GET', '/v1/organization', { key: org.live }));
      expectTooMany(await onB('GET', '/v1/organization', { key: org.live }));
      // The counter is in Redis, under the configured prefix.
      expect((await redis.keys(`${prefix}*`)).length).toBeGreaterThan(0);
    } finally {
      await b?.close();
      await a.close();
    }
  });
});

describe('rate limits when Redis is unreachable', () => {
  let s: TestServer;
  beforeAll(async () => {
    // Nothing listens on port 1: every Redis command fails at once.
    s = await startTestServer('pglite', { REDIS_URL: 'redis://127.0.0.1:1', MMGEN_RATE_LIMIT_TEAM: '3' });
  });
  afterAll(async () => s?.close());

  it('fails open to per-process counting: requests go through and the limit still holds on this node', async () => {
    const org = await s.createOrg({ plan: 'team' });
    const api = client(s.url);
    const remaining: Array<string | null> = [];
    for (let i = 0; i < 3; i++) {
      const res = await api('GET', '/v1/organization', { key: org.live });
      expect(res.status).toBe(200);
      remaining.push(rateHeaders(res).remaining);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    expectTooMany(await api('GET', '/v1/organization', { key: org.live }));
  });
});

describe('rate limits across server processes', () => {
  const redisUrl = process.env.TEST_REDIS_URL;
  it('two `mmgen serve` processes on one PostgreSQL share a key\'s budget through Redis', { tags: ['postgres', 'redis'], timeout: 120_000 }, async () => {
    const { db, drop, url } = await freshDb('postgres');
    await db.close();
    const dataDir = mkdtempSync(join(tmpdir(), 'mmgen-rl-'));
    const env = { DATABASE_URL: url!, MMGEN_DATA_DIR: dataDir, REDIS_URL: redisUrl!, MMGEN_REDIS_KEY_PREFIX: `mmgen-test:${randomUUID()}:`, MMGEN_RATE_LIMIT_TEAM: '4' };
    const nodes: ServeProcess[] = [];
    try {
      const created = await mmgen(['org', 'create', '--name', 'two nodes', '--plan', 'team', '--json'], env);
      expect(created.code, created.stderr).toBe(0);
      const key = JSON.parse(created.stdout).keys.live as string;
      nodes.push(await serve(env, ['--no-worker']), await serve(env, ['--no-worker']));
      const [a, b] = nodes.map((n) => client(n.url));
      const statuses: number[] = [];
      for (const call of [a!, b!, a!, b!, a!, b!]) statuses.push((await call('GET', '/v1/organization', { key })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    } finally {
      await Promise.all(nodes.map((n) => n.stop()));
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
