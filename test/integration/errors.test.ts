import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

describeOnBackend('error envelope', 'pglite', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;

  beforeAll(async () => {
    s = await startTestServer(backend);
    api = client(s.url);
    org = await s.createOrg();
  });
  afterAll(async () => s?.close());

  function expectEnvelope(res: { status: number; body: any; headers: Headers }, status: number, code: string) {
    expect(res.status).toBe(status);
    expect(Object.keys(res.body)).toEqual(['error']);
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.message.length).toBeGreaterThan(5);
    expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  }

  it('400 invalid_json for malformed and truncated JSON', async () => {
    for (const raw of ['{', '{"name": "x",}', 'nul', '{"name": "x"', '[1,2', '"\\u12"']) {
      const res = await api('POST', '/v1/api-keys', { key: org.live, raw, headers: { 'content-type': 'application/json' } });
      expectEnvelope(res, 400, 'invalid_json');
      expect(res.body.error.type).toBe('invalid_request_error');
    }
  });

  it('refuses prototype keys as the unknown fields they are (valid JSON, so not invalid_json), naming where they are', async () => {
    const cases: Array<[string, string]> = [
      ['{"name":"x","__proto__":{"role":"owner"}}', '__proto__'],
      ['{"name":"x","constructor":{"prototype":{"role":"owner"}}}', 'constructor'],
      ['{"name":"x","scopes":[{"__proto__":1}]}', 'scopes[0].__proto__'],
      ['{"name":"x","constructor":1}', 'constructor'],
    ];
    for (const [raw, param] of cases) {
      const res = await api('POST', '/v1/api-keys', { key: org.live, raw, headers: { 'content-type': 'application/json' } });
      expectEnvelope(res, 400, 'parameter_unknown');
      expect(res.body.error.param, raw).toBe(param);
    }
    const before = (await api('GET', '/v1/wallet', { key: org.test })).body;
    const image = await api('POST', '/v1/images', { key: org.test, raw: '{"model":"flux-schnell","prompt":"a","__proto__":{"num_outputs":4}}', headers: { 'content-type': 'application/json' } });
    expectEnvelope(image, 400, 'parameter_unknown');
    expect(image.body.error.param).toBe('__proto__');
    expect((await api('GET', '/v1/wallet', { key: org.test })).body).toEqual(before);
    // Still malformed: a truncated body with the same key.
    expectEnvelope(await api('POST', '/v1/api-keys', { key: org.live, raw: '{"name":"x","__proto__":{', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
  });

  it('an empty body counts as {} (so required fields are named)', async () => {
    const res = await api('POST', '/v1/api-keys', { key: org.live, raw: '', headers: { 'content-type': 'application/json' } });
    expectEnvelope(res, 400, 'parameter_missing');
    expect(res.body.error.param).toBe('name');
    const noType = await api('POST', '/v1/api-keys', { key: org.live });
    expectEnvelope(noType, 400, 'parameter_missing');
  });

  it('a JSON body that is not an object is parameter_invalid', async () => {
    for (const raw of ['[]', '"name"', '42', 'null']) {
      const res = await api('POST', '/v1/api-keys', { key: org.live, raw, headers: { 'content-type': 'application/json' } });
      expect(res.status, raw).toBe(400);
      expect(['parameter_invalid', 'parameter_missing']).toContain(res.body.error.code);
    }
  });

  it('413 payload_too_large over 1 MiB', async () => {
    const raw = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
    const res = await api('POST', '/v1/api-keys', { key: org.live, raw, headers: { 'content-type': 'application/json' } });
    expectEnvelope(res, 413, 'payload_too_large');
  });

  it('415 unsupported_media_type for a body that is not JSON', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await api('POST', '/v1/api-keys', { key: org.live, raw: 'name=x', headers: { 'content-type': type } });
      expectEnvelope(res, 415, 'unsupported_media_type');
    }
  });

  it('accepts application/json with a charset', async () => {
    const res = await api('POST', '/v1/api-keys', {
      key: org.live,
      raw: JSON.stringify({ name: 'charset' }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(res.status).toBe(201);
  });

  it('404 route_not_found for unknown paths and methods', async () => {
    expectEnvelope(await api('GET', '/v1/nope', { key: org.live }), 404, 'route_not_found');
    expectEnvelope(await api('PUT', '/v1/models', { key: org.live }), 404, 'route_not_found');
    expectEnvelope(await api('GET', '/', {}), 404, 'route_not_found');
  });

  it('authentication comes before body validation', async () => {
    const res = await api('POST', '/v1/api-keys', { raw: '{', headers: { 'content-type': 'application/json' } });
    expectEnvelope(res, 401, 'missing_authorization');
  });

  it('wrong types are parameter_invalid naming the field; nothing is coerced', async () => {
    for (const body of [{ name: 1 }, { name: true }, { name: ['x'] }, { name: null }, { name: 'x', scopes: 'usage:read' }]) {
      const res = await api('POST', '/v1/api-keys', { key: org.live, body });
      expectEnvelope(res, 400, 'parameter_invalid');
      expect(['name', 'scopes']).toContain(res.body.error.param);
    }
  });
});

describeOnBackend('validation error priority', 'pglite', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(backend);
  });
  afterAll(async () => s?.close());

  it('a typo is reported as the unknown field, not as the field it misses', async () => {
    const org = await s.createOrg();
    const res = await client(s.url)('POST', '/v1/api-keys', { key: org.live, body: { nmae: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_unknown', param: 'nmae' });
  });
});
