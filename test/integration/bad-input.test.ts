import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * Regression tests for what the fuzzer (fuzz.test.ts) found, on both
 * backends: each was a 500, a silently altered value, or an answer outside
 * the contract's envelope.
 */
describeOnBackend('bad input found by the fuzzer', 'pglite', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;
  const json = { 'content-type': 'application/json' };

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1' }, { worker: false });
    api = client(s.url);
    org = await s.createOrg({ credits: 100_000 });
  });
  afterAll(async () => s?.close());

  function expect400(res: { status: number; body: any; headers: Headers }, param: string | undefined, message: RegExp) {
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid' });
    expect(res.body.error.param).toBe(param);
    expect(res.body.error.message).toMatch(message);
    expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
  }

  describe('text PostgreSQL cannot store', () => {
    it('U+0000 in a body field is 400 naming the field (was 500), and nothing is created', async () => {
      const before = await api('GET', '/v1/api-keys?limit=100', { key: org.live });
      const res = await api('POST', '/v1/api-keys', { key: org.live, raw: '{"name":"a\\u0000b"}', headers: json });
      expect400(res, 'name', /NUL/);
      const after = await api('GET', '/v1/api-keys?limit=100', { key: org.live });
      expect(after.body.data.length).toBe(before.body.data.length);
    });

    it('an unpaired surrogate is 400 (was 500 in a prompt, and silently U+FFFD in a key name)', async () => {
      for (const [path, raw, param] of [
        ['/v1/images', '{"model":"flux-schnell","prompt":"a\\ud800b"}', 'prompt'],
        ['/v1/images', '{"model":"flux-schnell","prompt":"ok","negative_prompt":"\\udc00"}', 'negative_prompt'],
        ['/v1/api-keys', '{"name":"a\\ud800b"}', 'name'],
        ['/v1/chat', '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi \\ud83d"}]}', 'messages[0].content'],
        ['/v1/chat/completions', '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"user":"x\\udfff"}', 'user'],
      ] as const) {
        const res = await api('POST', path, { key: org.test, raw, headers: json });
        expect400(res, param, /unpaired surrogate/);
      }
      const list = await api('GET', '/v1/generations', { key: org.test });
      expect(list.body.data).toEqual([]);
    });

    it('a well-formed astral character (a surrogate pair) is fine', async () => {
      const res = await api('POST', '/v1/api-keys', { key: org.live, raw: '{"name":"rocket \\ud83d\\ude80"}', headers: json });
      expect(res.status).toBe(201);
      expect(res.body.name).toBe('rocket \u{1F680}');
    });

    it('U+0000 in a path parameter or a query parameter is 400 naming it (was 500)', async () => {
      expect400(await api('GET', '/v1/generations/gen_%00', { key: org.test }), 'id', /path parameter id: must not contain the NUL/);
      expect400(await api('GET', '/v1/webhooks/whk_x/deliveries/%00', { key: org.test }), 'delivery_id', /NUL/);
      expect400(await api('GET', '/v1/api-keys?starting_after=%00', { key: org.test }), 'starting_after', /query parameter starting_after/);
      expect400(await api('GET', '/v1/generations?starting_after=a%00', { key: org.test }), 'starting_after', /NUL/);
    });
  });

  it('a body nested thousands of levels deep in a free-form field is 400 (was a stack overflow: 500)', async () => {
    const deep = '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000);
    const raw = `{"models":["eleven-music","lyria-2"],"prompt":"x","params":${deep}}`;
    const res = await api('POST', '/v1/comparisons', { key: org.test, raw, headers: json });
    expect400(res, 'params', /more than 32 levels deep/);
    // Moderately nested input that is otherwise valid is not refused for its depth.
    const ok = await api('POST', '/v1/comparisons', { key: org.test, body: { models: ['eleven-music', 'stable-audio-2.5'], prompt: 'x', params: { duration_s: 10 } } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(202);
  });

  it('monthly_budget_usd accepts every amount in whole cents (19.99 and 0.07 were refused as "not a multiple of 0.01")', async () => {
    for (const amount of [19.99, 0.07, 0.29, 1234.56, 0.01]) {
      const res = await api('POST', '/v1/api-keys', { key: org.live, body: { name: `budget ${amount}`, monthly_budget_usd: amount } });
      expect(res.status, `${amount}: ${JSON.stringify(res.body)}`).toBe(201);
      expect(res.body.monthly_budget_usd).toBe(amount);
      const patched = await api('PATCH', `/v1/api-keys/${res.body.id}`, { key: org.live, body: { monthly_budget_usd: amount } });
      expect(patched.body.monthly_budget_usd).toBe(amount);
    }
    for (const amount of [0.001, 19.995, -0.01]) {
      const res = await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'x', monthly_budget_usd: amount } });
      expect(res.status, String(amount)).toBe(400);
      expect(res.body.error.param).toBe('monthly_budget_usd');
    }
  });

  it('a URL the router cannot decode, or a path parameter over 200 characters, gets the envelope (was Fastify\'s own body, and 414)', async () => {
    for (const path of ['/v1/generations/%ZZ', '/v1/generations/%E0%A4%A', '/v1/webhooks/%ff/deliveries', '/files/%ED%A0%80', `/v1/api-keys/${'a'.repeat(300)}`]) {
      const res = await rawRequest(s.url, { method: 'GET', path, headers: [['Authorization', `Bearer ${org.test}`]] });
      expect(res.status, path).toBe(400);
      expect((res.json as any).error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid', request_id: res.headers['x-request-id'] });
      expect(res.headers['x-request-id']).toMatch(/^req_/);
    }
  });

  it('a route without query parameters refuses unknown ones, as every other route does (they were ignored)', async () => {
    for (const path of ['/v1/organization?expand=owner', '/v1/wallet?currency=usd', `/v1/generations/gen_x?include=outputs`, '/healthz?x=1']) {
      const res = await api('GET', path, { key: org.test });
      expect(res.status, path).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'parameter_unknown', param: new URL(path, 'http://x').searchParams.keys().next().value });
    }
    expect((await api('GET', '/v1/organization', { key: org.test })).status).toBe(200);
  });

  it('an unknown starting_after names starting_after (it said "id")', async () => {
    for (const path of ['/v1/api-keys', '/v1/generations', '/v1/webhooks']) {
      const res = await api('GET', `${path}?starting_after=nope_123`, { key: org.test });
      expect(res.status, path).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'resource_not_found', param: 'starting_after' });
    }
  });

  it('the OpenAPI document lists every status the fuzzer can provoke', async () => {
    const doc = (await api('GET', '/v1/openapi.json')).body;
    const statuses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses).map(Number);
    // 400 on every operation (malformed HTTP, unknown query parameters).
    for (const [path, ops] of Object.entries<any>(doc.paths)) for (const method of Object.keys(ops)) expect(statuses(path, method), `${method} ${path}`).toContain(400);
    // A body-less POST can still be sent a body too large or not JSON.
    expect(statuses('/v1/generations/{id}/cancel', 'post')).toEqual(expect.arrayContaining([413, 415]));
    // Idempotency-Key conflicts on credit-consuming POSTs.
    expect(statuses('/v1/images', 'post')).toEqual(expect.arrayContaining([409, 422]));
    expect(statuses('/v1/webhooks', 'post')).not.toContain(422);
    // An unknown starting_after on a list.
    expect(statuses('/v1/api-keys', 'get')).toContain(404);
  });

  /** Writes `text` and waits for the server to answer and close (or `giveUpMs`). */
  function stalled(server: TestServer, text: string, giveUpMs: number): Promise<{ ms: number; answer: string }> {
    const url = new URL(server.url);
    return new Promise((resolve) => {
      const t0 = Date.now();
      const socket = connect(Number(url.port), url.hostname);
      let answer = '';
      const timer = setTimeout(() => {
        socket.destroy();
        resolve({ ms: Infinity, answer });
      }, giveUpMs);
      socket.on('data', (c: Buffer) => (answer += c.toString()));
      socket.on('error', () => {});
      socket.on('close', () => {
        clearTimeout(timer);
        resolve({ ms: Date.now() - t0, answer });
      });
      socket.write(text);
    });
  }

  describe('a client that stalls (it held its connection forever: Fastify sets no request timeout)', () => {
    let quick: TestServer;
    let quickOrg: TestOrg;
    beforeAll(async () => {
      quick = await startTestServer(backend, { MMGEN_REQUEST_TIMEOUT_MS: '1500', MMGEN_SIMULATE_PROVIDERS: '1' });
      quickOrg = await quick.createOrg({ credits: 100_000 });
    });
    afterAll(async () => quick?.close());

    it('half a body is cut off after MMGEN_REQUEST_TIMEOUT_MS with a 400 in the envelope', async () => {
      const r = await stalled(
        quick,
        `POST /v1/api-keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${quickOrg.live}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":"x`,
        10_000,
      );
      expect(r.ms).toBeGreaterThanOrEqual(1400);
      expect(r.ms).toBeLessThan(5000);
      expect(r.answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(r.answer).toMatch(/"code":"parameter_invalid"/);
      expect(r.answer).toMatch(/not received in time/);
    });

    it('headers that never end are cut off too', async () => {
      const r = await stalled(quick, 'GET /v1/organization HTTP/1.1\r\nHost: x\r\nX-Slow: a', 10_000);
      expect(r.ms).toBeLessThan(5000);
    });

    it('a response may take longer than that: only receiving the request is bounded', async () => {
      const g = await client(quick.url)('POST', '/v1/videos', { key: quickOrg.test, body: { model: 'wan-2.2', prompt: 'x', duration_s: 1, simulate: { delay_ms: 2500 } } });
      expect(g.status).toBe(202);
      const t0 = Date.now();
      const res = await fetch(`${quick.url}/v1/generations/${g.body.id}/events`, { headers: { authorization: `Bearer ${quickOrg.test}` } });
      const text = await res.text();
      expect(Date.now() - t0).toBeGreaterThan(1500);
      expect(text).toMatch(/"status":"succeeded"/);
    });
  });

  it('an event stream asked for with Connection: close ends its connection when it ends (it forced keep-alive)', async () => {
    const img = await api('POST', '/v1/images', { key: org.test, body: { model: 'flux-schnell', prompt: 'x', width: 256, height: 256 } });
    expect(img.status).toBe(200);
    const { connect } = await import('node:net');
    const url = new URL(s.url);
    const closedAfterMs = await new Promise<number>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname);
      const t0 = Date.now();
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString()));
      socket.on('close', () => (text.includes('event: generation') ? resolve(Date.now() - t0) : reject(new Error(text))));
      setTimeout(() => {
        socket.destroy();
        reject(new Error('the server kept the connection open'));
      }, 5000);
      socket.write(`GET /v1/generations/${img.body.id}/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${org.test}\r\nConnection: close\r\n\r\n`);
    });
    expect(closedAfterMs).toBeLessThan(5000);
  });
});
