import { afterAll, beforeAll, expect, it } from 'vitest';
import { payloadKey } from '../../src/http/payload-capture.js';
import { until } from '../helpers/processes.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * What capture keeps of hostile or secret-bearing exchanges (issue 42): a body nested 100,000 levels deep, an
 * organization's pattern that a backtracking engine would run for ever, an invitation's link and a webhook's secret.
 */
describeOnBackend('payload capture: hostile bodies and secrets in answers', 'pglite', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_REQUEST_LOG_BATCH_MS: '5', MMGEN_RETENTION_INTERVAL_MS: '86400000', MMGEN_ALLOW_PRIVATE_NETWORK: '1' });
    api = client(s.url);
    org = await s.createOrg({ credits: 1_000_000 });
    const set = await api('PATCH', '/v1/organization/data-policy', { key: org.live, body: { capture: 'full' } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
  });
  afterAll(async () => s?.close());

  const imageModel = () => s.runtime.deps.catalog.list({ modality: 'image' })[0]!.slug;

  /** The captured document of a request, once stored (it is made after the response, in a later turn). */
  async function captured(requestId: string): Promise<string> {
    const blob = await until(`the payload of ${requestId}`, () => s.runtime.deps.blobs.get(payloadKey(requestId)), 30_000, 20);
    return blob.bytes.toString('utf8');
  }

  async function post(path: string, body: string, key = org.live): Promise<{ status: number; requestId: string; text: string }> {
    const res = await fetch(`${s.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
    return { status: res.status, requestId: res.headers.get('x-request-id')!, text: await res.text() };
  }

  it('captures the refusal of a body nested 100,000 levels deep, and the server goes on answering', async () => {
    // Refused at the door (src/json-shape.ts) before it is parsed: the capture keeps the answer and no body. The
    // redactor's own bound on what reaches it by another road ([TOO DEEP]) is tested in test/unit/redaction.test.ts.
    const depth = 100_000;
    const body = `{"model":${JSON.stringify(imageModel())},"prompt":"a deep one","metadata":{"x":${'['.repeat(depth)}1${']'.repeat(depth)}}}`;
    const res = await post('/v1/images', body);
    expect(res.status, res.text.slice(0, 300)).toBe(400);
    expect(JSON.parse(res.text).error).toMatchObject({ code: 'parameter_invalid', param: 'metadata' });
    const doc = JSON.parse(await captured(res.requestId)) as { request: { body: unknown }; response: { status: number } };
    expect(doc.request.body).toBeNull();
    expect(doc.response.status).toBe(400);
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
  });

  it("runs an organization's pattern in linear time: a hostile one over a long line of digits, and the server answers", async () => {
    const set = await api('PATCH', '/v1/organization/data-policy', { key: org.live, body: { redact_patterns: ['(\\w|\\d)*!'] } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    try {
      // Within the prompt's 4,000 characters; a backtracking engine took 9.4 s at 27 digits, doubling with each more.
      const digits = '7'.repeat(1_900);
      const res = await post('/v1/images', JSON.stringify({ model: imageModel(), prompt: `count ${digits} and ${digits}!`, width: 256, height: 256 }));
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      const doc = JSON.parse(await captured(res.requestId)) as { request: { body: { prompt: string } } };
      expect(doc.request.body.prompt).toBe(`count ${digits} and [REDACTED]`);
      expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    } finally {
      await api('PATCH', '/v1/organization/data-policy', { key: org.live, body: { redact_patterns: [] } });
    }
  });

  it("keeps no invitation token: the link's #token= is redacted in the captured answer", async () => {
    const res = await post('/v1/invitations', JSON.stringify({ email: 'new@capture.test', role: 'developer' }));
    expect(res.status, res.text.slice(0, 300)).toBe(201);
    const token = /#token=([^"&\s]+)/.exec(res.text)?.[1];
    expect(token, res.text).toBeTruthy();
    const doc = await captured(res.requestId);
    expect(doc).not.toContain(token!);
    expect(doc).toContain('accept-invitation#token=[REDACTED]');
  });

  it("keeps no webhook signing secret (whsec_), returned once by the endpoint's creation", async () => {
    // A test-mode key: only test-mode webhooks may use plain http (loopback only in tests).
    const res = await post('/v1/webhooks', JSON.stringify({ url: 'http://127.0.0.1:9/hook', events: ['*'] }), org.test);
    expect(res.status, res.text.slice(0, 300)).toBeLessThan(300);
    const secret = /whsec_[0-9A-Za-z]+/.exec(res.text)?.[0];
    expect(secret, res.text).toBeTruthy();
    expect(await captured(res.requestId)).not.toContain(secret!.slice(6));
  });
});
