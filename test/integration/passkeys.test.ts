import { afterAll, beforeAll, expect, it } from 'vitest';
import { MovableClock } from '../../src/clock.js';
import { advancePasskeyCounter } from '../../src/store/passkeys.js';
import { SoftwareAuthenticator, AUTHENTICATOR_FLAGS } from '../helpers/software-authenticator.js';
import { browser } from '../helpers/browser-session.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * Passkeys (issue 31): registration and sign-in through @simplewebauthn/server, driven by a software authenticator
 * that signs with node:crypto (attestation `none`, ES256), so the real library verifies real signatures. Then every
 * way a ceremony is refused: a tampered signature, another origin, a replayed or expired challenge, an unknown or
 * removed passkey, a counter that did not move (a clone), no user verification; and the sign-in brake they share
 * with passwords.
 */


describeOnBackend('passkeys', 'pglite', (backend) => {
  let s: TestServer;
  let org: TestOrg;
  let origin: string;
  const clock = new MovableClock();

  /** A person invited into the organization, signed in with a password: their browser. */
  let people = 0;
  async function person(role = 'developer', into: TestOrg = org) {
    const email = `passkey-person${++people}@example.test`;
    const inv = await client(s.url)('POST', '/v1/invitations', { key: into.live, body: { email, role } });
    expect(inv.status, JSON.stringify(inv.body)).toBe(201);
    const b = browser(s.url);
    const accepted = await b.call('POST', '/v1/invitations/accept', { body: { token: new URL(inv.body.url).hash.replace('#token=', ''), password: 'a long enough password' } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    return { b, email, memberId: accepted.body.member_id as string, accountId: accepted.body.account.id as string };
  }

  async function addPasskey(b: ReturnType<typeof browser>, auth: SoftwareAuthenticator, name?: string) {
    const options = await b.call('POST', '/v1/passkeys/options');
    expect(options.status, JSON.stringify(options.body)).toBe(200);
    const added = await b.call('POST', '/v1/passkeys', { body: { credential: auth.register(options.body), ...(name ? { name } : {}) } });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    return added.body;
  }

  const signInOptions = async () => {
    const res = await client(s.url)('POST', '/v1/session/passkey/options');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };

  async function signedIn(auth: SoftwareAuthenticator, counter?: number) {
    const res = await browser(s.url).call('POST', '/v1/session/passkey', { body: { credential: auth.assert(await signInOptions(), counter === undefined ? {} : { counter }) } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res;
  }

  async function refused(credential: unknown, reason: RegExp) {
    const res = await browser(s.url).call('POST', '/v1/session/passkey', { body: { credential } });
    expect([res.status, res.body.error?.code], JSON.stringify(res.body)).toEqual([401, 'invalid_credentials']);
    expect(res.body.error.message).toMatch(reason);
    expect(res.headers.getSetCookie()).toEqual([]);
  }

  beforeAll(async () => {
    // Slowing is off here (no waits in tests); the lock is tested at 4 failures of one email.
    s = await startTestServer(backend, { MMGEN_SIGNIN_SLOW_AFTER: '1000', MMGEN_SIGNIN_LOCK_AFTER: '4', MMGEN_SIGNIN_ADDRESS_LOCK_AFTER: '10000' }, { clock, publicHost: 'localhost' });
    origin = s.config.publicUrl;
    expect(origin).toMatch(/^http:\/\/localhost:\d+$/);
    org = await s.createOrg({ credits: 0 });
  });
  afterAll(async () => s?.close());

  it('a signed-in person adds a passkey, lists it, and signs in with it to the same kind of session a password gives', async () => {
    const p = await person();
    const auth = new SoftwareAuthenticator(origin);
    const options = await p.b.call('POST', '/v1/passkeys/options');
    expect(options.status).toBe(200);
    // This installation is the relying party: the public URL's host, the person as the user, verified and discoverable.
    expect(options.body).toMatchObject({ rp: { id: 'localhost', name: 'mmgen' }, user: { name: p.email }, attestation: 'none', authenticatorSelection: { residentKey: 'required', userVerification: 'required' } });
    expect(options.body.pubKeyCredParams).toEqual(expect.arrayContaining([{ alg: -7, type: 'public-key' }]));
    const added = await p.b.call('POST', '/v1/passkeys', { body: { credential: auth.register(options.body), name: 'Laptop' } });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body).toMatchObject({ object: 'passkey', name: 'Laptop', transports: ['internal'], last_used_at: null });
    expect(added.body.id).toMatch(/^pky_/);
    // A second one is excluded from registering the first again, and gets a default name.
    const second = await p.b.call('POST', '/v1/passkeys/options');
    expect(second.body.excludeCredentials).toEqual([expect.objectContaining({ id: auth.credentials[0]!.id })]);
    const list = await p.b.call('GET', '/v1/passkeys');
    expect(list.body).toMatchObject({ object: 'list', data: [{ id: added.body.id, name: 'Laptop' }] });

    const fresh = browser(s.url);
    const signIn = await fresh.call('POST', '/v1/session/passkey', { body: { credential: auth.assert(await signInOptions()) } });
    expect(signIn.status, JSON.stringify(signIn.body)).toBe(201);
    expect(signIn.body).toMatchObject({ object: 'session', method: 'passkey', organization_id: org.id, member_id: p.memberId, role: 'developer', account: { email: p.email } });
    const session = signIn.headers.getSetCookie().find((c) => c.startsWith('mmgen_session='))!;
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Lax/i);
    expect(signIn.body.csrf_token).toMatch(/^[0-9A-Za-z]{43}$/);
    expect((await fresh.call('GET', '/v1/session')).body).toMatchObject({ method: 'passkey', member_id: p.memberId });
    // The session works like any other: CSRF is required for changes.
    const noCsrf = await fresh.call('POST', '/v1/passkeys/options', { csrf: false });
    expect([noCsrf.status, noCsrf.body.error.code]).toEqual([403, 'csrf_token_invalid']);
    expect((await fresh.call('GET', '/v1/passkeys')).body.data[0].last_used_at).not.toBeNull();

    // The audit log: the passkey added (actor: the member; after: what it is, never its key) and the sign-in.
    const entries = (await client(s.url)('GET', '/v1/audit-events?limit=100', { key: org.live })).body.data as any[];
    const addedEntry = entries.find((e) => e.action === 'passkey.added' && e.target.id === added.body.id);
    expect(addedEntry).toMatchObject({ actor: { type: 'member', id: p.memberId }, before: null, after: { name: 'Laptop', account_id: p.accountId, device_type: 'singleDevice', backed_up: false } });
    expect(JSON.stringify(addedEntry)).not.toContain(auth.credentials[0]!.id);
    expect(entries.find((e) => e.action === 'sign_in.succeeded' && e.actor.id === p.memberId && e.after.method === 'passkey')).toMatchObject({ target: { type: 'account', id: p.accountId } });
  });

  it('adding a passkey is for a signed-in person with the CSRF token; an API key gets 403 session_required', async () => {
    const p = await person();
    const noCsrf = await p.b.call('POST', '/v1/passkeys/options', { csrf: false });
    expect([noCsrf.status, noCsrf.body.error.code]).toEqual([403, 'csrf_token_invalid']);
    for (const [method, path] of [['POST', '/v1/passkeys/options'], ['GET', '/v1/passkeys']] as const) {
      const byKey = await client(s.url)(method, path, { key: org.live });
      expect([byKey.status, byKey.body.error.code]).toEqual([403, 'session_required']);
    }
    expect((await client(s.url)('GET', '/v1/passkeys')).status).toBe(401);
  });

  it('registration refuses another origin, a used or expired challenge, another person\'s challenge, and no user verification', async () => {
    const p = await person();
    const other = await person();
    const auth = new SoftwareAuthenticator(origin);
    const expectRefused = async (credential: unknown, reason: RegExp) => {
      const res = await p.b.call('POST', '/v1/passkeys', { body: { credential } });
      expect([res.status, res.body.error?.code, res.body.error?.param], JSON.stringify(res.body)).toEqual([400, 'parameter_invalid', 'credential']);
      expect(res.body.error.message).toMatch(reason);
    };
    await expectRefused(auth.register((await p.b.call('POST', '/v1/passkeys/options')).body, { origin: 'https://evil.example' }), /origin/i);
    await expectRefused(auth.register((await p.b.call('POST', '/v1/passkeys/options')).body, { rpId: 'evil.example' }), /RP ID/i);
    // A good answer, sent twice: the second finds its challenge used.
    const options = (await p.b.call('POST', '/v1/passkeys/options')).body;
    const good = auth.register(options);
    expect((await p.b.call('POST', '/v1/passkeys', { body: { credential: good } })).status).toBe(201);
    await expectRefused(good, /already used/);
    // Options handed to another person do not register a passkey for this one.
    await expectRefused(auth.register((await other.b.call('POST', '/v1/passkeys/options')).body), /unknown or was already used/);
    const stale = (await p.b.call('POST', '/v1/passkeys/options')).body;
    clock.advance(5 * 60_000 + 1000);
    await expectRefused(auth.register(stale), /expired/);
    // Garbage where the client data should be.
    await expectRefused({ ...good, response: { ...good.response, clientDataJSON: 'bm90IGpzb24' } }, /no readable challenge/);
    expect((await p.b.call('GET', '/v1/passkeys')).body.data).toHaveLength(1);
  });

  it('sign-in refuses a tampered signature, another origin, a replayed or expired challenge, an unknown passkey, a cloned counter, no user verification', async () => {
    const p = await person();
    const auth = new SoftwareAuthenticator(origin);
    await addPasskey(p.b, auth);

    const good = auth.assert(await signInOptions());
    const sig = Buffer.from(good.response.signature, 'base64url');
    sig[sig.length - 3] = sig[sig.length - 3]! ^ 0x01;
    await refused({ ...good, response: { ...good.response, signature: sig.toString('base64url') } }, /signature/i);
    // The tampered try used the challenge up; the untouched answer to it is now a replay.
    await refused(good, /already used/);
    // (A good sign-in between refusals clears the person's count, which locks at 4 here.)
    await signedIn(auth);

    await refused(auth.assert(await signInOptions(), { origin: 'https://evil.example' }), /origin/i);
    await refused(auth.assert(await signInOptions(), { flags: AUTHENTICATOR_FLAGS.UP }), /user.*verif/i);
    const stale = await signInOptions();
    clock.advance(5 * 60_000 + 1000);
    await refused(auth.assert(stale), /expired/);
    await signedIn(auth);

    // A credential this installation never registered.
    const stranger = new SoftwareAuthenticator(origin);
    stranger.register({ challenge: 'x', rp: { id: 'localhost', name: 'mmgen' }, user: { id: 'eA', name: 'x', displayName: 'x' } });
    await refused(stranger.assert(await signInOptions()), /not registered/);

    // A good sign-in (counter 100), then assertions whose counter is not past it: a clone.
    await signedIn(auth, 100);
    await refused(auth.assert(await signInOptions(), { counter: 100 }), /counter/i);
    await refused(auth.assert(await signInOptions(), { counter: 99 }), /counter/i);
    await signedIn(auth, 101);

    // Each refusal is in the installation's log (the operator's), never an organization's: who tried, and why.
    const failed = await s.db.query<{ target_type: string; target_id: string; after: { method: string; reason: string } }>(
      `SELECT target_type, target_id, after FROM audit_events WHERE chain = 'installation' AND action = 'sign_in.failed' AND after->>'method' = 'passkey'`,
    );
    expect(failed.rows.map((r) => r.after.reason)).toEqual(expect.arrayContaining([expect.stringMatching(/counter/), expect.stringMatching(/not registered/), expect.stringMatching(/expired/)]));
  });

  it('failed passkey sign-ins lock the person as failed passwords do (shared count), even for a good passkey', async () => {
    const p = await person();
    const auth = new SoftwareAuthenticator(origin);
    await addPasskey(p.b, auth);
    for (let i = 0; i < 4; i++) await refused(auth.assert(await signInOptions(), { origin: 'https://evil.example' }), /origin/i);
    const locked = await browser(s.url).call('POST', '/v1/session/passkey', { body: { credential: auth.assert(await signInOptions()) } });
    expect([locked.status, locked.body.error.code]).toEqual([429, 'rate_limit_exceeded']);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    const password = await browser(s.url).call('POST', '/v1/session', { body: { email: p.email, password: 'a long enough password' } });
    expect(password.status).toBe(429);
    const locks = await s.db.query<{ target_id: string }>(
      `SELECT target_id FROM audit_events WHERE chain = 'installation' AND action = 'sign_in.locked' AND after->>'method' = 'passkey'`,
    );
    expect(locks.rows.length).toBeGreaterThanOrEqual(1);
  });

  it('an organization that requires single sign-on refuses a passkey sign-in, as a password one', async () => {
    const strict = await s.createOrg({ name: 'SSO only' });
    const p = await person('developer', strict);
    const auth = new SoftwareAuthenticator(origin);
    await addPasskey(p.b, auth);
    // The connection as PUT /v1/organization/sso stores it (its issuer is never fetched by a sign-in refused first).
    await s.db.query(`INSERT INTO sso_connections (organization_id, issuer, client_id, require_sso, break_glass_user) VALUES ($1, 'https://idp.example', 'mmgen', true, $2)`, [strict.id, strict.userId]);
    const res = await browser(s.url).call('POST', '/v1/session/passkey', { body: { credential: auth.assert(await signInOptions()) } });
    expect([res.status, res.body.error.code]).toEqual([403, 'sso_required']);
    expect(res.headers.getSetCookie()).toEqual([]);
    // And the session that added the passkey (a password one) is refused from its next request.
    expect((await p.b.call('GET', '/v1/passkeys')).status).toBe(403);
  });

  it('two sign-ins that pass the library with one counter cannot both record it (the race a cloned authenticator would win)', async () => {
    const p = await person();
    const pk = await addPasskey(p.b, new SoftwareAuthenticator(origin));
    // Both read counter 0 and verified 7 > 0; only the first conditional update takes it.
    expect(await advancePasskeyCounter(s.db, pk.id, 7, false)).toBe(true);
    expect(await advancePasskeyCounter(s.db, pk.id, 7, false)).toBe(false);
    expect(await advancePasskeyCounter(s.db, pk.id, 6, false)).toBe(false);
    expect(await advancePasskeyCounter(s.db, pk.id, 8, false)).toBe(true);
  });

  it('a person removes a passkey (audited); it signs no one in afterwards; another person\'s passkey is 404', async () => {
    const p = await person();
    const q = await person();
    const auth = new SoftwareAuthenticator(origin);
    const pk = await addPasskey(p.b, auth, 'Phone');
    const intruder = await q.b.call('DELETE', `/v1/passkeys/${pk.id}`);
    const ghost = await q.b.call('DELETE', '/v1/passkeys/pky_ZZZZZZZZZZZZZZZZZZZZZZZZ');
    expect([intruder.status, intruder.body.error.code]).toEqual([404, 'resource_not_found']);
    expect(intruder.body.error.message.replace(pk.id, 'X')).toBe(ghost.body.error.message.replace('pky_ZZZZZZZZZZZZZZZZZZZZZZZZ', 'X'));
    expect((await q.b.call('GET', '/v1/passkeys')).body.data).toEqual([]);

    const removed = await p.b.call('DELETE', `/v1/passkeys/${pk.id}`);
    expect(removed.body).toEqual({ id: pk.id, object: 'passkey', deleted: true });
    expect((await p.b.call('DELETE', `/v1/passkeys/${pk.id}`)).status).toBe(404);
    await refused(auth.assert(await signInOptions()), /not registered/);
    const entries = (await client(s.url)('GET', '/v1/audit-events?action=passkey.removed', { key: org.live })).body.data as any[];
    expect(entries).toEqual([expect.objectContaining({ actor: expect.objectContaining({ type: 'member', id: p.memberId }), target: { type: 'passkey', id: pk.id }, before: expect.objectContaining({ name: 'Phone' }), after: null })]);
  });
});
