import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mode } from '../../src/domain/access.js';
import { FakeStripe } from '../fakes/stripe.js';
import { SoftwareAuthenticator } from '../helpers/software-authenticator.js';
import { client, describeOnBackend, startTestServer, type ApiResponse, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * The isolation matrix: for every resource, a key of another organization and
 * a key of the other mode (live/test) get 404, exactly as for an id that never
 * existed, and never see the resource in a list, a usage report or a wallet.
 * Then: a viewer key cannot mutate anything (every non-GET operation of the
 * OpenAPI document), and no key can grant itself, or a key it makes, more than
 * it has.
 */
describeOnBackend('isolation matrix', 'postgres', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let a: TestOrg;
  let b: TestOrg;

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_ALLOW_PRIVATE_NETWORK: '1' });
    api = client(s.url);
    a = await s.createOrg({ credits: 1_000_000, enterprise: true });
    b = await s.createOrg({ credits: 500_000, enterprise: true });
  });
  afterAll(async () => s?.close());

  const keyOf = (org: TestOrg, mode: Mode) => (mode === 'live' ? org.live : org.test);

  /**
   * A person invited into `org` at `role`, signed in (in `mode`): the cookie and CSRF headers a browser would send.
   * Each call is a new person.
   */
  let people = 0;
  async function sessionOf(org: TestOrg, mode: Mode, role = 'owner'): Promise<Record<string, string>> {
    const email = `person${++people}-${Math.random().toString(36).slice(2, 8)}@example.test`;
    const inv = await ok(api('POST', '/v1/invitations', { key: org.live, body: { email, role } }), 201, 'invitation');
    const token = new URL(inv.url).hash.replace('#token=', '');
    const res = await api('POST', '/v1/invitations/accept', { body: { token, password: 'isolation password' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const cookie = res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const headers = { cookie, 'x-csrf-token': res.body.csrf_token as string };
    // A switch issues the session a new CSRF token.
    if (mode === 'test') headers['x-csrf-token'] = (await ok(api('PATCH', '/v1/session', { body: { mode }, headers }), 200, 'switch mode')).csrf_token as string;
    return headers;
  }
  const other = (mode: Mode): Mode => (mode === 'live' ? 'test' : 'live');

  /** A dashboard session opened with `key` (POST /v1/session/key): the cookie and CSRF headers a browser would send. */
  async function keySessionOf(key: string): Promise<Record<string, string>> {
    const res = await api('POST', '/v1/session/key', { body: { api_key: key } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { cookie: res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; '), 'x-csrf-token': res.body.csrf_token as string };
  }

  async function ok<T = any>(p: Promise<ApiResponse<T>>, status: number, what: string): Promise<T> {
    const res = await p;
    expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(status);
    return res.body;
  }

  async function waitFor(key: string, id: string, done: (g: any) => boolean): Promise<any> {
    for (let i = 0; i < 300; i++) {
      const g = (await api('GET', `/v1/generations/${id}`, { key })).body;
      if (done(g)) return g;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`${id} never got there`);
  }

  /** One of every resource, made by org A in one mode. */
  interface Resources {
    generation: string;
    running: string;
    comparison: string;
    outputUrl: string;
    upload: string;
    webhook: string;
    delivery: string;
    apiKey: string;
    ownerKeyId: string;
    auditEvent: string;
    /** The request log's row of the image request. */
    requestId: string;
  }

  async function makeResources(mode: Mode): Promise<Resources> {
    const key = keyOf(a, mode);
    const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#123456' } }).png().toBuffer();
    const upload = await ok(api('POST', '/v1/uploads', { key, body: { content_type: 'image/png', size_bytes: png.length } }), 201, 'upload');
    const u = new URL(upload.upload_url);
    expect((await fetch(`${s.url}${u.pathname}${u.search}`, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: png })).status).toBe(200);
    const imageRes = await api('POST', '/v1/images', { key, body: { model: 'flux-schnell', prompt: `isolation ${mode}`, width: 256, height: 256 } });
    const image = await ok(Promise.resolve(imageRes), 200, 'image');
    const running = await ok(api('POST', '/v1/videos', { key, body: { model: 'wan-2.2', prompt: 'slow', simulate: { delay_ms: 600_000 } } }), 202, 'video');
    const comparison = await ok(api('POST', '/v1/comparisons', { key, body: { models: ['eleven-music', 'stable-audio-2.5'], prompt: 'x', params: { duration_s: 5 } } }), 202, 'comparison');
    const webhook = await ok(api('POST', '/v1/webhooks', { key, body: { url: 'http://127.0.0.1:9/none', events: ['*'] } }), 201, 'webhook');
    const delivery = await ok(api('POST', `/v1/webhooks/${webhook.id}/test`, { key, body: {} }), 202, 'delivery');
    const apiKey = await ok(api('POST', '/v1/api-keys', { key, body: { name: `victim ${mode}`, role: 'developer' } }), 201, 'api key');
    const keys = (await api('GET', '/v1/api-keys?limit=100', { key })).body.data as Array<{ id: string; prefix: string }>;
    const ownerKeyId = keys.find((k) => key.startsWith(k.prefix))!.id;
    // The audit log's newest entry: the key just made, by this mode's owner key.
    const auditEvent = (await ok(api('GET', '/v1/audit-events?limit=1', { key }), 200, 'audit events')).data[0];
    expect(auditEvent).toMatchObject({ action: 'api_key.created', target: { id: apiKey.id } });
    return {
      generation: image.id,
      running: running.id,
      comparison: comparison.id,
      outputUrl: image.outputs[0].url,
      upload: upload.id,
      webhook: webhook.id,
      delivery: delivery.id,
      apiKey: apiKey.id,
      ownerKeyId,
      auditEvent: auditEvent.id,
      requestId: imageRes.headers.get('x-request-id')!,
    };
  }

  /** Requests naming the resource by id; each must answer 404 to an intruder, exactly as a never-existing id does. */
  function probes(r: Resources, intruderWebhook: string): Array<{ name: string; method: string; path: string; body?: unknown; id: string; param?: string }> {
    return [
      { name: 'get generation', method: 'GET', path: `/v1/generations/${r.generation}`, id: r.generation },
      { name: 'cancel generation', method: 'POST', path: `/v1/generations/${r.running}/cancel`, id: r.running },
      { name: 'retry generation', method: 'POST', path: `/v1/generations/${r.generation}/retry`, id: r.generation },
      { name: 'event stream', method: 'GET', path: `/v1/generations/${r.running}/events`, id: r.running },
      { name: 'generations after it', method: 'GET', path: `/v1/generations?starting_after=${r.generation}`, id: r.generation },
      { name: 'get comparison', method: 'GET', path: `/v1/comparisons/${r.comparison}`, id: r.comparison },
      { name: 'get upload', method: 'GET', path: `/v1/uploads/${r.upload}`, id: r.upload },
      { name: 'upload as an input', method: 'POST', path: '/v1/upscale', body: { model: 'real-esrgan', upload_id: r.upload }, id: r.upload, param: 'upload_id' },
      { name: 'upload in a comparison', method: 'POST', path: '/v1/comparisons', body: { models: ['real-esrgan', 'clarity-upscaler'], params: { upload_id: r.upload } }, id: r.upload, param: 'params.upload_id' },
      { name: 'get webhook', method: 'GET', path: `/v1/webhooks/${r.webhook}`, id: r.webhook },
      { name: 'update webhook', method: 'PATCH', path: `/v1/webhooks/${r.webhook}`, body: { url: 'http://127.0.0.1:9/stolen' }, id: r.webhook },
      { name: 'delete webhook', method: 'DELETE', path: `/v1/webhooks/${r.webhook}`, id: r.webhook },
      { name: 'test webhook', method: 'POST', path: `/v1/webhooks/${r.webhook}/test`, body: {}, id: r.webhook },
      { name: 'list deliveries', method: 'GET', path: `/v1/webhooks/${r.webhook}/deliveries`, id: r.webhook },
      { name: 'get delivery', method: 'GET', path: `/v1/webhooks/${r.webhook}/deliveries/${r.delivery}`, id: r.webhook },
      { name: 'replay delivery', method: 'POST', path: `/v1/webhooks/${r.webhook}/deliveries/${r.delivery}/replay`, body: {}, id: r.webhook },
      // The intruder's own webhook with the victim's delivery id.
      { name: 'delivery through own webhook', method: 'GET', path: `/v1/webhooks/${intruderWebhook}/deliveries/${r.delivery}`, id: r.delivery },
      { name: 'replay through own webhook', method: 'POST', path: `/v1/webhooks/${intruderWebhook}/deliveries/${r.delivery}/replay`, body: {}, id: r.delivery },
      { name: 'deliveries after it', method: 'GET', path: `/v1/webhooks/${intruderWebhook}/deliveries?starting_after=${r.delivery}`, id: r.delivery },
      { name: 'webhooks after it', method: 'GET', path: `/v1/webhooks?starting_after=${r.webhook}`, id: r.webhook },
      { name: 'get api key', method: 'GET', path: `/v1/api-keys/${r.apiKey}`, id: r.apiKey },
      { name: 'update api key', method: 'PATCH', path: `/v1/api-keys/${r.apiKey}`, body: { name: 'stolen', scopes: ['images:write'] }, id: r.apiKey },
      { name: 'revoke api key', method: 'DELETE', path: `/v1/api-keys/${r.apiKey}`, id: r.apiKey },
      { name: 'api keys after it', method: 'GET', path: `/v1/api-keys?starting_after=${r.apiKey}`, id: r.apiKey },
      { name: 'audit events after it', method: 'GET', path: `/v1/audit-events?starting_after=${r.auditEvent}`, id: r.auditEvent, param: 'starting_after' },
      { name: 'requests after it', method: 'GET', path: `/v1/requests?starting_after=${r.requestId}`, id: r.requestId, param: 'starting_after' },
    ];
  }

  /** The same id shape that never existed. */
  const ghost = (id: string) => `${id.slice(0, id.indexOf('_') + 1)}${'Z'.repeat(24)}`;

  /**
   * Each probe answered 404 `resource_not_found` (naming the probe's parameter where it has one), exactly as the same
   * id shape that never existed is answered (no oracle): what differs, one line each.
   */
  async function notFoundLikeMadeUp(
    call: (method: string, path: string, body?: unknown) => Promise<ApiResponse>,
    list: ReturnType<typeof probes>,
  ): Promise<string[]> {
    const mismatches: string[] = [];
    for (const p of list) {
      const res = await call(p.method, p.path, p.body);
      const twin = await call(p.method, p.path.replace(p.id, ghost(p.id)), p.body === undefined ? undefined : JSON.parse(JSON.stringify(p.body).replace(p.id, ghost(p.id))));
      if (res.status !== 404 || res.body?.error?.code !== 'resource_not_found') {
        mismatches.push(`${p.name}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        continue;
      }
      if (p.param && res.body.error.param !== p.param) mismatches.push(`${p.name}: names ${String(res.body.error.param)}, not ${p.param}`);
      const strip = (x: ApiResponse) => ({ status: x.status, ...x.body.error, request_id: undefined, message: String(x.body.error?.message).replace(ghost(p.id), p.id) });
      if (JSON.stringify(strip(res)) !== JSON.stringify(strip(twin))) mismatches.push(`${p.name}: differs from a made-up id: ${JSON.stringify(strip(res))} vs ${JSON.stringify(strip(twin))}`);
    }
    return mismatches;
  }

  for (const mode of ['live', 'test'] as const) {
    describe(`resources of a ${mode}-mode key`, () => {
      let r: Resources;
      beforeAll(async () => {
        r = await makeResources(mode);
        await s.runtime.deps.requestLog.flush();
        // The owner finds its request in the log (so an intruder's empty answer means something).
        expect((await api('GET', `/v1/requests?request_id=${r.requestId}`, { key: keyOf(a, mode) })).body.data).toHaveLength(1);
      });
      // Nothing left running for shutdown to wait on.
      afterAll(async () => {
        await api('POST', `/v1/generations/${r.running}/cancel`, { key: keyOf(a, mode) });
      });

      for (const intruder of ['another organization', 'the other mode'] as const) {
        it(`${intruder} gets 404 for every one of them, as for an id that never existed`, async () => {
          const key = intruder === 'another organization' ? keyOf(b, mode) : keyOf(a, other(mode));
          const own = await ok(api('POST', '/v1/webhooks', { key, body: { url: 'http://127.0.0.1:9/own', events: ['*'] } }), 201, 'own webhook');
          expect(await notFoundLikeMadeUp((method, path, body) => api(method, path, { key, body }), probes(r, own.id))).toEqual([]);

          // Lists never show them.
          const seen = JSON.stringify([
            (await api('GET', '/v1/generations?limit=100', { key })).body,
            (await api('GET', '/v1/webhooks?limit=100', { key })).body,
            (await api('GET', '/v1/api-keys?limit=100', { key })).body,
            (await api('GET', `/v1/webhooks/${own.id}/deliveries?limit=100`, { key })).body,
            (await api('GET', '/v1/audit-events?limit=100', { key })).body,
            await (await fetch(`${s.url}/v1/audit-events/export`, { headers: { authorization: `Bearer ${key}` } })).text(),
            (await api('GET', '/v1/requests?limit=100', { key })).body,
            (await api('GET', `/v1/requests?request_id=${r.requestId}`, { key })).body,
            (await api('GET', `/v1/requests?key_id=${r.ownerKeyId}`, { key })).body,
            (await api('GET', `/v1/requests?generation_id=${r.generation}`, { key })).body,
            await (await fetch(`${s.url}/v1/requests/export`, { headers: { authorization: `Bearer ${key}` } })).text(),
          ]);
          for (const id of [r.generation, r.running, r.comparison, r.webhook, r.delivery, r.apiKey, r.ownerKeyId, r.upload, r.auditEvent, r.requestId]) expect(seen).not.toContain(id);

          // Usage reports never count them: nothing of the victim's key appears, whichever the grouping.
          for (const groupBy of ['api_key', 'model', 'day']) {
            const usage = await ok(api('GET', `/v1/usage?group_by=${groupBy}`, { key }), 200, 'usage');
            expect(JSON.stringify(usage)).not.toContain(r.ownerKeyId);
            if (intruder === 'another organization') expect(usage.totals.generations, groupBy).toBe(0);
          }
          await api('DELETE', `/v1/webhooks/${own.id}`, { key });
        });
      }

      it('a dashboard session opened with a key of another organization gets 404 for every one of them, as for an id that never existed', async () => {
        const intruder = await keySessionOf(keyOf(b, mode));
        const call = (method: string, path: string, body?: unknown) => api(method, path, { body, headers: intruder });
        const own = await ok(call('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/own', events: ['*'] }), 201, 'own webhook');
        expect(await notFoundLikeMadeUp(call, probes(r, own.id))).toEqual([]);
        const seen = JSON.stringify([
          (await call('GET', '/v1/generations?limit=100')).body,
          (await call('GET', '/v1/webhooks?limit=100')).body,
          (await call('GET', '/v1/api-keys?limit=100')).body,
          (await call('GET', '/v1/members')).body,
          (await call('GET', '/v1/organization')).body,
          (await call('GET', '/v1/audit-events?limit=100')).body,
          (await call('GET', '/v1/requests?limit=100')).body,
          (await call('GET', '/v1/sessions')).body,
        ]);
        for (const id of [r.generation, r.running, r.webhook, r.delivery, r.apiKey, r.ownerKeyId, r.upload, r.auditEvent, r.requestId, a.id, a.userId]) expect(seen).not.toContain(id);
        // It is no person: it cannot switch into A, nor anywhere.
        expect((await call('PATCH', '/v1/session', { organization_id: a.id })).body.error.code).toBe('session_required');
        await call('DELETE', `/v1/webhooks/${own.id}`);
      });

      it('a signed-in person of another organization (session cookie) gets 404 for every one of them, as for an id that never existed', async () => {
        const intruder = await sessionOf(b, mode);
        const call = (method: string, path: string, body?: unknown) => api(method, path, { body, headers: intruder });
        const own = await ok(call('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/own', events: ['*'] }), 201, 'own webhook');
        expect(await notFoundLikeMadeUp(call, probes(r, own.id))).toEqual([]);
        const seen = JSON.stringify([
          (await call('GET', '/v1/generations?limit=100')).body,
          (await call('GET', '/v1/api-keys?limit=100')).body,
          (await call('GET', '/v1/members')).body,
          (await call('GET', '/v1/organization')).body,
        ]);
        for (const id of [r.generation, r.running, r.webhook, r.apiKey, r.ownerKeyId, r.upload, a.id, a.userId]) expect(seen).not.toContain(id);
        // Nor can it switch into the organization it does not belong to.
        expect((await call('PATCH', '/v1/session', { organization_id: a.id })).status).toBe(404);
        // A passkey is its person's: another person neither lists nor removes it (404 as for one that never existed).
        const victim = await sessionOf(a, mode);
        const options = (await api('POST', '/v1/passkeys/options', { headers: victim })).body;
        const added = await ok(api('POST', '/v1/passkeys', { headers: victim, body: { credential: new SoftwareAuthenticator(s.config.publicUrl).register(options) } }), 201, 'passkey');
        const removeIt = await call('DELETE', `/v1/passkeys/${added.id}`);
        const removeGhost = await call('DELETE', `/v1/passkeys/${ghost(added.id)}`);
        expect([removeIt.status, removeIt.body.error.code]).toEqual([404, 'resource_not_found']);
        expect(removeIt.body.error.message.replace(added.id, 'X')).toBe(removeGhost.body.error.message.replace(ghost(added.id), 'X'));
        expect(JSON.stringify((await call('GET', '/v1/passkeys')).body)).not.toContain(added.id);
        expect((await api('GET', '/v1/passkeys', { headers: victim })).body.data).toEqual([expect.objectContaining({ id: added.id })]);
        await call('DELETE', `/v1/webhooks/${own.id}`);
      });

      it('after all that, every resource is intact for its owner', async () => {
        const key = keyOf(a, mode);
        expect((await api('GET', `/v1/generations/${r.running}`, { key })).body.status).toBe('running');
        expect((await api('GET', `/v1/webhooks/${r.webhook}`, { key })).body.url).toBe('http://127.0.0.1:9/none');
        const k = (await api('GET', `/v1/api-keys/${r.apiKey}`, { key })).body;
        expect(k).toMatchObject({ name: `victim ${mode}`, scopes: [] });
        expect((await api('GET', `/v1/comparisons/${r.comparison}`, { key })).status).toBe(200);
        expect((await api('GET', `/v1/uploads/${r.upload}`, { key })).body.status).toBe('uploaded');
        expect((await api('GET', `/v1/webhooks/${r.webhook}/deliveries/${r.delivery}`, { key })).status).toBe(200);
        // The output file is reachable only through its signed URL; without the signature it is 403, like a file that does not exist.
        const file = new URL(r.outputUrl);
        expect((await fetch(`${s.url}${file.pathname}${file.search}`)).status).toBe(200);
        const unsigned = await api('GET', file.pathname);
        const missing = await api('GET', '/files/out_ZZZZZZZZZZZZZZZZZZZZZZZZ.png');
        expect([unsigned.status, unsigned.body.error.code]).toEqual([403, 'signature_invalid']);
        expect([missing.status, missing.body.error.code]).toEqual([403, 'signature_invalid']);
      });
    });
  }

  it("wallets: one per organization; another organization's spending never shows in it", async () => {
    const before = (await api('GET', '/v1/wallet', { key: b.live })).body;
    const spend = await ok(api('POST', '/v1/images', { key: a.live, body: { model: 'flux-schnell', prompt: 'spend', width: 256, height: 256 } }), 200, 'spend');
    expect(spend.charged_credits).toBeGreaterThan(0);
    const after = (await api('GET', '/v1/wallet', { key: b.live })).body;
    expect(after).toEqual(before);
    expect(after.balance_credits).toBe(500_000);
    // Test keys read their own organization's wallet (contract §4), never another's.
    expect((await api('GET', '/v1/wallet', { key: b.test })).body).toEqual(after);
    expect((await api('GET', '/v1/wallet', { key: a.test })).body).toEqual((await api('GET', '/v1/wallet', { key: a.live })).body);
  });

  it('webhooks hear only their own organization and mode (no delivery rows for the others)', async () => {
    const hooks = await Promise.all(
      [a.live, a.test, b.live, b.test].map((key) => ok(api('POST', '/v1/webhooks', { key, body: { url: 'http://127.0.0.1:9/hear', events: ['generation.completed'] } }), 201, 'hook')),
    );
    const g = await ok(api('POST', '/v1/images', { key: a.test, body: { model: 'flux-schnell', prompt: 'heard', width: 256, height: 256 } }), 200, 'image');
    let counts: number[] = [];
    for (let i = 0; i < 100; i++) {
      counts = await Promise.all(
        hooks.map(async (h, j) => {
          const list = (await api('GET', `/v1/webhooks/${h.id}/deliveries`, { key: [a.live, a.test, b.live, b.test][j] })).body.data as any[];
          return list.filter((d) => d.event_type === 'generation.completed').length;
        }),
      );
      if (counts[1] === 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(counts).toEqual([0, 1, 0, 0]);
    void g;
  });

  describe('a viewer key cannot mutate anything', () => {
    it('every operation above the viewer role answers 403 insufficient_role, and nothing changes', async () => {
      const viewer = await ok(api('POST', '/v1/api-keys', { key: a.live, body: { name: 'viewer', role: 'viewer' } }), 201, 'viewer');
      const r = await makeResources('live');
      const snapshot = async () =>
        JSON.stringify([
          // Ids only: children of comparisons finish in the background meanwhile.
          (await api('GET', '/v1/generations?limit=100', { key: a.live })).body.data.map((g: any) => g.id),
          (await api('GET', `/v1/generations/${r.running}`, { key: a.live })).body.status,
          (await api('GET', '/v1/webhooks?limit=100', { key: a.live })).body.data,
          (await api('GET', '/v1/api-keys?limit=100', { key: a.live })).body.data.map((k: any) => ({ ...k, last_used_at: null })),
          // Deliveries a viewer could cause (tests and replays); generation events keep arriving in the background.
          (await api('GET', `/v1/webhooks/${r.webhook}/deliveries?limit=100`, { key: a.live })).body.data
            .filter((d: any) => d.event_type === 'webhook.test' || d.replay_of !== null)
            .map((d: any) => d.id),
          (await api('GET', '/v1/wallet', { key: a.live })).body,
          (await api('GET', '/v1/organization', { key: a.live })).body,
        ]);
      const before = await snapshot();
      const doc = (await api('GET', '/v1/openapi.json')).body;
      const ids: Record<string, string> = {
        'api-keys': r.apiKey, generations: r.generation, comparisons: r.comparison, webhooks: r.webhook, deliveries: r.delivery, uploads: r.upload, models: 'flux-schnell',
      };
      const viewerSession = await sessionOf(a, 'live', 'viewer');
      // The viewer key's dashboard session (POST /v1/session/key): the key's role, through the cookie.
      const viewerKeySession = await keySessionOf(viewer.key);
      for (const as of ['key', 'session', 'key session'] as const) {
        let mutating = 0;
        const wrong: string[] = [];
        for (const [path, ops] of Object.entries<any>(doc.paths)) {
          for (const [method, op] of Object.entries<any>(ops)) {
            if (op.security.length === 0) continue;
            // The person's own session operations: a key is refused them (session_required), a session may call them.
            if (op['x-mmgen-session-only'] && as === 'key') continue;
            // Signing out or switching would end the sweep's own session.
            if (op['x-mmgen-session-only'] && method !== 'get') continue;
            // A key's session may read its own session operations only; a person's (passkeys) are refused it.
            if (op['x-mmgen-session-only'] && as === 'key session' && !op['x-mmgen-key-session']) {
              const res = await api(method.toUpperCase(), path, { headers: viewerKeySession });
              if (res.status !== 403 || res.body.error.code !== 'session_required') wrong.push(`${as}: ${method} ${path}: ${res.status} (a person's operation)`);
              continue;
            }
            const concrete = path.replace(/\{(\w+)\}/g, (_m, name: string) => {
              const seg = path.split('/')[path.split('/').indexOf(`{${name}}`) - 1]!;
              return ids[seg] ?? 'x';
            });
            const credential = as === 'key' ? { key: viewer.key } : { headers: as === 'session' ? viewerSession : viewerKeySession };
            const res = await api(method.toUpperCase(), concrete, { ...credential, body: method === 'get' ? undefined : {} });
            if (op['x-mmgen-role'] === 'viewer') {
              if (res.status === 403) wrong.push(`${as}: ${method} ${path}: a viewer may read, got 403`);
              continue;
            }
            mutating++;
            if (res.status !== 403 || res.body.error.code !== 'insufficient_role') wrong.push(`${as}: ${method} ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 150)}`);
          }
        }
        expect(wrong).toEqual([]);
        expect(mutating).toBeGreaterThanOrEqual(20);
      }
      expect(JSON.parse(await snapshot())).toEqual(JSON.parse(before));
      await api('POST', `/v1/generations/${r.running}/cancel`, { key: a.live });
    }, 120_000);
  });

  describe('a test-mode credential makes no write of the live organization', () => {
    /**
     * The decision table of docs/contract-addenda.md ("Test mode and the organization's writes"): the writes that
     * change what live mode runs on (people, the organization's settings, single sign-on, the data policy, billing),
     * which only a live-mode credential may make. Every other write is of the caller's own mode's data, or the
     * signed-in person's own.
     */
    const LIVE_ONLY = [
      'PATCH /v1/organization', 'PATCH /v1/organization/data-policy', 'PATCH /v1/organization/moderation',
      'POST /v1/billing/checkout', 'POST /v1/billing/payment-method', 'PUT /v1/billing/auto-topup',
      'PATCH /v1/members/{id}', 'DELETE /v1/members/{id}', 'POST /v1/invitations', 'DELETE /v1/invitations/{id}',
      'PUT /v1/organization/sso', 'DELETE /v1/organization/sso',
    ].sort();

    it('the document marks exactly the decision table\'s writes x-mmgen-mode: live, and every one documents 403', async () => {
      const doc = (await api('GET', '/v1/openapi.json')).body;
      const marked: string[] = [];
      for (const [path, ops] of Object.entries<any>(doc.paths)) {
        for (const [method, op] of Object.entries<any>(ops)) {
          if (op['x-mmgen-mode'] === undefined) continue;
          expect(op['x-mmgen-mode'], `${method} ${path}`).toBe('live');
          expect(Object.keys(op.responses), `${method} ${path}`).toContain('403');
          marked.push(`${method.toUpperCase()} ${path}`);
        }
      }
      expect(marked.sort()).toEqual(LIVE_ONLY);
    });

    it('each refuses a test key, its dashboard session and a person\'s session in test mode with 403 live_mode_required, and nothing changes', async () => {
      // A second live owner (a person), and an invitation made with the live key: what a test key must not reach.
      const liveOwner = await sessionOf(a, 'live', 'owner');
      const liveOwnerId = (await ok(api('GET', '/v1/session', { headers: liveOwner }), 200, 'live owner')).member_id as string;
      const pending = await ok(api('POST', '/v1/invitations', { key: a.live, body: { email: `pending-${Date.now()}@example.test`, role: 'admin' } }), 201, 'invitation');
      const testSession = await sessionOf(a, 'test', 'owner');
      const testKeySession = await keySessionOf(a.test);
      // Bodies each operation would accept: without the check, these are the changes a test key would make.
      const bodies: Record<string, unknown> = {
        'PATCH /v1/organization': { paused: true, monthly_budget_usd: 1, budget_action: 'block' },
        'PATCH /v1/organization/data-policy': { request_log_days: 1 },
        'PATCH /v1/organization/moderation': { threshold: 0.01 },
        'POST /v1/billing/checkout': { amount: 900 },
        'POST /v1/billing/payment-method': {},
        'PUT /v1/billing/auto-topup': { enabled: false, threshold_credits: null, amount: null, monthly_cap: null },
        'PATCH /v1/members/{id}': { role: 'viewer' },
        'DELETE /v1/members/{id}': undefined,
        'POST /v1/invitations': { email: `stolen-owner-${Date.now()}@example.test`, role: 'owner' },
        'DELETE /v1/invitations/{id}': undefined,
        'PUT /v1/organization/sso': { issuer: 'https://127.0.0.1:9/issuer', client_id: 'stolen', require_sso: true },
        'DELETE /v1/organization/sso': undefined,
      };
      const ids: Record<string, string> = { members: liveOwnerId, invitations: pending.id };
      const snapshot = async () =>
        JSON.stringify([
          (await api('GET', '/v1/members', { key: a.live })).body.data.map((m: any) => ({ ...m, last_signed_in_at: null, spent_usd: null })),
          (await api('GET', '/v1/invitations', { key: a.live })).body,
          (await api('GET', '/v1/organization', { key: a.live })).body,
          // Its settings, not the horizons the clock moves.
          { ...(await api('GET', '/v1/organization/data-policy', { key: a.live })).body, expiry: null },
          (await api('GET', '/v1/organization/moderation', { key: a.live })).body,
          (await api('GET', '/v1/organization/sso', { key: a.live })).status,
          (await api('GET', '/v1/billing', { key: a.live })).body,
          (await api('GET', '/v1/api-keys?limit=100', { key: a.live })).body.data.map((k: any) => k.id),
          (await api('GET', '/v1/audit-events?limit=100', { key: a.live })).body.data.map((e: any) => e.id),
        ]);
      const before = await snapshot();
      const wrong: string[] = [];
      for (const as of ['test key', 'its dashboard session', "a person's session in test mode"] as const) {
        const credential = as === 'test key' ? { key: a.test } : { headers: as === 'its dashboard session' ? testKeySession : testSession };
        for (const op of LIVE_ONLY) {
          const [method, path] = op.split(' ') as [string, string];
          const concrete = path.replace('{id}', ids[path.split('/')[2]!]!);
          const res = await api(method, concrete, { ...credential, body: bodies[op] });
          if (res.status !== 403 || res.body.error?.code !== 'live_mode_required') wrong.push(`${as}: ${op}: ${res.status} ${JSON.stringify(res.body).slice(0, 150)}`);
        }
      }
      expect(wrong).toEqual([]);
      expect(JSON.parse(await snapshot())).toEqual(JSON.parse(before));
      // The live credentials still make them (the refusal is the mode's, not the operation's).
      expect((await api('DELETE', `/v1/invitations/${pending.id}`, { key: a.live })).status).toBe(200);
      expect((await api('PATCH', `/v1/members/${liveOwnerId}`, { headers: liveOwner, body: { monthly_budget_usd: 5 } })).status).toBe(200);
    }, 120_000);

    it('every other write is open to a test key as to a live one: its own mode\'s data, never live_mode_required', async () => {
      const doc = (await api('GET', '/v1/openapi.json')).body;
      const wrong: string[] = [];
      let writes = 0;
      for (const [path, ops] of Object.entries<any>(doc.paths)) {
        for (const [method, op] of Object.entries<any>(ops)) {
          if (method === 'get' || op.security.length === 0 || op['x-mmgen-session-only']) continue;
          if (LIVE_ONLY.includes(`${method.toUpperCase()} ${path}`)) continue;
          writes++;
          const res = await api(method.toUpperCase(), path.replace(/\{\w+\}/g, 'x'), { key: a.test, body: {} });
          if (res.body?.error?.code === 'live_mode_required') wrong.push(`${method} ${path}`);
        }
      }
      expect(wrong).toEqual([]);
      expect(writes).toBeGreaterThanOrEqual(20);
      // A test key makes test keys (never live ones: "no key can grant more than it has").
      expect((await ok(api('POST', '/v1/api-keys', { key: a.test, body: { name: 'test-made', role: 'developer' } }), 201, 'test key')).key).toMatch(/^sk_test_/);
    });
  });

  describe('no key can grant more than it has', () => {
    async function keyWith(caller: string, body: Record<string, unknown>) {
      return ok(api('POST', '/v1/api-keys', { key: caller, body: { name: 'k', ...body } }), 201, JSON.stringify(body));
    }
    const refused = async (p: Promise<ApiResponse>, what: string) => {
      const res = await p;
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(403);
      expect(res.body.error.code, what).toBe('insufficient_role');
    };

    it('not a higher role, not more scopes, not full access from a scoped key, not live from test, not even to itself', async () => {
      const admin = await keyWith(a.live, { role: 'admin', scopes: ['api_keys:manage', 'images:write'] });
      await refused(api('POST', '/v1/api-keys', { key: admin.key, body: { name: 'x', role: 'owner', scopes: ['images:write'] } }), 'owner from admin');
      await refused(api('POST', '/v1/api-keys', { key: admin.key, body: { name: 'x', scopes: [] } }), 'full access from scoped');
      await refused(api('POST', '/v1/api-keys', { key: admin.key, body: { name: 'x', scopes: ['videos:write'] } }), 'a scope it lacks');
      // To itself: it may narrow, never widen.
      await refused(api('PATCH', `/v1/api-keys/${admin.id}`, { key: admin.key, body: { scopes: [] } }), 'self to full access');
      await refused(api('PATCH', `/v1/api-keys/${admin.id}`, { key: admin.key, body: { scopes: ['api_keys:manage', 'images:write', 'usage:read'] } }), 'self plus a scope');
      const narrowed = await ok(api('PATCH', `/v1/api-keys/${admin.id}`, { key: admin.key, body: { scopes: ['api_keys:manage'] } }), 200, 'self narrowed');
      expect(narrowed.scopes).toEqual(['api_keys:manage']);
      // Test keys never make live keys.
      const testAdmin = await keyWith(a.test, { role: 'admin' });
      await refused(api('POST', '/v1/api-keys', { key: testAdmin.key, body: { name: 'x', mode: 'live' } }), 'live from test');
      // A developer manages no keys at all, its own included.
      const dev = await keyWith(a.live, { role: 'developer' });
      await refused(api('PATCH', `/v1/api-keys/${dev.id}`, { key: dev.key, body: { name: 'me' } }), 'developer edits itself');
      await refused(api('POST', '/v1/api-keys', { key: dev.key, body: { name: 'x', role: 'viewer' } }), 'developer makes a viewer');
    });

    it('a key restricted to IP ranges cannot make or widen a key to reach beyond them', async () => {
      const restricted = await keyWith(a.live, { role: 'admin', ipAllowlist: ['127.0.0.0/8', '::1/128'] });
      // Without an allowlist the new key would be usable from anywhere: it inherits the caller's.
      const inherited = await keyWith(restricted.key, {});
      expect(inherited.ipAllowlist).toEqual(['127.0.0.0/8', '::1/128']);
      const inside = await keyWith(restricted.key, { ipAllowlist: ['127.0.0.1'] });
      expect(inside.ipAllowlist).toEqual(['127.0.0.1/32']);
      for (const ipAllowlist of [[], ['0.0.0.0/0'], ['10.0.0.0/8'], ['127.0.0.0/7'], ['127.0.0.1/32', '192.168.1.1'], ['::/0']]) {
        await refused(api('POST', '/v1/api-keys', { key: restricted.key, body: { name: 'x', ipAllowlist } }), `create ${JSON.stringify(ipAllowlist)}`);
        await refused(api('PATCH', `/v1/api-keys/${inside.id}`, { key: restricted.key, body: { ipAllowlist } }), `widen another ${JSON.stringify(ipAllowlist)}`);
        await refused(api('PATCH', `/v1/api-keys/${restricted.id}`, { key: restricted.key, body: { ipAllowlist } }), `widen itself ${JSON.stringify(ipAllowlist)}`);
      }
      // Narrowing stays allowed.
      const narrowed = await ok(api('PATCH', `/v1/api-keys/${restricted.id}`, { key: restricted.key, body: { ipAllowlist: ['127.0.0.1/32', '::1'] } }), 200, 'narrow');
      expect(narrowed.ipAllowlist).toEqual(['127.0.0.1/32', '::1/128']);
      // An unrestricted key may set any allowlist, or clear one.
      const cleared = await ok(api('PATCH', `/v1/api-keys/${restricted.id}`, { key: a.live, body: { ipAllowlist: [] } }), 200, 'owner clears');
      expect(cleared.ipAllowlist).toEqual([]);
    });
  });
});

/**
 * Billing (issue 32): another organization's Checkout Session answers as one that never existed, its payments
 * never show in another's history or wallet, and a viewer cannot start a payment or change auto top-up.
 */
describeOnBackend('isolation of billing', 'postgres', (backend) => {
  let fake: FakeStripe;
  let s: TestServer;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    fake = await new FakeStripe().start();
    s = await startTestServer(backend, fake.env(), { worker: false });
    fake.endpoints = [`${s.url}/v1/billing/stripe/webhook`];
    api = client(s.url);
  });
  afterAll(async () => {
    await fake?.close();
    await s?.close();
  });

  it("another organization's Checkout Session and payments are invisible to it, and crediting stays with the payer", async () => {
    const a = await s.createOrg();
    const b = await s.createOrg();
    // b has a Stripe Customer of its own too, so the check does not stop at "no account".
    expect((await api('POST', '/v1/billing/checkout', { key: b.live, body: { amount: 500 } })).status).toBe(201);
    const started = await api('POST', '/v1/billing/checkout', { key: a.live, body: { amount: 900 } });
    expect(started.status).toBe(201);
    const cs = started.body.id as string;
    const ghost = `cs_test_${'Z'.repeat(24)}`;
    const strip = (x: ApiResponse) => ({ status: x.status, ...x.body.error, request_id: undefined, message: String(x.body.error.message).replace(ghost, cs) });
    for (const key of [b.live, b.test]) {
      const theirs = await api('GET', `/v1/billing/checkout/${cs}`, { key });
      const never = await api('GET', `/v1/billing/checkout/${ghost}`, { key });
      expect(theirs.status).toBe(404);
      expect(strip(theirs)).toEqual(strip(never));
    }
    expect(fake.completeSession(cs)).toHaveProperty('session');
    await fake.settled();
    expect((await api('GET', `/v1/billing/checkout/${cs}`, { key: b.live })).status).toBe(404);
    expect((await api('GET', '/v1/wallet', { key: a.live })).body.balance_credits).toBe(9_000);
    expect((await api('GET', '/v1/wallet', { key: b.live })).body.balance_credits).toBe(0);
    const seen = JSON.stringify((await api('GET', '/v1/billing/payments', { key: b.live })).body);
    expect(seen).not.toContain(cs);
    expect(seen).not.toContain(started.body.payment_id);
    expect(JSON.parse(seen).data).toHaveLength(1);
  });

  it('a viewer or developer starts no payment and saves no card; an admin buys but only the owner sets auto top-up', async () => {
    const a = await s.createOrg();
    const make = async (role: string) => (await api('POST', '/v1/api-keys', { key: a.live, body: { name: role, role } })).body.key as string;
    const [viewer, developer, admin] = [await make('viewer'), await make('developer'), await make('admin')];
    for (const key of [viewer, developer]) {
      expect((await api('POST', '/v1/billing/checkout', { key, body: { amount: 900 } })).body.error.code).toBe('insufficient_role');
    }
    for (const key of [viewer, developer, admin]) {
      expect((await api('POST', '/v1/billing/payment-method', { key, body: {} })).body.error.code).toBe('insufficient_role');
      expect((await api('PUT', '/v1/billing/auto-topup', { key, body: { enabled: false, threshold_credits: null, amount: null, monthly_cap: null } })).body.error.code).toBe('insufficient_role');
    }
    expect((await api('POST', '/v1/billing/checkout', { key: admin, body: { amount: 900 } })).status).toBe(201);
    expect((await api('GET', '/v1/billing/payments', { key: viewer })).body.data).toHaveLength(1);
  });
});
