import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * Credit-consuming routes may take a key from the process's cache (src/http/auth.ts),
 * confirmed by fingerprint in the statement that accepts the generation. Whatever
 * changes about the key or its organization, its very next request is decided on
 * the key as it is now, and a stale copy never gets an answer or an effect.
 * Each case warms a key of its own: a refused lookup drops the key from the cache.
 */
describeOnBackend('the key cache of credit-consuming routes', 'postgres', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;
  let image: string;
  let upscale: string;
  let inputs: Server;
  let inputUrl: string;
  let inputFetches = 0;

  beforeAll(async () => {
    // Live keys, so that generations reserve and charge; loopback image_url inputs allowed.
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_ALLOW_PRIVATE_NETWORK: '1' });
    api = client(s.url);
    org = await s.createOrg({ plan: 'team', credits: 1_000_000 });
    // A model that takes a seed (the seeded cache hit below).
    image = 'flux-schnell';
    upscale = (await api('GET', '/v1/models?modality=upscale', { key: org.live })).body.data[0].slug as string;
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 10, g: 120, b: 200 } } }).png().toBuffer();
    inputs = createServer((_req, res) => {
      inputFetches++;
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
    });
    await new Promise<void>((r) => inputs.listen(0, '127.0.0.1', r));
    inputUrl = `http://127.0.0.1:${(inputs.address() as AddressInfo).port}/in.png`;
  });
  afterAll(async () => {
    inputs?.close();
    await s?.close();
  });

  const body = (extra: Record<string, unknown> = {}) => ({ model: image, prompt: `cache ${randomBytes(4).toString('hex')}`, width: 256, height: 256, ...extra });
  const completion = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

  /** A new key of the organization, used once on `path` so that the server has it cached. */
  async function warmKey(path = '/v1/images', payload: unknown = body(), opts: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
    const created = await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'cached', ...opts } });
    expect(created.status).toBe(201);
    expect((await api('POST', path, { key: created.body.key, body: payload })).status).toBe(200);
    return { id: created.body.id, key: created.body.key };
  }

  async function revoke(id: string): Promise<void> {
    expect((await api('DELETE', `/v1/api-keys/${id}`, { key: org.live })).status).toBe(200);
  }

  async function generationsOf(keyId: string): Promise<number> {
    return (await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM generations WHERE api_key_id = $1', [keyId])).rows[0]!.n;
  }

  function expect401(res: { status: number; body: any }, what: string) {
    expect(res.status, what).toBe(401);
    expect(res.body.error.code).toBe('invalid_api_key');
  }

  it('a revoked key is refused on its very next generation, and nothing is created or reserved', async () => {
    const k = await warmKey();
    await revoke(k.id);
    const wallet = (await api('GET', '/v1/wallet', { key: org.live })).body;
    expect401(await api('POST', '/v1/images', { key: k.key, body: body() }), 'image');
    expect(await generationsOf(k.id)).toBe(1);
    expect((await api('GET', '/v1/wallet', { key: org.live })).body).toEqual(wallet);
  });

  it('the same on /v1/chat/completions', async () => {
    const k = await warmKey('/v1/chat/completions', completion);
    await revoke(k.id);
    expect401(await api('POST', '/v1/chat/completions', { key: k.key, body: completion }), 'completion');
    expect401(await api('POST', '/v1/chat/completions', { key: k.key, body: { ...completion, stream: true } }), 'streamed completion');
    expect(await generationsOf(k.id)).toBe(1);
  });

  it('a revoked key gets 401, not an answer about its request: bad input, an unknown model, a seeded cache hit, an idempotent replay', async () => {
    const badInput = await warmKey();
    await revoke(badInput.id);
    expect401(await api('POST', '/v1/images', { key: badInput.key, body: { ...body(), width: 'wide' } }), 'bad input');

    const unknownModel = await warmKey();
    await revoke(unknownModel.id);
    expect401(await api('POST', '/v1/images', { key: unknownModel.key, body: { ...body(), model: 'no-such-model' } }), 'unknown model');

    const seeded = body({ seed: 42 });
    const cacheHit = await warmKey('/v1/images', seeded);
    await revoke(cacheHit.id);
    expect401(await api('POST', '/v1/images', { key: cacheHit.key, body: seeded }), 'seeded cache hit');
    expect(await generationsOf(cacheHit.id)).toBe(1);

    const once = body();
    const idem = { 'idempotency-key': `cache-${randomBytes(4).toString('hex')}` };
    const created = await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'cached' } });
    expect((await api('POST', '/v1/images', { key: created.body.key, body: once, headers: idem })).status).toBe(200);
    await revoke(created.body.id);
    expect401(await api('POST', '/v1/images', { key: created.body.key, body: once, headers: idem }), 'idempotent replay');
  });

  it('a revoked key never has its input image fetched', async () => {
    const k = await warmKey();
    await revoke(k.id);
    const before = inputFetches;
    expect401(await api('POST', '/v1/upscale', { key: k.key, body: { model: upscale, image_url: inputUrl, scale: 2 } }), 'image_url');
    expect(inputFetches).toBe(before);
    expect(await generationsOf(k.id)).toBe(1);
  });

  it('a key that changed but still passes is served once: one generation, one charge, even on an idempotent retry', async () => {
    const k = await warmKey();
    // Narrowed, but still allowed to make images: the cached copy is stale, the request still passes.
    expect((await api('PATCH', `/v1/api-keys/${k.id}`, { key: org.live, body: { scopes: ['images:write'] } })).status).toBe(200);
    const before = (await api('GET', '/v1/wallet', { key: org.live })).body;
    const idem = { 'idempotency-key': `changed-${randomBytes(4).toString('hex')}` };
    const payload = body();
    const first = await api('POST', '/v1/images', { key: k.key, body: payload, headers: idem });
    expect(first.status).toBe(200);
    const again = await api('POST', '/v1/images', { key: k.key, body: payload, headers: idem });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(await generationsOf(k.id)).toBe(2);
    const after = (await api('GET', '/v1/wallet', { key: org.live })).body;
    expect(before.balance_credits - after.balance_credits).toBe(first.body.charged_credits);
  });

  it('a key narrowed to other scopes is refused at once', async () => {
    const k = await warmKey();
    expect((await api('PATCH', `/v1/api-keys/${k.id}`, { key: org.live, body: { scopes: ['chat:write'] } })).status).toBe(200);
    const refused = await api('POST', '/v1/images', { key: k.key, body: body() });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_role');
  });

  it('an organization paused behind the cache is refused at once; unpaused, it is served at once', async () => {
    const other = await s.createOrg({ plan: 'team', credits: 1_000_000 });
    expect((await api('POST', '/v1/images', { key: other.live, body: body() })).status).toBe(200);
    // Paused as the anomaly detector does it: straight in the database, as another node would.
    await s.db.query('UPDATE organizations SET paused = true WHERE id = $1', [other.id]);
    const refused = await api('POST', '/v1/images', { key: other.live, body: body() });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('organization_paused');
    await s.db.query('UPDATE organizations SET paused = false WHERE id = $1', [other.id]);
    expect((await api('POST', '/v1/images', { key: other.live, body: body() })).status).toBe(200);
  });

  it('an IP allowlist set behind the cache applies to the very next request', async () => {
    const ent = await s.createOrg({ plan: 'team', enterprise: true, credits: 1_000_000 });
    expect((await api('POST', '/v1/images', { key: ent.live, body: body() })).status).toBe(200);
    await s.db.query("UPDATE api_keys SET ip_allowlist = '{203.0.113.0/24}' WHERE organization_id = $1", [ent.id]);
    const refused = await api('POST', '/v1/images', { key: ent.live, body: body() });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('ip_not_allowed');
  });
});
