import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/domain/api-keys.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

describeOnBackend('API keys', 'pglite', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;
  let other: TestOrg;

  beforeAll(async () => {
    s = await startTestServer(backend);
    api = client(s.url);
    org = await s.createOrg();
    other = await s.createOrg();
  });
  afterAll(async () => s?.close());

  async function makeKey(key: string, body: Record<string, unknown>) {
    const res = await api('POST', '/v1/api-keys', { key, body: { name: 'k', ...body } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; key: string; role: string; scopes: string[] };
  }

  describe('CRUD', () => {
    it('GET /v1/api-keys/current: any key reads its own record, without the api_keys:manage scope', async () => {
      const narrow = await makeKey(org.live, { name: 'viewer ci', role: 'viewer', scopes: ['usage:read'] });
      const res = await api('GET', '/v1/api-keys/current', { key: narrow.key });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: narrow.id, object: 'api_key', name: 'viewer ci', mode: 'live', role: 'viewer', scopes: ['usage:read'] });
      expect(res.body.key).toBeUndefined();
      // The same key cannot read other keys.
      expect((await api('GET', `/v1/api-keys/${narrow.id}`, { key: narrow.key })).status).toBe(403);
      const test = await api('GET', '/v1/api-keys/current', { key: org.test });
      expect(test.body).toMatchObject({ mode: 'test', role: 'owner', scopes: [] });
      expect((await api('GET', '/v1/api-keys/current', {})).status).toBe(401);
    });

    it('creates a key: 201, every field, the secret once', async () => {
      const res = await api('POST', '/v1/api-keys', {
        key: org.live,
        body: { name: 'ci deploy', scopes: ['images:write', 'generations:read'], monthly_budget_usd: 25.5 },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        object: 'api_key',
        name: 'ci deploy',
        mode: 'live',
        role: 'owner',
        scopes: ['images:write', 'generations:read'],
        ipAllowlist: [],
        monthly_budget_usd: 25.5,
        last_used_at: null,
      });
      expect(res.body.id).toMatch(/^key_[0-9A-Za-z]{24}$/);
      expect(res.body.key).toMatch(/^sk_live_[0-9A-Za-z]{32,}$/);
      expect(res.body.key.startsWith(res.body.prefix)).toBe(true);
      expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);

      // Only the SHA-256 is stored.
      const rows = await s.db.query<{ secret_sha256: string }>('SELECT secret_sha256 FROM api_keys WHERE id = $1', [res.body.id]);
      expect(rows.rows[0]!.secret_sha256).toBe(hashSecret(res.body.key));
      const dump = await s.db.query<{ t: string }>("SELECT string_agg(row_to_json(k)::text, ' ') AS t FROM api_keys k");
      expect(dump.rows[0]!.t).not.toContain(res.body.key);

      // Never again: not in get, not in list.
      const got = await api('GET', `/v1/api-keys/${res.body.id}`, { key: org.live });
      expect(got.status).toBe(200);
      expect(got.body.key).toBeUndefined();
      expect(JSON.stringify((await api('GET', '/v1/api-keys?limit=100', { key: org.live })).body)).not.toContain(res.body.key);
    });

    it('mode defaults to the caller; a live key can make a test key, never the reverse', async () => {
      expect((await makeKey(org.test, {})).key).toMatch(/^sk_test_/);
      expect((await makeKey(org.live, { mode: 'test' })).key).toMatch(/^sk_test_/);
      const res = await api('POST', '/v1/api-keys', { key: org.test, body: { name: 'x', mode: 'live' } });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('insufficient_role');
    });

    it('records last use', async () => {
      const k = await makeKey(org.live, {});
      await api('GET', '/v1/organization', { key: k.key });
      await new Promise((r) => setTimeout(r, 100));
      const got = await api('GET', `/v1/api-keys/${k.id}`, { key: org.live });
      expect(got.body.last_used_at).not.toBeNull();
    });

    it('updates name, scopes and budget; 200 with the updated key', async () => {
      const k = await makeKey(org.live, {});
      const res = await api('PATCH', `/v1/api-keys/${k.id}`, {
        key: org.live,
        body: { name: 'renamed', scopes: ['usage:read'], monthly_budget_usd: 100 },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: k.id, name: 'renamed', scopes: ['usage:read'], monthly_budget_usd: 100 });
      const cleared = await api('PATCH', `/v1/api-keys/${k.id}`, { key: org.live, body: { monthly_budget_usd: null } });
      expect(cleared.body.monthly_budget_usd).toBeNull();
      // The narrowed key now has only usage:read.
      expect((await api('GET', '/v1/wallet', { key: k.key })).status).toBe(200);
      expect((await api('GET', '/v1/api-keys', { key: k.key })).status).toBe(403);
    });

    it('deletes: 200 {deleted: true}, then 404 everywhere', async () => {
      const k = await makeKey(org.live, {});
      const del = await api('DELETE', `/v1/api-keys/${k.id}`, { key: org.live });
      expect(del.body).toEqual({ id: k.id, object: 'api_key', deleted: true });
      for (const [method, body] of [['GET'], ['DELETE'], ['PATCH', { name: 'x' }]] as const) {
        const res = await api(method, `/v1/api-keys/${k.id}`, { key: org.live, body });
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('resource_not_found');
      }
      const list = await api('GET', '/v1/api-keys?limit=100', { key: org.live });
      expect(list.body.data.map((x: { id: string }) => x.id)).not.toContain(k.id);
    });

    it('lists newest first with limit, starting_after and has_more', async () => {
      const fresh = await s.createOrg();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await makeKey(fresh.live, { name: `k${i}` })).id);
      const page1 = await api('GET', '/v1/api-keys?limit=3', { key: fresh.live });
      expect(page1.body.object).toBe('list');
      expect(page1.body.data.map((k: { id: string }) => k.id)).toEqual([ids[4], ids[3], ids[2]]);
      expect(page1.body.has_more).toBe(true);
      const page2 = await api('GET', `/v1/api-keys?limit=3&starting_after=${ids[2]}`, { key: fresh.live });
      // ids[1], ids[0], then the owner key the organization was created with.
      expect(page2.body.data.map((k: { id: string }) => k.id).slice(0, 2)).toEqual([ids[1], ids[0]]);
      expect(page2.body.data).toHaveLength(3);
      expect(page2.body.has_more).toBe(false);
      // Test-mode keys are not listed to live keys.
      expect(page2.body.data.every((k: { mode: string }) => k.mode === 'live')).toBe(true);
    });

    it('validates limit and unknown query parameters', async () => {
      for (const q of ['limit=0', 'limit=101', 'limit=abc']) {
        const res = await api('GET', `/v1/api-keys?${q}`, { key: org.live });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'limit' });
      }
      const res = await api('GET', '/v1/api-keys?limt=3', { key: org.live });
      expect(res.body.error).toMatchObject({ code: 'parameter_unknown', param: 'limt' });
    });

    it('validates the body', async () => {
      const cases: Array<[unknown, string, string]> = [
        [{}, 'parameter_missing', 'name'],
        [{ name: '' }, 'parameter_invalid', 'name'],
        [{ name: 5 }, 'parameter_invalid', 'name'],
        [{ name: 'x', scopes: ['images:read'] }, 'parameter_invalid', 'scopes[0]'],
        [{ name: 'x', role: 'superuser' }, 'parameter_invalid', 'role'],
        [{ name: 'x', monthly_budget_usd: -1 }, 'parameter_invalid', 'monthly_budget_usd'],
        [{ name: 'x', nmae: 'typo' }, 'parameter_unknown', 'nmae'],
      ];
      for (const [body, code, param] of cases) {
        const res = await api('POST', '/v1/api-keys', { key: org.live, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error, JSON.stringify(body)).toMatchObject({ type: 'invalid_request_error', code, param });
      }
    });
  });

  describe('roles and scopes', () => {
    it('a viewer reads but never mutates', async () => {
      const viewer = await makeKey(org.live, { role: 'viewer' });
      expect((await api('GET', '/v1/models', { key: viewer.key })).status).toBe(200);
      expect((await api('GET', '/v1/wallet', { key: viewer.key })).status).toBe(200);
      expect((await api('GET', '/v1/api-keys', { key: viewer.key })).status).toBe(200);
      const create = await api('POST', '/v1/api-keys', { key: viewer.key, body: { name: 'x' } });
      expect(create.status).toBe(403);
      expect(create.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_role' });
      expect((await api('DELETE', `/v1/api-keys/${viewer.id}`, { key: viewer.key })).status).toBe(403);
      expect((await api('PATCH', '/v1/organization', { key: viewer.key, body: { paused: false } })).status).toBe(403);
    });

    it('a developer cannot manage keys; an admin can, but not owners', async () => {
      const dev = await makeKey(org.live, { role: 'developer' });
      expect((await api('POST', '/v1/api-keys', { key: dev.key, body: { name: 'x' } })).status).toBe(403);
      const admin = await makeKey(org.live, { role: 'admin' });
      const made = await makeKey(admin.key, { role: 'developer' });
      expect(made.role).toBe('developer');
      // inherits the caller's role by default
      expect((await makeKey(admin.key, {})).role).toBe('admin');
      // no escalation to owner
      const up = await api('POST', '/v1/api-keys', { key: admin.key, body: { name: 'x', role: 'owner' } });
      expect(up.status).toBe(403);
      // an admin cannot revoke or edit an owner's key
      const ownerKey = await makeKey(org.live, {});
      expect((await api('DELETE', `/v1/api-keys/${ownerKey.id}`, { key: admin.key })).status).toBe(403);
      expect((await api('PATCH', `/v1/api-keys/${ownerKey.id}`, { key: admin.key, body: { name: 'x' } })).status).toBe(403);
      // but can revoke a developer key
      expect((await api('DELETE', `/v1/api-keys/${made.id}`, { key: admin.key })).status).toBe(200);
    });

    it('a scoped key grants only a subset of its scopes, never full access', async () => {
      const scoped = await makeKey(org.live, { scopes: ['api_keys:manage', 'usage:read'] });
      expect((await makeKey(scoped.key, { scopes: ['usage:read'] })).scopes).toEqual(['usage:read']);
      expect((await makeKey(scoped.key, {})).scopes).toEqual(['api_keys:manage', 'usage:read']);
      for (const scopes of [[], ['images:write'], ['usage:read', 'webhooks:manage']]) {
        const res = await api('POST', '/v1/api-keys', { key: scoped.key, body: { name: 'x', scopes } });
        expect(res.status, JSON.stringify(scopes)).toBe(403);
        expect(res.body.error.code).toBe('insufficient_role');
      }
      // nor by PATCH on a key it manages
      const child = await makeKey(scoped.key, { scopes: ['usage:read'] });
      const widen = await api('PATCH', `/v1/api-keys/${child.id}`, { key: scoped.key, body: { scopes: [] } });
      expect(widen.status).toBe(403);
    });

    it('a key without the needed scope gets 403 insufficient_role', async () => {
      const k = await makeKey(org.live, { scopes: ['images:write'] });
      const wallet = await api('GET', '/v1/wallet', { key: k.key });
      expect(wallet.status).toBe(403);
      expect(wallet.body.error.code).toBe('insufficient_role');
      expect((await api('GET', '/v1/api-keys', { key: k.key })).status).toBe(403);
      // GET /v1/models needs no scope
      expect((await api('GET', '/v1/models', { key: k.key })).status).toBe(200);
    });

    it('only owner keys change organization settings', async () => {
      const admin = await makeKey(org.live, { role: 'admin' });
      expect((await api('PATCH', '/v1/organization', { key: admin.key, body: { paused: true } })).status).toBe(403);
      const paused = await api('PATCH', '/v1/organization', { key: org.live, body: { paused: true } });
      expect(paused.body.paused).toBe(true);
      const unpaused = await api('PATCH', '/v1/organization', { key: org.live, body: { paused: false } });
      expect(unpaused.body.paused).toBe(false);
    });
  });

  describe('isolation', () => {
    it("another organization's key, or the other mode, gets 404 for a key id", async () => {
      const k = await makeKey(org.live, {});
      for (const key of [other.live, other.test, org.test]) {
        for (const [method, body] of [['GET'], ['PATCH', { name: 'stolen' }], ['DELETE']] as const) {
          const res = await api(method, `/v1/api-keys/${k.id}`, { key, body });
          expect(res.status).toBe(404);
          expect(res.body.error.code).toBe('resource_not_found');
        }
      }
      const list = await api('GET', '/v1/api-keys?limit=100', { key: other.live });
      expect(list.body.data.map((x: { id: string }) => x.id)).not.toContain(k.id);
      // and the key still works
      expect((await api('GET', '/v1/organization', { key: k.key })).body.id).toBe(org.id);
    });
  });
});

describeOnBackend('IP allowlists', 'pglite', (backend) => {
  let s: TestServer;
  let proxied: TestServer;
  let api: ReturnType<typeof client>;
  let viaProxy: ReturnType<typeof client>;
  let ent: TestOrg;
  let plain: TestOrg;

  beforeAll(async () => {
    s = await startTestServer(backend);
    proxied = await startTestServer(backend, { MMGEN_TRUSTED_PROXIES: '127.0.0.1,::1' });
    api = client(s.url);
    viaProxy = client(proxied.url);
    ent = await s.createOrg({ enterprise: true });
    plain = await s.createOrg({ enterprise: false });
  });
  afterAll(async () => {
    await s?.close();
    await proxied?.close();
  });

  async function keyWith(server: TestServer, c: ReturnType<typeof client>, owner: string, ipAllowlist: string[]) {
    const res = await c('POST', '/v1/api-keys', { key: owner, body: { name: 'ip', ipAllowlist } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    void server;
    return res.body as { id: string; key: string; ipAllowlist: string[] };
  }

  it('allows the loopback client inside the range and refuses it outside', async () => {
    const inside = await keyWith(s, api, ent.live, ['127.0.0.0/8']);
    expect((await api('GET', '/v1/organization', { key: inside.key })).status).toBe(200);
    const outside = await keyWith(s, api, ent.live, ['10.0.0.0/8', '2001:db8::/32']);
    const res = await api('GET', '/v1/organization', { key: outside.key });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'ip_not_allowed' });
  });

  it('normalizes ranges and accepts bare addresses', async () => {
    const k = await keyWith(s, api, ent.live, ['10.1.2.3/8', '127.0.0.1', '2001:DB8::1/32']);
    expect(k.ipAllowlist).toEqual(['10.0.0.0/8', '127.0.0.1/32', '2001:db8::/32']);
    expect((await api('GET', '/v1/organization', { key: k.key })).status).toBe(200);
  });

  it('PATCH sets and clears the allowlist; the change applies on the next request', async () => {
    const k = await keyWith(s, api, ent.live, []);
    expect((await api('GET', '/v1/organization', { key: k.key })).status).toBe(200);
    await api('PATCH', `/v1/api-keys/${k.id}`, { key: ent.live, body: { ipAllowlist: ['192.168.0.0/16'] } });
    expect((await api('GET', '/v1/organization', { key: k.key })).status).toBe(403);
    await api('PATCH', `/v1/api-keys/${k.id}`, { key: ent.live, body: { ipAllowlist: [] } });
    expect((await api('GET', '/v1/organization', { key: k.key })).status).toBe(200);
  });

  it('rejects bad CIDRs with 400 naming the entry', async () => {
    for (const bad of ['10.0.0.0/33', 'not-an-ip', '::1/129', '300.1.1.1']) {
      const res = await api('POST', '/v1/api-keys', { key: ent.live, body: { name: 'x', ipAllowlist: ['127.0.0.1/32', bad] } });
      expect(res.status, bad).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'ipAllowlist[1]' });
    }
  });

  it('is an Enterprise feature', async () => {
    const res = await api('POST', '/v1/api-keys', { key: plain.live, body: { name: 'x', ipAllowlist: ['127.0.0.1/32'] } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('feature_not_available');
    const k = await keyWith(s, api, plain.live, []);
    const patch = await api('PATCH', `/v1/api-keys/${k.id}`, { key: plain.live, body: { ipAllowlist: ['127.0.0.1/32'] } });
    expect(patch.body.error.code).toBe('feature_not_available');
  });

  it('ignores X-Forwarded-For unless the peer is a trusted proxy', async () => {
    const k = await keyWith(s, api, ent.live, ['10.0.0.0/8']);
    const res = await api('GET', '/v1/organization', { key: k.key, headers: { 'x-forwarded-for': '10.1.2.3' } });
    expect(res.status).toBe(403);
  });

  it('behind a trusted proxy: IPv4, IPv6 and IPv4-mapped client addresses', async () => {
    const pent = await proxied.createOrg({ enterprise: true });
    const v4 = await keyWith(proxied, viaProxy, pent.live, ['10.0.0.0/8']);
    const v6 = await keyWith(proxied, viaProxy, pent.live, ['2001:db8::/32']);
    const call = (key: string, xff: string) => viaProxy('GET', '/v1/organization', { key, headers: { 'x-forwarded-for': xff } });
    expect((await call(v4.key, '10.9.8.7')).status).toBe(200);
    expect((await call(v4.key, '11.0.0.1')).status).toBe(403);
    expect((await call(v4.key, '::ffff:10.9.8.7')).status).toBe(200);
    expect((await call(v6.key, '2001:db8:1::42')).status).toBe(200);
    expect((await call(v6.key, '2001:db9::1')).status).toBe(403);
    expect((await call(v6.key, '10.9.8.7')).status).toBe(403);
    // A client cannot smuggle an address past the proxy: the nearest untrusted hop counts.
    expect((await call(v4.key, '10.9.8.7, 11.0.0.1')).status).toBe(403);
  });
});
