import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, MovableClock, utcDay } from '../../src/clock.js';
import { setPlan } from '../../src/domain/organizations.js';
import { operatorOrigin } from '../../src/domain/audit.js';
import { runRetention } from '../../src/request-log/retention.js';
import { listRequestLogPartitions } from '../../src/store/request-log.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

describeOnBackend('request log', 'pglite', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;
  const clock = new MovableClock();

  beforeAll(async () => {
    s = await startTestServer(
      backend,
      { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_RATE_LIMIT_FREE: '3', MMGEN_REQUEST_LOG_BATCH_MS: '5', MMGEN_RETENTION_INTERVAL_MS: '86400000' },
      { clock },
    );
    api = client(s.url);
    org = await s.createOrg({ credits: 1_000_000 });
  });
  afterAll(async () => s?.close());

  const imageModel = () => s.runtime.deps.catalog.list({ modality: 'image' })[0]!.slug;
  /** Rows are written in batches off the request's path: wait for them. */
  const written = () => s.runtime.deps.requestLog.flush();
  const search = async (key: string, query: string) => {
    await written();
    const res = await api('GET', `/v1/requests?${query}`, { key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // Searching is a call too, logged like any other: left out of what the tests count.
    return (res.body.data as Array<Record<string, any>>).filter((r) => !r.route.startsWith('GET /v1/requests'));
  };

  it('logs every refused request with its status and code, and every generation with its model, generation and cost', async () => {
    const made: Array<{ id: string; status: number; code: string | null; key: string }> = [];
    const call = async (key: string, method: string, path: string, body?: unknown) => {
      const res = await api(method, path, { key, body });
      made.push({ id: res.headers.get('x-request-id')!, status: res.status, code: res.body?.error?.code ?? null, key });
      return res;
    };
    const ok = await call(org.live, 'POST', '/v1/images', { model: imageModel(), prompt: 'a lighthouse', width: 256, height: 256 });
    expect(ok.status).toBe(200);
    expect((await call(org.live, 'POST', '/v1/images', { model: imageModel(), prompt: 'a lighthouse', width: 'wide' })).status).toBe(400);
    expect((await call(org.live, 'GET', '/v1/generations/gen_ZZZZZZZZZZZZZZZZZZZZZZZZ')).status).toBe(404);
    expect((await call(org.live, 'POST', `/v1/generations/${ok.body.id}/cancel`)).status).toBe(409);
    const viewer = (await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'viewer', role: 'viewer' } })).body;
    expect((await call(viewer.key, 'POST', '/v1/api-keys', { name: 'x' })).status).toBe(403);
    const poor = await s.createOrg({ credits: 0 });
    expect((await call(poor.live, 'POST', '/v1/images', { model: imageModel(), prompt: 'a lighthouse', width: 256, height: 256 })).status).toBe(402);
    const limited = await s.createOrg({ credits: 0, plan: 'free' });
    let res;
    for (let i = 0; i < 5; i++) res = await call(limited.live, 'GET', '/v1/wallet');
    expect(res!.status).toBe(429);
    // Its owner may read its log again.
    await setPlan(s.db, limited.id, 'team', undefined, operatorOrigin('test'));

    expect(made.map((m) => m.status).sort()).toEqual([200, 200, 200, 200, 400, 402, 403, 404, 409, 429, 429]);
    for (const m of made) {
      const rows = await search(m.key, `request_id=${m.id}`);
      expect(rows, JSON.stringify(m)).toHaveLength(1);
      expect(rows[0]).toMatchObject({ id: m.id, status: m.status, error_code: m.code });
      delete (m as Partial<typeof m>).key;
    }
    const [gen] = await search(org.live, `request_id=${made[0]!.id}`);
    expect(gen).toMatchObject({ route: 'POST /v1/images', model: imageModel(), generation_id: ok.body.id, cost_credits: ok.body.charged_credits });
    expect(gen!.cost_credits).toBeGreaterThan(0);
    expect(gen!.latency_ms).toBeGreaterThan(0);
    // The refused viewer's row names the key that was refused.
    const [refused] = await search(viewer.key, 'status=403');
    expect(refused).toMatchObject({ key_id: viewer.id, error_code: 'insufficient_role' });
  });

  it('searches every row by status, route, model, key and time, pages with a cursor, and shows nothing of another organization or mode', async () => {
    const o = await s.createOrg({ credits: 1_000_000 });
    for (let i = 0; i < 7; i++) await api('GET', '/v1/wallet', { key: o.live });
    await api('POST', '/v1/images', { key: o.live, body: { model: imageModel(), prompt: 'p', width: 7 } });
    await api('GET', '/v1/wallet', { key: o.test });
    const all = await search(o.live, 'limit=100');
    expect(all.map((r) => r.route).filter((r) => r === 'GET /v1/wallet')).toHaveLength(7);
    expect(await search(o.live, 'status=4xx')).toHaveLength(1);
    expect(await search(o.live, 'status=400')).toHaveLength(1);
    expect(await search(o.live, 'route=/v1/images')).toHaveLength(1);
    expect(await search(o.live, `route=${encodeURIComponent('POST /v1/images')}`)).toHaveLength(1);
    expect(await search(o.live, `model=${imageModel()}`)).toHaveLength(1);
    expect(await search(o.live, `key_id=${all[0]!.key_id}`)).toHaveLength(8);
    expect(await search(o.live, `until=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`)).toHaveLength(0);
    expect(await search(o.live, `since=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`)).toHaveLength(8);
    // The test mode sees its own call only; another organization sees none.
    expect(await search(o.test, 'limit=100')).toHaveLength(1);
    expect(await search(org.live, `key_id=${all[0]!.key_id}`)).toHaveLength(0);
    expect((await api('GET', `/v1/requests?starting_after=${all[0]!.id}`, { key: org.live })).status).toBe(404);

    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await api('GET', `/v1/requests?limit=3${after ? `&starting_after=${after}` : ''}`, { key: o.live });
      seen.push(...page.body.data.filter((r: { route: string }) => !r.route.startsWith('GET /v1/requests')).map((r: { id: string }) => r.id));
      if (!page.body.has_more) break;
      after = page.body.data.at(-1).id;
    }
    expect(seen).toEqual(all.map((r) => r.id));
  });

  it('exports as JSON Lines and CSV, streamed', async () => {
    const o = await s.createOrg({ credits: 1_000_000 });
    for (let i = 0; i < 4; i++) await api('GET', '/v1/wallet', { key: o.live });
    await written();
    const jsonl = await fetch(`${s.url}/v1/requests/export`, { headers: { authorization: `Bearer ${o.live}` } });
    expect(jsonl.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await jsonl.text()).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatchObject({ object: 'request', route: 'GET /v1/wallet', status: 200 });
    const csv = await fetch(`${s.url}/v1/requests/export?format=csv&status=200&route=/v1/wallet`, { headers: { authorization: `Bearer ${o.live}` } });
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const rows = (await csv.text()).trim().split('\n');
    expect(rows[0]).toBe('id,created_at,route,status,error_code,key_id,model,generation_id,latency_ms,cost_credits,payload_captured');
    expect(rows).toHaveLength(5);
    expect(rows[1]).toContain(',GET /v1/wallet,200,,');
    const bad = await api('GET', '/v1/requests/export?format=xml', { key: o.live });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'parameter_invalid']);
  });

  it("drops a day's partition whole once its rows' retention has passed", async () => {
    const o = await s.createOrg({ credits: 1_000_000 });
    await api('GET', '/v1/wallet', { key: o.live });
    await written();
    const expiry = utcDay(clock.now() + 30 * DAY_MS);
    expect((await listRequestLogPartitions(s.db)).map((p) => p.day)).toContain(expiry);
    expect(await search(o.live, '')).toHaveLength(1);
    clock.advance(31 * DAY_MS);
    const { requestLogDaysDropped } = await runRetention(s.runtime.deps);
    expect(requestLogDaysDropped).toContain(expiry);
    expect((await listRequestLogPartitions(s.db)).map((p) => p.day).filter((d) => d <= expiry)).toEqual([]);
    expect(await search(o.live, '')).toHaveLength(0);
    // Rows written after the drop make their own partition.
    await api('GET', '/v1/wallet', { key: o.live });
    expect(await search(o.live, '')).toHaveLength(1);
  });
});

describe('request log off', () => {
  it('writes nothing with MMGEN_REQUEST_LOG=off', async () => {
    const s = await startTestServer('pglite', { MMGEN_REQUEST_LOG: 'off' });
    try {
      const o = await s.createOrg({ credits: 0 });
      await client(s.url)('GET', '/v1/wallet', { key: o.live });
      await s.runtime.deps.requestLog.flush();
      expect((await client(s.url)('GET', '/v1/requests', { key: o.live })).body.data).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
