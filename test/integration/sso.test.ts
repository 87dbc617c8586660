import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { followToOrigin, startOidcProvider } from '../helpers/oidc.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * Single sign-on through a real OpenID provider (oidc-provider) on loopback: an organization turns OIDC on, a new
 * person whose email domain joins automatically signs in (code flow with PKCE through openid-client) and lands with
 * the configured role; someone of another domain, or whose email the provider did not verify, is refused (403: must
 * be invited); a replayed callback is refused; an ID token re-signed with another key than the provider's is refused;
 * requiring SSO refuses password sessions but the break-glass owner's.
 */
describeOnBackend('single sign-on (OpenID Connect)', 'pglite', (backend) => {
  let s: TestServer;
  let idp: Awaited<ReturnType<typeof startOidcProvider>>;
  let org: TestOrg;
  const api = () => client(s.url);

  beforeAll(async () => {
    // The issuer is on loopback over http: allowed only because the operator allows private networks here.
    s = await startTestServer(backend, { MMGEN_ALLOW_PRIVATE_NETWORK: '1' });
    idp = await startOidcProvider({ clientId: 'mmgen', clientSecret: 'loopback secret', redirectUri: `${s.url}/v1/sso/callback` });
    idp.people.set('u-ada', { sub: 'u-ada', email: 'ada@acme.test', email_verified: true, name: 'Ada' });
    idp.people.set('u-eve', { sub: 'u-eve', email: 'eve@elsewhere.test', email_verified: true, name: 'Eve' });
    idp.people.set('u-mal', { sub: 'u-mal', email: 'mal@acme.test', email_verified: false, name: 'Mal' });
    idp.people.set('u-zed', { sub: 'u-zed', email: 'zed@acme.test', email_verified: true, name: 'Zed' });
    org = await s.createOrg({ name: 'acme' });
  });
  afterAll(async () => {
    await s?.close();
    await idp?.close();
  });

  async function signInAs(sub: string): Promise<Response> {
    idp.loginAs.sub = sub;
    const start = await api()('POST', '/v1/sso/start', { body: { organization_id: org.id } });
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    const url = new URL(start.body.authorization_url);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    return followToOrigin(url.href, s.url);
  }

  /** What a refused sign-in must not leave behind: an account or identity for the person, or any session. */
  async function traces(email: string, sub: string) {
    const count = async (sql: string, params: unknown[] = []) => (await s.db.query<{ n: number }>(sql, params)).rows[0]!.n;
    return {
      accounts: await count('SELECT count(*)::int AS n FROM accounts WHERE email_key = $1', [email]),
      identities: await count('SELECT count(*)::int AS n FROM account_identities WHERE subject = $1', [sub]),
      sessions: await count('SELECT count(*)::int AS n FROM sessions'),
    };
  }

  it('an owner configures it; a wrong issuer is refused; the secret is never answered', async () => {
    const bad = await api()('PUT', '/v1/organization/sso', { key: org.live, body: { issuer: 'http://127.0.0.1:9/nothing', client_id: 'x' } });
    expect([bad.status, bad.body.error.param]).toEqual([400, 'issuer']);
    const put = await api()('PUT', '/v1/organization/sso', {
      key: org.live,
      body: { issuer: idp.issuer, client_id: 'mmgen', client_secret: 'loopback secret', auto_join_domains: ['acme.test'], auto_join_role: 'developer' },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({ has_client_secret: true, auto_join_role: 'developer', redirect_uri: `${s.url}/v1/sso/callback` });
    expect(JSON.stringify(put.body)).not.toContain('loopback secret');
    // Audited, before and after, never the secret.
    const audit = (await api()('GET', '/v1/audit-events?action=sso.settings_changed', { key: org.live })).body.data;
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor: { type: 'api_key' }, before: null, after: { issuer: idp.issuer, has_client_secret: true, auto_join_role: 'developer' } });
    expect(JSON.stringify(audit)).not.toContain('loopback secret');
  });

  it('a new person of an auto-join domain signs in through the provider and lands with the configured role', async () => {
    const res = await signInAs('u-ada');
    expect(res.status, await res.clone().text()).toBe(302);
    expect(res.headers.get('location')).toBe(`${s.url}/dashboard/`);
    const cookie = res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const session = await api()('GET', '/v1/session', { headers: { cookie } });
    expect(session.body).toMatchObject({ organization_id: org.id, role: 'developer', method: 'sso', account: { email: 'ada@acme.test', has_password: false } });
    const members = (await api()('GET', '/v1/members', { key: org.live })).body.data;
    expect(members).toContainEqual(expect.objectContaining({ email: 'ada@acme.test', role: 'developer' }));
    // A second sign-in finds the same person (by the issuer's subject), no second member.
    const again = await signInAs('u-ada');
    expect(again.status).toBe(302);
    expect((await api()('GET', '/v1/members', { key: org.live })).body.data.filter((m: any) => m.email === 'ada@acme.test')).toHaveLength(1);
    // The audit log: the account made and the member added once, at the configured role; each sign-in, by SSO.
    const ada = members.find((m: any) => m.email === 'ada@acme.test').id as string;
    const audit = (await api()('GET', '/v1/audit-events?limit=100', { key: org.live })).body.data.filter((e: any) => e.actor.id === ada);
    expect(audit.map((e: any) => e.action).sort()).toEqual(['account.created', 'member.added', 'sign_in.succeeded', 'sign_in.succeeded']);
    expect(audit.find((e: any) => e.action === 'member.added')).toMatchObject({ actor: { type: 'member' }, after: { role: 'developer', via: 'sso' } });
  });

  it('a person of another domain who is not a member is refused; a replayed callback is refused', async () => {
    const eve = await signInAs('u-eve');
    expect(eve.status).toBe(403);
    expect(eve.headers.getSetCookie()).toEqual([]);
    idp.loginAs.sub = 'u-ada';
    const start = await api()('POST', '/v1/sso/start', { body: { organization_id: org.id } });
    const first = await followToOrigin(start.body.authorization_url, s.url);
    expect(first.status).toBe(302);
    // The same callback URL again (a replayed code and state): the flow was used once.
    expect(first.url).toContain('/v1/sso/callback?');
    const replayed = await fetch(first.url, { redirect: 'manual' });
    expect(replayed.status).toBe(401);
    expect(replayed.headers.getSetCookie()).toEqual([]);
    const forged = await fetch(`${s.url}/v1/sso/callback?code=abc&state=not-a-flow`, { redirect: 'manual' });
    expect(forged.status).toBe(401);
  });

  it('an unverified email at an auto-join domain is refused with 403: such a person must be invited', async () => {
    const before = await traces('mal@acme.test', 'u-mal');
    const mal = await signInAs('u-mal');
    const text = await mal.text();
    expect(mal.status, text).toBe(403);
    const body = JSON.parse(text);
    expect(body.error.code).toBe('insufficient_role');
    expect(body.error.message).toMatch(/invitation/);
    expect(mal.headers.getSetCookie()).toEqual([]);
    expect(await traces('mal@acme.test', 'u-mal')).toEqual({ ...before, accounts: 0, identities: 0 });
    expect((await api()('GET', '/v1/members', { key: org.live })).body.data.map((m: any) => m.email)).not.toContain('mal@acme.test');
  });

  it('an ID token re-signed with a key that is not the provider\'s is refused, with or without its kid; nothing is made', async () => {
    // A forger between mmgen and the issuer (http on a private network): same claims, its own key.
    const { privateKey } = await generateKeyPair('RS256');
    const resign = (keepKid: boolean) => async (idToken: string) => {
      const { kid } = decodeProtectedHeader(idToken);
      return new SignJWT(decodeJwt(idToken)).setProtectedHeader({ alg: 'RS256', ...(keepKid && kid ? { kid } : {}) }).sign(privateKey);
    };
    const before = await traces('zed@acme.test', 'u-zed');
    try {
      for (const keepKid of [true, false]) {
        idp.tokenEndpoint.rewriteIdToken = resign(keepKid);
        const forged = await signInAs('u-zed');
        const text = await forged.text();
        expect(forged.status, `keepKid ${keepKid}: ${text}`).toBe(401);
        const body = JSON.parse(text);
        expect(body.error.code).toBe('invalid_credentials');
        expect(body.error.message).toMatch(/signature/i);
        expect(forged.headers.getSetCookie()).toEqual([]);
        expect(await traces('zed@acme.test', 'u-zed')).toEqual({ ...before, accounts: 0, identities: 0 });
      }
    } finally {
      idp.tokenEndpoint.rewriteIdToken = null;
    }
    expect((await api()('GET', '/v1/members', { key: org.live })).body.data.map((m: any) => m.email)).not.toContain('zed@acme.test');
    // The provider's own signature still signs them in.
    const genuine = await signInAs('u-zed');
    expect(genuine.status, await genuine.clone().text()).toBe(302);
    expect(await traces('zed@acme.test', 'u-zed')).toEqual({ accounts: 1, identities: 1, sessions: before.sessions + 1 });
  });

  it('requiring SSO refuses password sign-in but the break-glass owner\'s', async () => {
    const ownerMember = (await api()('GET', '/v1/members', { key: org.live })).body.data.find((m: any) => m.role === 'owner').id;
    const noGlass = await api()('PUT', '/v1/organization/sso', { key: org.live, body: { issuer: idp.issuer, client_id: 'mmgen', require_sso: true } });
    expect([noGlass.status, noGlass.body.error.param]).toEqual([400, 'break_glass_member_id']);
    // Someone with a password in this organization: invited, accepted.
    const inv = await api()('POST', '/v1/invitations', { key: org.live, body: { email: 'pat@acme.test', role: 'viewer' } });
    const accepted = await api()('POST', '/v1/invitations/accept', { body: { token: new URL(inv.body.url).hash.slice(7), password: 'pat password 123' } });
    expect(accepted.status).toBe(201);
    const cookie = accepted.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const on = await api()('PUT', '/v1/organization/sso', { key: org.live, body: { issuer: idp.issuer, client_id: 'mmgen', require_sso: true, break_glass_member_id: ownerMember } });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    // The password session is refused from its next request; a new password sign-in too.
    expect((await api()('GET', '/v1/members', { headers: { cookie } })).body.error.code).toBe('sso_required');
    expect((await api()('POST', '/v1/session', { body: { email: 'pat@acme.test', password: 'pat password 123' } })).body.error.code).toBe('sso_required');
    // The SSO session still works.
    const ada = await signInAs('u-ada');
    const adaCookie = ada.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    expect((await api()('GET', '/v1/members', { headers: { cookie: adaCookie } })).status).toBe(200);
  });
});
