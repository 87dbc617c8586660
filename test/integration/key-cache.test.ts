import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeEachBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * Credit-consuming routes may take a key from the process's cache (src/http/auth.ts),
 * confirmed by fingerprint in the statement that accepts the generation. Whatever
 * changes about the key or its organization, its very next request is decided on
 * the key as it is now, and a stale copy never gets an answer or an effect.
 */
describeEachBackend('the key cache of credit-consuming routes', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;
  let image: string;

  beforeAll(async () => {
    // Live keys, so that generations reserve and charge.
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1' });
    api = client(s.url);
    org = await s.createOrg({ plan: 'team', credits: 1_000_000 });
    image = (await api('GET', '/v1/models?modality=image', { key: org.live })).body.data[0].slug as string;
  });
  afterAll(async () => s?.close());

  const body = (extra: Record<string, unknown> = {}) => ({ model: image, prompt: `cache ${randomBytes(4).toString('hex')}`, width: 256, height: 256, ...extra });

  /** A new key of the organization, used once for a generation so that the server has it cached. */
  async function warmKey(opts: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
    const created = await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'cached', ...opts } });
    expect(created.status).toBe(201);
    const first = await api('POST', '/v1/images', { key: created.body.key, body: body() });
    expect(first.status).toBe(200);
    return { id: created.body.id, key: created.body.key };
  }

  async function generationsOf(keyId: string): Promise<number> {
    return (await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM generations WHERE api_key_id = $1', [keyId])).rows[0]!.n;
  }

  it('a revoked key is refused on its very next generation, and nothing is created or reserved', async () => {
    const k = await warmKey();
    const wallet = (await api('GET', '/v1/wallet', { key: org.live })).body;
    expect((await api('DELETE', `/v1/api-keys/${k.id}`, { key: org.live })).status).toBe(200);
    for (const path of ['/v1/images', '/v1/chat/completions']) {
      const payload = path === '/v1/images' ? body() : { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };
      const res = await api('POST', path, { key: k.key, body: payload });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_api_key');
    }
    expect(await generationsOf(k.id)).toBe(1);
    expect((await api('GET', '/v1/wallet', { key: org.live })).body).toEqual(wallet);
  });

  it('a revoked key gets 401, not an answer about its request: bad input, unknown model, a seeded cache hit, an idempotent replay', async () => {
    const k = await warmKey();
    const seeded = body({ seed: 42 });
    expect((await api('POST', '/v1/images', { key: k.key, body: seeded })).status).toBe(200);
    const idem = { 'idempotency-key': `cache-${randomBytes(4).toString('hex')}` };
    const once = body();
    expect((await api('POST', '/v1/images', { key: k.key, body: once, headers: idem })).status).toBe(200);
    const before = await generationsOf(k.id);
    expect((await api('DELETE', `/v1/api-keys/${k.id}`, { key: org.live })).status).toBe(200);

    const attempts = [
      { body: { ...body(), width: 'wide' } },
      { body: { ...body(), model: 'no-such-model' } },
      { body: seeded },
      { body: once, headers: idem },
    ];
    for (const a of attempts) {
      const res = await api('POST', '/v1/images', { key: k.key, ...a });
      expect(res.status, JSON.stringify(a.body)).toBe(401);
      expect(res.body.error.code).toBe('invalid_api_key');
    }
    expect(await generationsOf(k.id)).toBe(before);
  });

  it('a key narrowed to other scopes is refused at once, and widened again is served at once', async () => {
    const k = await warmKey();
    expect((await api('PATCH', `/v1/api-keys/${k.id}`, { key: org.live, body: { scopes: ['chat:write'] } })).status).toBe(200);
    const refused = await api('POST', '/v1/images', { key: k.key, body: body() });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_role');
    expect((await api('PATCH', `/v1/api-keys/${k.id}`, { key: org.live, body: { scopes: [] } })).status).toBe(200);
    expect((await api('POST', '/v1/images', { key: k.key, body: body() })).status).toBe(200);
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
