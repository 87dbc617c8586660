import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

describeOnBackend('authentication', 'pglite', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;

  beforeAll(async () => {
    s = await startTestServer(backend);
    api = client(s.url);
    org = await s.createOrg({ plan: 'pro' });
  });
  afterAll(async () => s?.close());

  function expectError(res: { status: number; body: any; headers: Headers }, status: number, code: string) {
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(typeof res.body.error.message).toBe('string');
    expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
    expect(res.body.error.request_id).toMatch(/^req_[0-9A-Za-z]{24}$/);
  }

  it('401 missing_authorization without a header', async () => {
    const res = await api('GET', '/v1/models');
    expectError(res, 401, 'missing_authorization');
    expect(res.body.error.type).toBe('authentication_error');
  });

  it('401 invalid_authorization for anything but Bearer <token>', async () => {
    for (const header of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', `Token ${org.live}`, `Bearer ${org.live} extra`, org.live]) {
      expectError(await api('GET', '/v1/models', { headers: { authorization: header } }), 401, 'invalid_authorization');
    }
  });

  it('matches the Bearer scheme case-insensitively', async () => {
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      const res = await api('GET', '/v1/organization', { headers: { authorization: `${scheme} ${org.live}` } });
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(org.id);
    }
  });

  it("takes the key from x-api-key as Anthropic's SDKs send it; with Authorization too, both must name the same key", async () => {
    const alone = await api('GET', '/v1/organization', { headers: { 'x-api-key': org.live, 'anthropic-version': '2023-06-01' } });
    expect(alone.status).toBe(200);
    expect(alone.body.id).toBe(org.id);
    // The test key answers as the test key: the header is what authenticates, not a fallback.
    const mode = await api('GET', '/v1/api-keys/current', { headers: { 'x-api-key': org.test } });
    expect(mode.status).toBe(200);
    expect(mode.body.mode).toBe('test');
    const same = await api('GET', '/v1/organization', { key: org.live, headers: { 'x-api-key': org.live } });
    expect(same.status).toBe(200);
    const other = await api('GET', '/v1/organization', { key: org.live, headers: { 'x-api-key': org.test } });
    expectError(other, 401, 'invalid_authorization');
    expect(other.body.error.message).toContain('x-api-key');
    expectError(await api('GET', '/v1/organization', { headers: { 'x-api-key': 'sk_live_doesnotexist0000000000000000000000' } }), 401, 'invalid_api_key');
    expectError(await api('GET', '/v1/organization', { headers: { 'x-api-key': '  ' } }), 401, 'missing_authorization');
  });

  it('401 invalid_api_key for unknown, malformed and almost-right keys', async () => {
    const almost = org.live.slice(0, -1) + (org.live.endsWith('a') ? 'b' : 'a');
    for (const key of ['sk_live_doesnotexist0000000000000000000000', almost, 'nonsense', 'sk_prod_abcdefghijklmnopqrstuvwxyz']) {
      expectError(await api('GET', '/v1/models', { key }), 401, 'invalid_api_key');
    }
  });

  it('every response carries X-Request-Id, successes too', async () => {
    const res = await api('GET', '/v1/models', { key: org.live });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const pub = await api('GET', '/v1/openapi.json');
    expect(pub.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('a client-sent X-Request-Id is not trusted', async () => {
    const res = await api('GET', '/v1/models', { headers: { 'x-request-id': 'req_injected' } });
    expect(res.headers.get('x-request-id')).not.toBe('req_injected');
  });

  it('revocation takes effect on the very next request', async () => {
    const created = await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'short-lived' } });
    expect(created.status).toBe(201);
    const key = created.body.key as string;
    expect((await api('GET', '/v1/organization', { key })).status).toBe(200);
    const del = await api('DELETE', `/v1/api-keys/${created.body.id}`, { key: org.live });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: created.body.id, object: 'api_key', deleted: true });
    expectError(await api('GET', '/v1/organization', { key }), 401, 'invalid_api_key');
  });

  it('test keys and live keys both authenticate, to the same organization', async () => {
    const live = await api('GET', '/v1/organization', { key: org.live });
    const test = await api('GET', '/v1/organization', { key: org.test });
    expect(live.body).toEqual(test.body);
    expect(live.body).toMatchObject({ object: 'organization', plan: 'pro', enterprise: false, paused: false });
  });

  it('public endpoints need no key', async () => {
    expect((await api('GET', '/v1/openapi.json')).status).toBe(200);
    expect((await api('GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await api('GET', '/readyz')).body).toMatchObject({ status: 'ok', checks: { database: 'ok' } });
  });
});

describeOnBackend('failed authentications per address', 'pglite', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_AUTH_FAILURES_PER_MINUTE: '5' });
    api = client(s.url);
    org = await s.createOrg();
  });
  afterAll(async () => s?.close());

  it('are rate limited with 429 and Retry-After, while valid keys still pass', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 7; i++) codes.push((await api('GET', '/v1/models', { key: `sk_live_wrong${i}00000000000000000000000` })).status);
    expect(codes.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(codes.slice(5)).toEqual([429, 429]);
    const limited = await api('GET', '/v1/models', { key: 'sk_live_wrong000000000000000000000000000' });
    expect(limited.body.error.code).toBe('rate_limit_exceeded');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await api('GET', '/v1/models', { key: org.live })).status).toBe(200);
  });
});
