import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topUp } from '../../src/billing/credits.js';
import { browser } from '../helpers/browser-session.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * A dashboard session opened with an API key (POST /v1/session/key; issue 31: "the dashboard never stores an API
 * key"): the key is exchanged once for the same HttpOnly cookie and CSRF token a person's sign-in gets, and the
 * session then acts exactly as the key (organization, mode, effective role, scopes, IP allowlist, rate limit, request
 * log, audit actor), including its revocation and its member's demotion or removal, on every node.
 */
describeOnBackend('a dashboard session opened with an API key', 'pglite', (backend) => {
  let s: TestServer;
  let node2: TestServer;
  let a: TestOrg;
  let b: TestOrg;
  const api = () => client(s.url);
  const image = { model: 'flux-schnell', prompt: 'a key session', width: 256, height: 256 };

  /** A browser whose tab exchanged `key` for a session: afterwards it sends only the cookie and the CSRF token. */
  async function keySession(key: string, base = s.url) {
    const tab = browser(base);
    const res = await tab.call('POST', '/v1/session/key', { body: { api_key: key } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return Object.assign(tab, { opened: res });
  }

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_ALLOW_PRIVATE_NETWORK: '1' });
    node2 = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1' }, { sameDbAs: s });
    a = await s.createOrg({ name: 'A', credits: 1_000_000, plan: 'team', enterprise: true });
    b = await s.createOrg({ name: 'B', credits: 1_000_000, plan: 'team' });
  });
  afterAll(async () => {
    await node2?.close();
    await s?.close();
  });

  it('a good key gets the HttpOnly cookie and a CSRF token; the session is the key, and nothing the browser keeps holds the key', async () => {
    const tab = await keySession(a.test);
    const res = tab.opened;
    const cookies = res.headers.getSetCookie();
    const session = cookies.find((c) => c.startsWith('mmgen_session='))!;
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Lax/i);
    expect(session).toMatch(/Max-Age=\d+/i);
    expect(cookies.find((c) => c.startsWith('mmgen_csrf='))).not.toMatch(/HttpOnly/i);
    expect(res.body.csrf_token).toBe(tab.csrf);
    for (const c of cookies) expect(c).not.toContain(a.test);
    expect(JSON.stringify(res.body)).not.toContain(a.test);

    const current = (await api()('GET', '/v1/api-keys/current', { key: a.test })).body;
    expect(res.body).toMatchObject({
      object: 'session', kind: 'api_key', account: null, method: 'api_key', organization_id: a.id, member_id: a.userId, mode: 'test', role: 'owner', memberships: [],
      api_key: { id: current.id, name: current.name, prefix: current.prefix, mode: 'test', role: 'owner', effective_role: 'owner', scopes: [] },
    });
    // Restoring after a reload reads the same from the cookie alone.
    const again = await tab.call('GET', '/v1/session');
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: res.body.id, kind: 'api_key', api_key: { id: current.id } });
    expect((await tab.call('GET', '/v1/api-keys/current')).body.id).toBe(current.id);
    expect((await tab.call('GET', '/v1/organization')).body.id).toBe(a.id);
    // A state-changing call with the token works, as the key.
    const hook = await tab.call('POST', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/k', events: ['*'] } });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    expect((await api()('GET', `/v1/webhooks/${hook.body.id}`, { key: a.test })).status).toBe(200);
    // The bearer still cannot call a session operation.
    expect((await api()('GET', '/v1/session', { key: a.test })).body.error.code).toBe('session_required');
  });

  it('CSRF: a state-changing call without the token is refused, and changes nothing', async () => {
    const tab = await keySession(a.test);
    const before = (await api()('GET', '/v1/webhooks?limit=100', { key: a.test })).body.data.length;
    const refused = await tab.call('POST', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/x', events: ['*'] }, csrf: false });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'csrf_token_invalid']);
    const wrong = await tab.call('POST', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/x', events: ['*'] }, csrf: false, headers: { 'x-csrf-token': 'x'.repeat(43) } });
    expect([wrong.status, wrong.body.error.code]).toEqual([403, 'csrf_token_invalid']);
    // Signing out needs it too.
    expect((await tab.call('DELETE', '/v1/session', { csrf: false })).status).toBe(403);
    expect((await api()('GET', '/v1/webhooks?limit=100', { key: a.test })).body.data.length).toBe(before);
    expect((await tab.call('GET', '/v1/session')).status).toBe(200);
  });

  it("acts as the key: its scopes, its IP allowlist, its rate-limit budget, the request log names it, and a person's operations are refused", async () => {
    const scoped = (await api()('POST', '/v1/api-keys', { key: a.live, body: { name: 'reader', role: 'developer', scopes: ['generations:read'] } })).body;
    const tab = await keySession(scoped.key);
    expect(tab.opened.body).toMatchObject({ role: 'developer', api_key: { id: scoped.id, scopes: ['generations:read'] } });
    expect((await tab.call('GET', '/v1/generations')).status).toBe(200);
    const usage = await tab.call('GET', '/v1/usage');
    expect([usage.status, usage.body.error.code]).toEqual([403, 'insufficient_role']);
    expect(usage.body.error.message).toContain('scope');
    // A key that manages no keys: the session of a developer key is not given a person's sessionRole.
    const dev = (await api()('POST', '/v1/api-keys', { key: a.live, body: { name: 'dev', role: 'developer' } })).body;
    const devTab = await keySession(dev.key);
    expect((await devTab.call('POST', '/v1/api-keys', { body: { name: 'x' } })).body.error.code).toBe('insufficient_role');
    // A person's own operations (switching, passkeys) are not the key's.
    for (const [method, path, body] of [['PATCH', '/v1/session', { mode: 'live' }], ['GET', '/v1/passkeys', undefined], ['POST', '/v1/passkeys/options', undefined]] as const) {
      const res = await devTab.call(method, path, { body });
      expect([path, res.status, res.body.error.code]).toEqual([path, 403, 'session_required']);
    }

    // One per-minute budget: the bearer's and the session's requests draw from it alike.
    const bearer1 = await api()('GET', '/v1/generations', { key: dev.key });
    const viaSession = await devTab.call('GET', '/v1/generations');
    const bearer2 = await api()('GET', '/v1/generations', { key: dev.key });
    const left = (r: { headers: Headers }) => Number(r.headers.get('ratelimit-remaining'));
    expect(left(viaSession)).toBe(left(bearer1) - 1);
    expect(left(bearer2)).toBe(left(bearer1) - 2);

    // The request log attributes the session's calls to the key.
    const marked = await devTab.call('GET', '/v1/models?limit=1');
    const requestId = marked.headers.get('x-request-id')!;
    await s.runtime.deps.requestLog.flush();
    const rows = (await api()('GET', `/v1/requests?request_id=${requestId}`, { key: a.live })).body.data;
    expect(rows).toEqual([expect.objectContaining({ key_id: dev.id })]);

    // An IP allowlist that excludes loopback refuses the exchange as it refuses the key.
    const fenced = (await api()('POST', '/v1/api-keys', { key: a.live, body: { name: 'fenced', ipAllowlist: ['10.0.0.0/8'] } })).body;
    const refused = await browser(s.url).call('POST', '/v1/session/key', { body: { api_key: fenced.key } });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'ip_not_allowed']);
    expect(refused.headers.getSetCookie()).toEqual([]);
    // Narrowed after the exchange: the session's next request is refused as the key's is.
    const widened = (await api()('POST', '/v1/api-keys', { key: a.live, body: { name: 'later fenced' } })).body;
    const later = await keySession(widened.key);
    expect((await api()('PATCH', `/v1/api-keys/${widened.id}`, { key: a.live, body: { ipAllowlist: ['10.0.0.0/8'] } })).status).toBe(200);
    expect((await later.call('GET', '/v1/generations')).body.error.code).toBe('ip_not_allowed');
  });

  it("a revoked key's session gets 401 on its next call, on every node", async () => {
    const made = (await api()('POST', '/v1/api-keys', { key: a.live, body: { name: 'to revoke' } })).body;
    const tab = await keySession(made.key);
    const cookie = [...tab.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    expect((await client(node2.url)('GET', '/v1/organization', { headers: { cookie } })).status).toBe(200);
    expect((await api()('DELETE', `/v1/api-keys/${made.id}`, { key: a.live })).status).toBe(200);
    for (const base of [node2.url, s.url]) {
      const res = await client(base)('GET', '/v1/organization', { headers: { cookie } });
      expect([res.status, res.body.error.code]).toEqual([401, 'invalid_api_key']);
    }
    expect((await tab.call('GET', '/v1/session')).status).toBe(401);
    // And the revoked key cannot open another.
    const again = await browser(s.url).call('POST', '/v1/session/key', { body: { api_key: made.key } });
    expect([again.status, again.body.error.code]).toEqual([401, 'invalid_api_key']);
  });

  it("a key session of organization A cannot read organization B's data (404 as for an id that never existed)", async () => {
    const g = (await api()('POST', '/v1/images', { key: b.live, body: image })).body;
    expect(g.id).toMatch(/^gen_/);
    const bKey = (await api()('GET', '/v1/api-keys/current', { key: b.live })).body.id;
    const tab = await keySession(a.live);
    for (const path of [`/v1/generations/${g.id}`, `/v1/api-keys/${bKey}`, `/v1/members/${b.userId}`]) {
      const res = await tab.call('GET', path);
      const ghost = await tab.call('GET', path.replace(/_(\w)/, '_Z'));
      expect([path, res.status, res.body.error.code]).toEqual([path, 404, 'resource_not_found']);
      expect(ghost.status).toBe(404);
    }
    const seen = JSON.stringify([(await tab.call('GET', '/v1/generations?limit=100')).body, (await tab.call('GET', '/v1/api-keys?limit=100')).body, (await tab.call('GET', '/v1/members')).body]);
    for (const id of [g.id, bKey, b.userId, b.id]) expect(seen).not.toContain(id);
    // Nor can it delete B's key.
    expect((await tab.call('DELETE', `/v1/api-keys/${bKey}`)).status).toBe(404);
    expect((await api()('GET', '/v1/api-keys/current', { key: b.live })).status).toBe(200);
  });

  it("lowering the key's member's role lowers the session from its next request; removing the member ends it", async () => {
    // A second member, whose developer key is exchanged.
    const inv = (await api()('POST', '/v1/invitations', { key: a.live, body: { email: 'dev@a.test', role: 'developer' } })).body;
    const person = browser(s.url);
    const joined = await person.call('POST', '/v1/invitations/accept', { body: { token: new URL(inv.url).hash.replace('#token=', ''), password: 'developer password 1' } });
    expect(joined.status, JSON.stringify(joined.body)).toBe(201);
    const memberId = joined.body.member_id as string;
    const key = (await person.call('POST', '/v1/api-keys', { body: { name: 'dev key' } })).body;
    expect(key.role).toBe('developer');
    await topUp(s.db, { organizationId: a.id, credits: 100_000, reference: 'key-sessions', note: 'test credits' });
    const tab = await keySession(key.key);
    const other = await keySession(key.key, node2.url);
    expect((await tab.call('POST', '/v1/images', { body: image })).status).toBe(200);

    expect((await api()('PATCH', `/v1/members/${memberId}`, { key: a.live, body: { role: 'viewer' } })).status).toBe(200);
    for (const t of [tab, other]) {
      const res = await t.call('POST', '/v1/images', { body: image });
      expect([res.status, res.body.error.code]).toEqual([403, 'insufficient_role']);
      expect((await t.call('GET', '/v1/session')).body).toMatchObject({ role: 'viewer', api_key: { role: 'developer', effective_role: 'viewer' } });
    }

    expect((await api()('DELETE', `/v1/members/${memberId}`, { key: a.live })).status).toBe(200);
    for (const t of [other, tab]) {
      const res = await t.call('GET', '/v1/generations');
      expect([res.status, res.body.error.code]).toEqual([401, 'invalid_api_key']);
    }
  });

  it('lists the sessions opened with the key, ends one, signs out; timeouts end it as a person\'s', async () => {
    const made = (await api()('POST', '/v1/api-keys', { key: a.live, body: { name: 'listed' } })).body;
    const one = await keySession(made.key);
    const two = await keySession(made.key);
    const elsewhere = await keySession(a.live);
    const list = (await one.call('GET', '/v1/sessions')).body.data as any[];
    expect(list.map((x) => [x.id, x.current, x.method]).sort()).toEqual(
      [[one.opened.body.id, true, 'api_key'], [two.opened.body.id, false, 'api_key']].sort(),
    );
    // Another key's session is neither listed nor ended from here (404 as one that never existed).
    expect(JSON.stringify(list)).not.toContain(elsewhere.opened.body.id);
    expect((await one.call('DELETE', `/v1/sessions/${elsewhere.opened.body.id}`)).status).toBe(404);
    expect((await elsewhere.call('GET', '/v1/session')).status).toBe(200);
    expect((await one.call('DELETE', `/v1/sessions/${two.opened.body.id}`)).status).toBe(200);
    expect((await two.call('GET', '/v1/session')).body.error.code).toBe('session_expired');

    // Signing out ends it and clears the cookies.
    expect((await one.call('DELETE', '/v1/session')).status).toBe(200);
    expect(one.jar.size).toBe(0);
    const cookie = `mmgen_session=x`;
    expect((await client(s.url)('GET', '/v1/session', { headers: { cookie } })).status).toBe(401);

    const idle = await keySession(made.key);
    await s.db.query(`UPDATE sessions SET last_seen_at = now() - interval '61 minutes' WHERE id = $1`, [idle.opened.body.id]);
    expect((await idle.call('GET', '/v1/generations')).body.error.code).toBe('session_expired');
    const old = await keySession(made.key);
    await s.db.query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = $1`, [old.opened.body.id]);
    expect((await old.call('GET', '/v1/generations')).body.error.code).toBe('session_expired');

    // The audit log: the sign-in, the revocation and the sign-out, each with the key as the actor.
    const entries: any[] = [];
    for (const action of ['sign_in.succeeded', 'session.revoked']) {
      entries.push(...(await api()('GET', `/v1/audit-events?action=${action}&limit=100`, { key: a.live })).body.data);
    }
    const of = (action: string, id: string) => entries.filter((e) => e.action === action && (e.target.id === id || e.after?.session === id));
    expect(of('sign_in.succeeded', one.opened.body.id)).toEqual([
      expect.objectContaining({ actor: expect.objectContaining({ type: 'api_key', id: made.id }), target: { type: 'api_key', id: made.id }, after: { method: 'api_key', session: one.opened.body.id } }),
    ]);
    expect(of('session.revoked', two.opened.body.id).map((e) => [e.actor.type, e.actor.id, e.after.via])).toEqual([['api_key', made.id, 'revoke']]);
    expect(of('session.revoked', one.opened.body.id).map((e) => [e.actor.type, e.actor.id, e.after.via])).toEqual([['api_key', made.id, 'sign_out']]);
    expect(JSON.stringify(entries)).not.toContain(made.key);
  });

  describe('brute force', () => {
    let guarded: TestServer;
    beforeAll(async () => {
      guarded = await startTestServer(backend, { MMGEN_SIGNIN_SLOW_AFTER: '2', MMGEN_SIGNIN_ADDRESS_LOCK_AFTER: '4' }, { sameDbAs: s });
    });
    afterAll(async () => guarded?.close());

    it('bad keys are one 401, slowed, then the address is locked (429) even for a good key; failures are in the log, never the key', async () => {
      const attempt = (key: string) => browser(guarded.url).call('POST', '/v1/session/key', { body: { api_key: key } });
      const answers: Array<[number, string]> = [];
      const times: number[] = [];
      const guesses = ['sk_live_' + 'A'.repeat(40), 'not a key at all', 'sk_test_' + 'B'.repeat(40), a.live.slice(0, -2) + 'zz'];
      for (const guess of guesses) {
        const t0 = Date.now();
        const res = await attempt(guess);
        times.push(Date.now() - t0);
        answers.push([res.status, res.body.error.code]);
        expect(res.headers.getSetCookie()).toEqual([]);
      }
      expect(answers).toEqual(guesses.map(() => [401, 'invalid_api_key']));
      // From the third failure on, answers wait (250 ms, then 500 ms).
      expect(times[2]!).toBeGreaterThanOrEqual(240);
      expect(times[3]!).toBeGreaterThanOrEqual(490);
      const locked = await attempt(a.live);
      expect([locked.status, locked.body.error.code]).toEqual([429, 'rate_limit_exceeded']);
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(locked.headers.getSetCookie()).toEqual([]);

      const failed = (await s.db.query<{ action: string; target_type: string; target_id: string; after: unknown }>(
        `SELECT action, target_type, target_id, after FROM audit_events WHERE organization_id IS NULL AND action IN ('sign_in.failed', 'sign_in.locked') AND target_type = 'api_key'`,
      )).rows;
      expect(failed.filter((r) => r.action === 'sign_in.failed').length).toBeGreaterThanOrEqual(4);
      expect(failed.some((r) => r.action === 'sign_in.locked')).toBe(true);
      expect(JSON.stringify(failed)).not.toMatch(/sk_(live|test)_[A-Za-z0-9]{8}/);
    }, 30_000);
  });
});
