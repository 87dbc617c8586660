import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateWebhookUrl } from '../../src/domain/webhooks/index.js';
import { DEFAULT_RETRY_POLICY, retryPolicy } from '../../src/domain/webhooks/retry-policy.js';
import { WebhookDispatcher } from '../../src/jobs/webhooks.js';
import { recordDeliveryAttempts } from '../../src/store/deliveries.js';
import { verifyWebhook } from '../../src/webhooks/verify.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

type Api = ReturnType<typeof client>;

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  event: { id: string; type: string; created_at: string; data: any };
}

/**
 * A loopback receiver. Each webhook gets its own path (/h/<name>); the
 * behaviour is chosen by the path's prefix (ok, fail, redirect). Every request
 * is checked with Stripe's verifier and with ours before it is recorded; a
 * request that fails either is recorded in `unverified` and the tests fail.
 */
class Receiver {
  server!: Server;
  url = '';
  readonly received: Received[] = [];
  readonly unverified: string[] = [];
  readonly secrets = new Map<string, string>();
  targetHits = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '';
        if (path.startsWith('/target')) {
          this.targetHits++;
          res.end('redirect followed');
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const secret = this.secrets.get(path);
        const header = req.headers['x-service-signature'] as string | undefined;
        if (!secret || !header) {
          this.unverified.push(`${path}: ${secret ? 'no signature header' : 'unknown path'}`);
        } else {
          try {
            const stripeEvent = Stripe.webhooks.constructEvent(raw, header, secret) as unknown as { id: string };
            const ours = verifyWebhook(raw, header, secret);
            expect(ours.id).toBe(stripeEvent.id);
            this.received.push({ path, headers: req.headers, raw, event: ours as Received['event'] });
          } catch (err) {
            this.unverified.push(`${path}: ${(err as Error).message}`);
          }
        }
        if (path.startsWith('/h/slow')) {
          // Longer than MMGEN_WEBHOOK_TIMEOUT_MS (2 s): a 200 that comes too late is a failure.
          const t = setTimeout(() => res.end('late'), 3000);
          res.on('close', () => clearTimeout(t));
        } else if (path.startsWith('/h/fail')) {
          res.writeHead(500);
          res.end('nope');
        } else if (path.startsWith('/h/redirect')) {
          res.writeHead(302, { location: `${this.url}/target` });
          res.end();
        } else {
          res.end('ok');
        }
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async waitFor(path: string, n: number, timeoutMs = 15_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.at(path).length < n) {
      if (Date.now() > deadline) throw new Error(`${path}: ${this.at(path).length} of ${n} deliveries arrived`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.at(path);
  }
}

let hookCounter = 0;

describe('webhook URL rules', () => {
  it('live needs https unless private networks are allowed; test may use http', () => {
    expect(() => validateWebhookUrl('http://example.com/h', 'live', false)).toThrow(/https/);
    expect(validateWebhookUrl('https://example.com/h', 'live', false)).toBe('https://example.com/h');
    expect(validateWebhookUrl('http://example.com/h', 'test', false)).toBe('http://example.com/h');
    expect(validateWebhookUrl('http://127.0.0.1:9/h', 'live', true)).toBe('http://127.0.0.1:9/h');
  });

  it('refuses other schemes, credentials and non-public IP literals when guarded', () => {
    expect(() => validateWebhookUrl('ftp://example.com/', 'test', true)).toThrow(/https/);
    expect(() => validateWebhookUrl('https://u:p@example.com/', 'live', false)).toThrow(/user name/);
    for (const u of ['https://127.0.0.1/', 'https://[::1]/', 'https://169.254.169.254/', 'https://10.0.0.1/', 'http://2130706433/']) {
      expect(() => validateWebhookUrl(u, 'test', false), u).toThrow(/public addresses/);
    }
    expect(() => validateWebhookUrl('not a url', 'test', true)).toThrow(/absolute/);
  });
});

describeOnBackend('webhooks', 'postgres', (backend) => {
  let s: TestServer;
  let api: Api;
  const rx = new Receiver();

  beforeAll(async () => {
    await rx.start();
    s = await startTestServer(backend, {
      MMGEN_SIMULATE_PROVIDERS: '1',
      MMGEN_ALLOW_PRIVATE_NETWORK: '1',
      MMGEN_WEBHOOK_RETRY_DELAYS: '0.05,0.05,0.05,0.05,0.05',
      MMGEN_WEBHOOK_TIMEOUT_MS: '2000',
    });
    api = client(s.url);
  });
  afterAll(async () => {
    await s?.close();
    await rx.close();
    // Every single delivery, in every test, passed both verifiers.
    expect(rx.unverified).toEqual([]);
  });

  /** Creates a webhook whose receiver path behaves as `kind`; returns it with its path. */
  async function hook(key: string, events: string[], kind: 'ok' | 'fail' | 'redirect' | 'slow' = 'ok') {
    const path = `/h/${kind}-${++hookCounter}`;
    const res = await api('POST', '/v1/webhooks', { key, body: { url: `${rx.url}${path}`, events } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    rx.secrets.set(path, res.body.secret);
    return { ...res.body, path } as { id: string; secret: string; path: string; url: string; mode: string };
  }

  function imageSlug(): string {
    return s.runtime.deps.catalog.list({ modality: 'image' })[0]!.slug;
  }

  async function image(key: string, extra: Record<string, unknown> = {}) {
    return api('POST', '/v1/images', { key, body: { model: imageSlug(), prompt: 'a webhook', width: 256, height: 256, ...extra } });
  }

  async function deliveries(key: string, webhookId: string) {
    const res = await api('GET', `/v1/webhooks/${webhookId}/deliveries?limit=100`, { key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as any[];
  }

  async function waitDelivery(key: string, webhookId: string, pred: (d: any) => boolean, timeoutMs = 15_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = (await deliveries(key, webhookId)).find(pred);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching delivery of ${webhookId}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const settle = () => new Promise((r) => setTimeout(r, 400));

  describe('events nobody hears', () => {
    it('are written already fanned out; an organization with a webhook in the mode gets them fanned out and delivered', async () => {
      const org = await s.createOrg({ credits: 1_000_000 });
      const eventsOf = async (generationId: string) =>
        (
          await s.db.query<{ type: string; created_at: Date; fanned_out_at: Date | null }>(
            `SELECT type, created_at, fanned_out_at FROM events WHERE organization_id = $1 AND data->>'generation_id' = $2`,
            [org.id, generationId],
          )
        ).rows;
      // Born fanned out: its fanned_out_at is the writing transaction's now(), its created_at.
      const born = async (generationId: string) => {
        const rows = await eventsOf(generationId);
        expect(rows.map((r) => r.type)).toEqual(['generation.completed']);
        expect(rows[0]!.fanned_out_at?.getTime()).toBe(rows[0]!.created_at.getTime());
      };
      const quiet = await image(org.test);
      expect(quiet.status).toBe(200);
      await born(quiet.body.id);

      const h = await hook(org.test, ['generation.completed']);
      // A webhook in the other mode hears nothing of this one.
      const live = await image(org.live);
      expect(live.status).toBe(200);
      await born(live.body.id);
      const heard = await image(org.test);
      expect(heard.status).toBe(200);
      const got = await rx.waitFor(h.path, 1);
      expect(got.map((r) => [r.event.type, r.event.data.generation_id])).toEqual([['generation.completed', heard.body.id]]);
      const [row] = await eventsOf(heard.body.id);
      expect(row!.fanned_out_at!.getTime()).toBeGreaterThan(row!.created_at.getTime());

      expect((await api('DELETE', `/v1/webhooks/${h.id}`, { key: org.test })).status).toBe(200);
      const after = await image(org.test);
      await born(after.body.id);
    });
  });

  describe('CRUD', () => {
    let org: TestOrg;
    beforeAll(async () => {
      org = await s.createOrg();
    });

    it('creates: 201 with every field and the secret, which is never shown again', async () => {
      const res = await api('POST', '/v1/webhooks', { key: org.live, body: { url: `${rx.url}/h/crud`, events: ['generation.completed', 'generation.completed'] } });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ object: 'webhook', url: `${rx.url}/h/crud`, events: ['generation.completed'], enabled: true, mode: 'live' });
      expect(Object.keys(res.body).sort()).toEqual(['created_at', 'enabled', 'events', 'id', 'mode', 'object', 'secret', 'url']);
      expect(res.body.id).toMatch(/^whk_[0-9A-Za-z]{24}$/);
      expect(res.body.secret).toMatch(/^whsec_[0-9A-Za-z]{32,}$/);
      expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);

      const got = await api('GET', `/v1/webhooks/${res.body.id}`, { key: org.live });
      expect(got.status).toBe(200);
      expect(got.body.secret).toBeUndefined();
      const { secret: _secret, ...rest } = res.body;
      expect(got.body).toEqual(rest);
      const list = await api('GET', '/v1/webhooks', { key: org.live });
      expect(list.body).toMatchObject({ object: 'list', has_more: false });
      expect(list.body.data.map((w: any) => w.id)).toContain(res.body.id);
      expect(JSON.stringify(list.body)).not.toContain(res.body.secret);

      const other = await api('POST', '/v1/webhooks', { key: org.live, body: { url: `${rx.url}/h/crud2`, events: ['*'] } });
      expect(other.body.secret).not.toBe(res.body.secret);
    });

    it('lists newest first with paging', async () => {
      const o = await s.createOrg();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await api('POST', '/v1/webhooks', { key: o.test, body: { url: `${rx.url}/h/p${i}`, events: ['*'] } })).body.id);
      const page1 = await api('GET', '/v1/webhooks?limit=2', { key: o.test });
      expect(page1.body.data.map((w: any) => w.id)).toEqual([ids[2], ids[1]]);
      expect(page1.body.has_more).toBe(true);
      const page2 = await api('GET', `/v1/webhooks?limit=2&starting_after=${ids[1]}`, { key: o.test });
      expect(page2.body.data.map((w: any) => w.id)).toEqual([ids[0]]);
      expect(page2.body.has_more).toBe(false);
    });

    it('updates url, events and enabled; deletes', async () => {
      const w = (await api('POST', '/v1/webhooks', { key: org.live, body: { url: `${rx.url}/h/u1`, events: ['*'] } })).body;
      const up = await api('PATCH', `/v1/webhooks/${w.id}`, { key: org.live, body: { url: `${rx.url}/h/u2`, events: ['generation.failed', 'usage.anomaly_detected'], enabled: false } });
      expect(up.status).toBe(200);
      expect(up.body).toMatchObject({ id: w.id, object: 'webhook', url: `${rx.url}/h/u2`, events: ['generation.failed', 'usage.anomaly_detected'], enabled: false, mode: 'live' });
      expect(up.body.secret).toBeUndefined();
      const empty = await api('PATCH', `/v1/webhooks/${w.id}`, { key: org.live, body: {} });
      expect(empty.body).toEqual(up.body);

      const del = await api('DELETE', `/v1/webhooks/${w.id}`, { key: org.live });
      expect(del.status).toBe(200);
      expect(del.body).toEqual({ id: w.id, object: 'webhook', deleted: true });
      for (const [method, path] of [['GET', `/v1/webhooks/${w.id}`], ['PATCH', `/v1/webhooks/${w.id}`], ['DELETE', `/v1/webhooks/${w.id}`], ['GET', `/v1/webhooks/${w.id}/deliveries`]] as const) {
        const res = await api(method, path, { key: org.live, ...(method === 'PATCH' ? { body: { enabled: true } } : {}) });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body.error.code).toBe('resource_not_found');
      }
      expect((await api('GET', '/v1/webhooks?limit=100', { key: org.live })).body.data.map((x: any) => x.id)).not.toContain(w.id);
    });

    it('validates url and events: 400 with the parameter named', async () => {
      const cases: Array<[unknown, string, string]> = [
        [{ url: 'not a url', events: ['*'] }, 'parameter_invalid', 'url'],
        [{ url: 'ftp://example.com/x', events: ['*'] }, 'parameter_invalid', 'url'],
        [{ url: `${rx.url}/h/x`, events: [] }, 'parameter_invalid', 'events'],
        [{ url: `${rx.url}/h/x`, events: ['generation.done'] }, 'parameter_invalid', 'events[0]'],
        [{ url: `${rx.url}/h/x`, events: ['webhook.test'] }, 'parameter_invalid', 'events[0]'],
        [{ url: `${rx.url}/h/x`, events: '*' }, 'parameter_invalid', 'events'],
        [{ url: `${rx.url}/h/x` }, 'parameter_missing', 'events'],
        [{ events: ['*'] }, 'parameter_missing', 'url'],
        [{ url: `${rx.url}/h/x`, events: ['*'], secret: 'whsec_mine' }, 'parameter_unknown', 'secret'],
      ];
      for (const [body, code, param] of cases) {
        const res = await api('POST', '/v1/webhooks', { key: org.live, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error, JSON.stringify(body)).toMatchObject({ code, param });
      }
      const w = (await api('POST', '/v1/webhooks', { key: org.live, body: { url: `${rx.url}/h/v`, events: ['*'] } })).body;
      const bad = await api('PATCH', `/v1/webhooks/${w.id}`, { key: org.live, body: { events: [] } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.param).toBe('events');
    });

    it('another organization and the other mode get 404; nothing of theirs is listed', async () => {
      const other = await s.createOrg();
      const w = (await api('POST', '/v1/webhooks', { key: org.live, body: { url: `${rx.url}/h/iso`, events: ['*'] } })).body;
      for (const key of [other.live, other.test, org.test]) {
        for (const [method, path] of [
          ['GET', `/v1/webhooks/${w.id}`],
          ['PATCH', `/v1/webhooks/${w.id}`],
          ['DELETE', `/v1/webhooks/${w.id}`],
          ['GET', `/v1/webhooks/${w.id}/deliveries`],
          ['POST', `/v1/webhooks/${w.id}/test`],
        ] as const) {
          const res = await api(method, path, { key, ...(method === 'PATCH' ? { body: { enabled: false } } : {}) });
          expect(res.status, `${method} ${path}`).toBe(404);
        }
        expect((await api('GET', '/v1/webhooks?limit=100', { key })).body.data.map((x: any) => x.id)).not.toContain(w.id);
      }
      expect((await api('GET', `/v1/webhooks/${w.id}`, { key: org.live })).body.enabled).toBe(true);
    });

    it('needs webhooks:manage; a viewer reads, a developer writes', async () => {
      const mk = async (body: Record<string, unknown>) => (await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'k', ...body } })).body.key as string;
      const unscoped = await mk({ scopes: ['images:write'] });
      const viewer = await mk({ role: 'viewer', scopes: ['webhooks:manage'] });
      const developer = await mk({ role: 'developer', scopes: ['webhooks:manage'] });
      const body = { url: `${rx.url}/h/scoped`, events: ['*'] };
      const denied = await api('POST', '/v1/webhooks', { key: unscoped, body });
      expect(denied.status).toBe(403);
      expect(denied.body.error.code).toBe('insufficient_role');
      expect((await api('GET', '/v1/webhooks', { key: unscoped })).status).toBe(403);
      expect((await api('POST', '/v1/webhooks', { key: viewer, body })).status).toBe(403);
      expect((await api('GET', '/v1/webhooks', { key: viewer })).status).toBe(200);
      const made = await api('POST', '/v1/webhooks', { key: developer, body });
      expect(made.status).toBe(201);
      expect((await api('GET', `/v1/webhooks/${made.body.id}/deliveries`, { key: viewer })).status).toBe(200);
      expect((await api('POST', `/v1/webhooks/${made.body.id}/test`, { key: viewer })).status).toBe(403);
      expect((await api('DELETE', `/v1/webhooks/${made.body.id}`, { key: viewer })).status).toBe(403);
      expect((await api('DELETE', `/v1/webhooks/${made.body.id}`, { key: developer })).status).toBe(200);
    });
  });

  describe('delivery', () => {
    it('a generation makes exactly one generation.completed delivery, signed, with the spec headers and data', async () => {
      const org = await s.createOrg();
      const w = await hook(org.test, ['generation.completed']);
      const res = await image(org.test);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const [got] = await rx.waitFor(w.path, 1);
      await settle();
      expect(rx.at(w.path)).toHaveLength(1);
      const ev = got!.event;
      expect(ev.id).toMatch(/^evt_/);
      expect(Object.keys(ev).sort()).toEqual(['created_at', 'data', 'id', 'type']);
      expect(ev.type).toBe('generation.completed');
      expect(new Date(ev.created_at).toISOString()).toBe(ev.created_at);
      expect(ev.data).toMatchObject({ generation_id: res.body.id, modality: 'image', status: 'succeeded', charged_credits: 0 });
      expect(got!.headers['content-type']).toBe('application/json');
      expect(got!.headers['x-service-event']).toBe('generation.completed');
      expect(got!.headers['x-service-delivery']).toMatch(/^whd_[0-9A-Za-z]{24}$/);
      expect(got!.headers['user-agent']).toMatch(/^mmgen-webhooks/);
      expect(got!.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

      const ds = await waitDelivery(org.test, w.id, (d) => d.status === 'succeeded');
      expect(ds).toMatchObject({
        id: got!.headers['x-service-delivery'],
        object: 'webhook_delivery',
        webhook_id: w.id,
        event_id: ev.id,
        event_type: 'generation.completed',
        attempts: 1,
        next_attempt_at: null,
        last_response_status: 200,
        last_error: null,
        replay_of: null,
      });
      const one = await api('GET', `/v1/webhooks/${w.id}/deliveries/${ds.id}`, { key: org.test });
      expect(one.status).toBe(200);
      expect(one.body.attempt_log).toHaveLength(1);
      expect(one.body.attempt_log[0]).toMatchObject({ attempt: 1, response_status: 200, error: null });
    });

    it('a live generation is charged and its event says so', async () => {
      const org = await s.createOrg({ credits: 100_000 });
      const w = await hook(org.live, ['generation.completed']);
      const res = await image(org.live);
      expect(res.status).toBe(200);
      const [got] = await rx.waitFor(w.path, 1);
      expect(got!.event.data).toMatchObject({ generation_id: res.body.id, charged_credits: res.body.charged_credits });
      expect(res.body.charged_credits).toBeGreaterThan(0);
    });

    it('a cache hit is a generation like any other: it delivers generation.completed with charged_credits 0', async () => {
      const org = await s.createOrg({ credits: 100_000 });
      const w = await hook(org.live, ['generation.completed']);
      const first = await image(org.live, { model: 'flux-schnell', seed: 7, prompt: 'seeded for the cache' });
      expect(first.body, JSON.stringify(first.body)).toMatchObject({ cache_hit: false });
      expect(first.body.charged_credits).toBeGreaterThan(0);
      const hit = await image(org.live, { model: 'flux-schnell', seed: 7, prompt: 'seeded for the cache' });
      expect(hit.body).toMatchObject({ cache_hit: true, charged_credits: 0 });
      const got = await rx.waitFor(w.path, 2);
      await settle();
      expect(rx.at(w.path)).toHaveLength(2);
      const byGeneration = new Map(got.map((d) => [d.event.data.generation_id, d.event]));
      expect(byGeneration.get(first.body.id)).toMatchObject({ type: 'generation.completed', data: { charged_credits: first.body.charged_credits } });
      expect(byGeneration.get(hit.body.id)).toMatchObject({
        type: 'generation.completed',
        data: { generation_id: hit.body.id, modality: 'image', status: 'succeeded', charged_credits: 0 },
      });
    });

    it('a failed generation makes generation.failed', async () => {
      const org = await s.createOrg();
      const w = await hook(org.test, ['generation.failed']);
      const res = await image(org.test, { simulate: { outcome: 'failure' } });
      expect(res.status).toBe(502);
      const [got] = await rx.waitFor(w.path, 1);
      expect(got!.event.type).toBe('generation.failed');
      expect(got!.event.data).toMatchObject({ modality: 'image', status: 'failed', charged_credits: 0 });
      expect(got!.event.data.error.code).toBe('upstream_error');
      expect(res.body.error.message).toContain(got!.event.data.generation_id);
    });

    it('filters by event type; * gets everything; a disabled webhook nothing', async () => {
      const org = await s.createOrg();
      const onlyFailed = await hook(org.test, ['generation.failed']);
      const onlyCompleted = await hook(org.test, ['generation.completed']);
      const all = await hook(org.test, ['*']);
      const off = await hook(org.test, ['*']);
      expect((await api('PATCH', `/v1/webhooks/${off.id}`, { key: org.test, body: { enabled: false } })).body.enabled).toBe(false);
      await image(org.test);
      await image(org.test, { simulate: { outcome: 'failure' } });
      const got = await rx.waitFor(all.path, 2);
      await rx.waitFor(onlyFailed.path, 1);
      await rx.waitFor(onlyCompleted.path, 1);
      await settle();
      expect(got.map((r) => r.event.type).sort()).toEqual(['generation.completed', 'generation.failed']);
      expect(rx.at(onlyFailed.path).map((r) => r.event.type)).toEqual(['generation.failed']);
      expect(rx.at(onlyCompleted.path).map((r) => r.event.type)).toEqual(['generation.completed']);
      expect(rx.at(off.path)).toHaveLength(0);
      expect(await deliveries(org.test, off.id)).toHaveLength(0);
      // The same event reaches each webhook under its own delivery id.
      const completedAll = got.find((r) => r.event.type === 'generation.completed')!;
      const completedOne = rx.at(onlyCompleted.path)[0]!;
      expect(completedAll.event.id).toBe(completedOne.event.id);
      expect(completedAll.headers['x-service-delivery']).not.toBe(completedOne.headers['x-service-delivery']);
    });

    it('never delivers an event of another organization or of the other mode', async () => {
      const org = await s.createOrg({ credits: 100_000 });
      const other = await s.createOrg({ credits: 100_000 });
      const live = await hook(org.live, ['*']);
      const test = await hook(org.test, ['*']);
      const otherLive = await hook(other.live, ['*']);
      const otherTest = await hook(other.test, ['*']);
      const g1 = (await image(org.live)).body;
      const g2 = (await image(org.test)).body;
      await rx.waitFor(live.path, 1);
      await rx.waitFor(test.path, 1);
      await settle();
      expect(rx.at(live.path).map((r) => r.event.data.generation_id)).toEqual([g1.id]);
      expect(rx.at(test.path).map((r) => r.event.data.generation_id)).toEqual([g2.id]);
      expect(rx.at(otherLive.path)).toHaveLength(0);
      expect(rx.at(otherTest.path)).toHaveLength(0);
    });

    it('a receiver answering 500 gets exactly 6 attempts, then the delivery is exhausted with 6 recorded attempts', async () => {
      const org = await s.createOrg();
      const w = await hook(org.test, ['generation.completed'], 'fail');
      await image(org.test);
      const d = await waitDelivery(org.test, w.id, (x) => x.status === 'exhausted');
      await settle();
      const got = rx.at(w.path);
      expect(got).toHaveLength(6);
      // One delivery, one id, one event, on every attempt.
      expect(new Set(got.map((r) => r.headers['x-service-delivery']))).toEqual(new Set([d.id]));
      expect(new Set(got.map((r) => r.event.id)).size).toBe(1);
      expect(new Set(got.map((r) => r.raw)).size).toBe(1);
      expect(d).toMatchObject({ attempts: 6, next_attempt_at: null, last_response_status: 500 });
      // Six is the configured policy's count: its five delays and the first attempt.
      expect(s.runtime.deps.config.webhookRetries).toEqual({ delaysS: [0.05, 0.05, 0.05, 0.05, 0.05], maxAttempts: 6 });
      expect(d.last_error).toMatch(/500/);
      const one = (await api('GET', `/v1/webhooks/${w.id}/deliveries/${d.id}`, { key: org.test })).body;
      expect(one.attempt_log.map((a: any) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(one.attempt_log.every((a: any) => a.response_status === 500 && /500/.test(a.error))).toBe(true);
      const exhausted = await api('GET', `/v1/webhooks/${w.id}/deliveries?status=exhausted`, { key: org.test });
      expect(exhausted.body.data.map((x: any) => x.id)).toEqual([d.id]);
      expect((await api('GET', `/v1/webhooks/${w.id}/deliveries?status=succeeded`, { key: org.test })).body.data).toEqual([]);
    });

    it('a redirect is a failure and its target is never called', async () => {
      const org = await s.createOrg();
      const w = await hook(org.test, ['generation.completed'], 'redirect');
      const before = rx.targetHits;
      await image(org.test);
      const d = await waitDelivery(org.test, w.id, (x) => x.status === 'exhausted');
      expect(d).toMatchObject({ attempts: 6, last_response_status: 302 });
      expect(d.last_error).toMatch(/redirect/);
      expect(rx.at(w.path)).toHaveLength(6);
      expect(rx.targetHits).toBe(before);
    });

    it('replay: 202 with a new delivery of the same event, delivered again', async () => {
      const org = await s.createOrg();
      const w = await hook(org.test, ['generation.completed']);
      await image(org.test);
      const [first] = await rx.waitFor(w.path, 1);
      const original = await waitDelivery(org.test, w.id, (x) => x.status === 'succeeded');
      const res = await api('POST', `/v1/webhooks/${w.id}/deliveries/${original.id}/replay`, { key: org.test });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body).toMatchObject({ object: 'webhook_delivery', webhook_id: w.id, event_id: original.event_id, event_type: 'generation.completed', status: 'pending', attempts: 0, replay_of: original.id });
      expect(res.body.id).toMatch(/^whd_/);
      expect(res.body.id).not.toBe(original.id);
      const got = await rx.waitFor(w.path, 2);
      expect(got[1]!.event.id).toBe(first!.event.id);
      expect(got[1]!.raw).toBe(first!.raw);
      expect(got[1]!.headers['x-service-delivery']).toBe(res.body.id);
      await waitDelivery(org.test, w.id, (x) => x.id === res.body.id && x.status === 'succeeded');
      // Newest first.
      expect((await deliveries(org.test, w.id)).map((x) => x.id)).toEqual([res.body.id, original.id]);
      // Replaying an exhausted delivery works the same; unknown ones are 404.
      const missing = await api('POST', `/v1/webhooks/${w.id}/deliveries/whd_nope/replay`, { key: org.test });
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('resource_not_found');
      const other = await hook(org.test, ['*']);
      expect((await api('POST', `/v1/webhooks/${other.id}/deliveries/${original.id}/replay`, { key: org.test })).status).toBe(404);
      expect((await api('GET', `/v1/webhooks/${other.id}/deliveries/${original.id}`, { key: org.test })).status).toBe(404);
    });

    it('the test event goes to that webhook only, whatever its filter', async () => {
      const org = await s.createOrg();
      const w = await hook(org.test, ['usage.anomaly_detected']);
      const all = await hook(org.test, ['*']);
      const res = await api('POST', `/v1/webhooks/${w.id}/test`, { key: org.test });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body).toMatchObject({ object: 'webhook_delivery', webhook_id: w.id, event_type: 'webhook.test', status: 'pending' });
      const [got] = await rx.waitFor(w.path, 1);
      expect(got!.event).toMatchObject({ id: res.body.event_id, type: 'webhook.test', data: { webhook_id: w.id } });
      expect(got!.headers['x-service-event']).toBe('webhook.test');
      expect(got!.headers['x-service-delivery']).toBe(res.body.id);
      await settle();
      expect(rx.at(all.path)).toHaveLength(0);
      // Even while disabled: it was asked for explicitly.
      await api('PATCH', `/v1/webhooks/${w.id}`, { key: org.test, body: { enabled: false } });
      const again = await api('POST', `/v1/webhooks/${w.id}/test`, { key: org.test });
      expect(again.status).toBe(202);
      await rx.waitFor(w.path, 2);
    });

    it('retries pause while a webhook is disabled and resume when it is enabled again', async () => {
      const org = await s.createOrg();
      const w = await hook(org.test, ['generation.completed'], 'fail');
      await image(org.test);
      await rx.waitFor(w.path, 1);
      await api('PATCH', `/v1/webhooks/${w.id}`, { key: org.test, body: { enabled: false } });
      await settle();
      const paused = rx.at(w.path).length;
      expect(paused).toBeLessThan(6);
      await settle();
      expect(rx.at(w.path)).toHaveLength(paused);
      const [d] = await deliveries(org.test, w.id);
      expect(d).toMatchObject({ status: 'failed', next_attempt_at: null });
      await api('PATCH', `/v1/webhooks/${w.id}`, { key: org.test, body: { enabled: true } });
      await waitDelivery(org.test, w.id, (x) => x.status === 'exhausted');
      expect(rx.at(w.path)).toHaveLength(6);
    });

    it('an answer later than the timeout is a failed attempt', async () => {
      const org = await s.createOrg();
      const w = await hook(org.test, ['generation.completed'], 'slow');
      await image(org.test);
      const d = await waitDelivery(org.test, w.id, (x) => x.attempts >= 1);
      expect(d).toMatchObject({ status: 'failed', last_response_status: null });
      expect(d.last_error).toMatch(/2000 ms|timed out/);
      const one = (await api('GET', `/v1/webhooks/${w.id}/deliveries/${d.id}`, { key: org.test })).body;
      expect(one.attempt_log[0].duration_ms).toBeGreaterThanOrEqual(1900);
      expect(one.attempt_log[0].duration_ms).toBeLessThan(3000);
      await api('DELETE', `/v1/webhooks/${w.id}`, { key: org.test });
    });

    it('two dispatchers (two nodes) on one database deliver each event exactly once', async () => {
      const org = await s.createOrg();
      const w = await hook(org.test, ['generation.completed']);
      const second = new WebhookDispatcher({ ...s.runtime.deps, nodeId: 'second-node' });
      second.start();
      try {
        const n = 150;
        await s.db.query(
          `INSERT INTO events (id, organization_id, mode, type, data)
           SELECT 'evt_multi' || g || $2, $1, 'test', 'generation.completed', jsonb_build_object('generation_id', 'gen_' || g)
           FROM generate_series(1, $3::int) g`,
          [org.id, w.id.slice(4, 12), n],
        );
        await rx.waitFor(w.path, n);
        // Every delivery ends succeeded (a loaded machine may make an answer miss the 2 s deadline: that is one more attempt).
        for (const deadline = Date.now() + 30_000; ; ) {
          const open = await s.db.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND status <> 'succeeded'", [w.id]);
          if (open.rows[0]!.n === 0) break;
          if (Date.now() > deadline) throw new Error(`${open.rows[0]!.n} deliveries never succeeded`);
          await new Promise((r) => setTimeout(r, 50));
        }
        await settle();
        const got = rx.at(w.path);
        expect(new Set(got.map((r) => r.event.id)).size).toBe(n);
        expect(new Set(got.map((r) => r.headers['x-service-delivery'])).size).toBe(n);
        // Each attempt is made by one node only: the receiver saw exactly the attempts the two nodes recorded.
        const recorded = await s.db.query<{ deliveries: number; attempts: number }>(
          "SELECT count(*)::int AS deliveries, sum(attempts)::int AS attempts FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'succeeded'",
          [w.id],
        );
        expect(recorded.rows[0]!.deliveries).toBe(n);
        expect(got).toHaveLength(recorded.rows[0]!.attempts);
      } finally {
        await second.stop(1000);
      }
    });

    it('the recording statement takes the attempt limit and every delay from the policy it is given', async () => {
      const org = await s.createOrg();
      const owner = 'policy-probe';
      // Not through the API: a delivery no dispatcher may claim (leased to `owner`, nothing scheduled), on an event fan-out never sees.
      const webhookId = `whk_policy${hookCounter++}`;
      await s.db.query(`INSERT INTO webhooks (id, organization_id, mode, url, events, secret) VALUES ($1, $2, 'test', 'http://127.0.0.1:9/', '{*}', $3)`, [
        webhookId, org.id, `whsec_${webhookId}`,
      ]);
      for (const policy of [DEFAULT_RETRY_POLICY, retryPolicy([3600, 7200])]) {
        const id = `whd_${webhookId}_${policy.maxAttempts}`;
        await s.db.query(`INSERT INTO events (id, organization_id, mode, type, data, fanned_out_at) VALUES ($1, $2, 'test', 'webhook.test', '{}', now())`, [`evt_${id}`, org.id]);
        await s.db.query(
          `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, organization_id, mode, lease_owner, lease_expires_at)
           VALUES ($1, $2, $3, 'webhook.test', $4, 'test', $5, now() + interval '1 hour')`,
          [id, webhookId, `evt_${id}`, org.id, owner],
        );
        const waits: (number | null)[] = [];
        for (let n = 1; n <= policy.maxAttempts; n++) {
          await recordDeliveryAttempts(s.db, owner, [{ id, ok: false, responseStatus: 500, error: 'HTTP 500', startedAt: new Date(), durationMs: 1 }], policy);
          const row = (await s.db.query<{ status: string; attempts: number; wait: number | null; lease_owner: string | null }>(
            `SELECT status, attempts, extract(epoch FROM next_attempt_at - updated_at)::float8 AS wait, lease_owner FROM webhook_deliveries WHERE id = $1`,
            [id],
          )).rows[0]!;
          expect(row, `attempt ${n} of ${policy.maxAttempts}`).toMatchObject({ attempts: n, status: n < policy.maxAttempts ? 'failed' : 'exhausted', lease_owner: null });
          waits.push(row.wait);
          // Leased again, as the claim of the next attempt would.
          if (n < policy.maxAttempts) await s.db.query(`UPDATE webhook_deliveries SET lease_owner = $2, lease_expires_at = now() + interval '1 hour' WHERE id = $1`, [id, owner]);
        }
        // After failure n the delivery waits delaysS[n - 1]; after the last one nothing is scheduled.
        expect(waits).toEqual([...policy.delaysS, null]);
        const attempts = await s.db.query<{ attempt: number }>('SELECT attempt FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt', [id]);
        expect(attempts.rows.map((a) => a.attempt)).toEqual(Array.from({ length: policy.maxAttempts }, (_, i) => i + 1));
      }
    });

    it('a deleted webhook gets nothing more', async () => {
      const org = await s.createOrg();
      const w = await hook(org.test, ['*']);
      await api('DELETE', `/v1/webhooks/${w.id}`, { key: org.test });
      await image(org.test);
      await settle();
      expect(rx.at(w.path)).toHaveLength(0);
    });
  });
});
