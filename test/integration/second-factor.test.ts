import { afterAll, beforeAll, expect, it } from 'vitest';
import { MovableClock } from '../../src/clock.js';
import { SoftwareAuthenticator } from '../helpers/software-authenticator.js';
import { browser } from '../helpers/browser-session.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * A passkey after the password (issue 31 item 1): the person's setting (audited, needs a passkey, keeps the last
 * one), then a password sign-in that answers 401 `second_factor_required` with a single-use HttpOnly pending cookie
 * and no session, completed only by an assertion of one of that person's passkeys (signed by a software
 * authenticator, verified by the real @simplewebauthn/server). Refused: another person's passkey, a reused or
 * expired pending sign-in; failed second factors lock the person as failed passwords do.
 */
describeOnBackend('a passkey after the password', 'pglite', (backend) => {
  let s: TestServer;
  let org: TestOrg;
  let origin: string;
  const clock = new MovableClock();
  const PASSWORD = 'a long enough password';

  let people = 0;
  async function person() {
    const email = `second-factor${++people}@example.test`;
    const inv = await client(s.url)('POST', '/v1/invitations', { key: org.live, body: { email, role: 'developer' } });
    expect(inv.status, JSON.stringify(inv.body)).toBe(201);
    const b = browser(s.url);
    const accepted = await b.call('POST', '/v1/invitations/accept', { body: { token: new URL(inv.body.url).hash.replace('#token=', ''), password: PASSWORD } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    return { b, email, memberId: accepted.body.member_id as string, accountId: accepted.body.account.id as string };
  }

  async function addPasskey(b: ReturnType<typeof browser>, auth: SoftwareAuthenticator) {
    const options = await b.call('POST', '/v1/passkeys/options');
    const added = await b.call('POST', '/v1/passkeys', { body: { credential: auth.register(options.body) } });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    return added.body as { id: string };
  }

  /** A person with a passkey who turned the setting on. */
  async function protectedPerson() {
    const p = await person();
    const auth = new SoftwareAuthenticator(origin);
    const pk = await addPasskey(p.b, auth);
    const on = await p.b.call('PATCH', '/v1/account', { body: { passkey_after_password: true } });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    return { ...p, auth, pk };
  }

  /** The password step: 401 second_factor_required, no session cookie, the pending cookie (HttpOnly, Strict, scoped). */
  async function passwordStep(email: string) {
    const b = browser(s.url);
    const res = await b.call('POST', '/v1/session', { body: { email, password: PASSWORD } });
    expect([res.status, res.body.error?.code], JSON.stringify(res.body)).toEqual([401, 'second_factor_required']);
    const cookies = res.headers.getSetCookie();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatch(/^mmgen_second_factor=[0-9A-Za-z]{43};/);
    expect(cookies[0]).toMatch(/HttpOnly/i);
    expect(cookies[0]).toMatch(/SameSite=Strict/i);
    expect(cookies[0]).toMatch(/Path=\/v1\/session\/second-factor/);
    expect(cookies[0]).toMatch(/Max-Age=300/);
    return b;
  }

  const secondFactorOptions = async (b: ReturnType<typeof browser>) => {
    const res = await b.call('POST', '/v1/session/second-factor/options');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };

  async function refused(b: ReturnType<typeof browser>, credential: unknown, reason: RegExp) {
    const res = await b.call('POST', '/v1/session/second-factor', { body: { credential } });
    expect([res.status, res.body.error?.code], JSON.stringify(res.body)).toEqual([401, 'invalid_credentials']);
    expect(res.body.error.message).toMatch(reason);
    expect(res.headers.getSetCookie().some((c) => c.startsWith('mmgen_session='))).toBe(false);
    return res;
  }

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIGNIN_SLOW_AFTER: '1000', MMGEN_SIGNIN_LOCK_AFTER: '4', MMGEN_SIGNIN_ADDRESS_LOCK_AFTER: '10000' }, { clock, publicHost: 'localhost' });
    origin = s.config.publicUrl;
    org = await s.createOrg({ credits: 0 });
  });
  afterAll(async () => s?.close());

  it('turning it on needs a passkey; it is recorded with before and after; the session shows it', async () => {
    const p = await person();
    const early = await p.b.call('PATCH', '/v1/account', { body: { passkey_after_password: true } });
    expect([early.status, early.body.error?.code, early.body.error?.param]).toEqual([409, 'passkey_required', 'passkey_after_password']);
    expect((await p.b.call('GET', '/v1/session')).body.account.passkey_after_password).toBe(false);
    await addPasskey(p.b, new SoftwareAuthenticator(origin));
    const noCsrf = await p.b.call('PATCH', '/v1/account', { body: { passkey_after_password: true }, csrf: false });
    expect([noCsrf.status, noCsrf.body.error.code]).toEqual([403, 'csrf_token_invalid']);
    const on = await p.b.call('PATCH', '/v1/account', { body: { passkey_after_password: true } });
    expect(on.body).toEqual({ id: p.accountId, object: 'account', email: p.email, name: null, has_password: true, passkey_after_password: true });
    expect((await p.b.call('GET', '/v1/session')).body.account.passkey_after_password).toBe(true);
    // An API key has no account of its own to change.
    const byKey = await client(s.url)('PATCH', '/v1/account', { key: org.live, body: { passkey_after_password: false } });
    expect([byKey.status, byKey.body.error.code]).toEqual([403, 'session_required']);
    const entries = (await client(s.url)('GET', '/v1/audit-events?action=account.updated', { key: org.live })).body.data as any[];
    expect(entries.filter((e) => e.target.id === p.accountId)).toEqual([
      expect.objectContaining({ actor: expect.objectContaining({ type: 'member', id: p.memberId }), before: { passkey_after_password: false }, after: { passkey_after_password: true } }),
    ]);
  });

  it('password, then a passkey: the session starts only after the assertion; the password alone gives none', async () => {
    const p = await protectedPerson();
    const b = await passwordStep(p.email);
    // Nothing is signed in between the two steps.
    expect((await b.call('GET', '/v1/session')).status).toBe(401);
    const options = await secondFactorOptions(b);
    // The options name the person's passkeys (a second factor, not a discoverable sign-in).
    expect(options.allowCredentials).toEqual([expect.objectContaining({ id: p.auth.credentials[0]!.id, type: 'public-key' })]);
    const done = await b.call('POST', '/v1/session/second-factor', { body: { credential: p.auth.assert(options) } });
    expect(done.status, JSON.stringify(done.body)).toBe(201);
    expect(done.body).toMatchObject({ object: 'session', method: 'password_passkey', member_id: p.memberId, organization_id: org.id });
    const cookies = done.headers.getSetCookie();
    expect(cookies.find((c) => c.startsWith('mmgen_session='))).toMatch(/HttpOnly/i);
    expect(cookies.find((c) => c.startsWith('mmgen_second_factor='))).toMatch(/Max-Age=0/);
    expect((await b.call('GET', '/v1/session')).body).toMatchObject({ method: 'password_passkey', member_id: p.memberId });
    // A wrong password is the same 401 invalid_credentials as ever, with no pending cookie.
    const wrong = await browser(s.url).call('POST', '/v1/session', { body: { email: p.email, password: 'not the password' } });
    expect([wrong.status, wrong.body.error.code]).toEqual([401, 'invalid_credentials']);
    expect(wrong.headers.getSetCookie()).toEqual([]);
    // A passkey on its own still signs in (it is the stronger credential).
    const alone = await browser(s.url).call('POST', '/v1/session/passkey', {
      body: { credential: p.auth.assert((await client(s.url)('POST', '/v1/session/passkey/options')).body) },
    });
    expect(alone.status).toBe(201);
    const log = await s.db.query<{ action: string }>(
      `SELECT action FROM audit_events WHERE chain = 'installation' AND action = 'sign_in.second_factor_required' AND target_id = $1`, [p.accountId],
    );
    expect(log.rows).toHaveLength(1);
  });

  it("refuses another person's passkey, a reused pending sign-in, an expired one, and none at all", async () => {
    const p = await protectedPerson();
    const other = await protectedPerson();

    // Another person's passkey (a good assertion of theirs, to options of this pending sign-in).
    let b = await passwordStep(p.email);
    await refused(b, other.auth.assert(await secondFactorOptions(b)), /not one of your passkeys/);
    // The pending sign-in was used up by that answer: the right passkey now is too late.
    const reused = await refused(b, p.auth.assert(await (async () => {
      const res = await b.call('POST', '/v1/session/second-factor/options');
      expect([res.status, res.body.error?.code]).toEqual([401, 'invalid_credentials']);
      return (await client(s.url)('POST', '/v1/session/passkey/options')).body;
    })()), /sign in with your password again/);
    void reused;

    // The same cookie sent again after a success is refused too.
    b = await passwordStep(p.email);
    const pendingCookie = b.jar.get('mmgen_second_factor')!;
    const options = await secondFactorOptions(b);
    expect((await b.call('POST', '/v1/session/second-factor', { body: { credential: p.auth.assert(options) } })).status).toBe(201);
    const replay = browser(s.url);
    replay.jar.set('mmgen_second_factor', pendingCookie);
    await refused(replay, p.auth.assert(await secondFactorOptions(await passwordStep(p.email))), /unknown, used or expired/);

    // Expired: five minutes after the password.
    b = await passwordStep(p.email);
    const stale = await secondFactorOptions(b);
    clock.advance(5 * 60_000 + 1000);
    await refused(b, p.auth.assert(stale), /unknown, used or expired/);

    // No pending cookie at all.
    await refused(browser(s.url), p.auth.assert((await client(s.url)('POST', '/v1/session/passkey/options')).body), /sign in with your password again/);
    // Options for a sign-in that skipped the password step are refused as well.
    const noPending = await client(s.url)('POST', '/v1/session/second-factor/options');
    expect([noPending.status, noPending.body.error.code]).toEqual([401, 'invalid_credentials']);
  });

  it('failed second factors lock the person as failed passwords do, even with the right password and passkey', async () => {
    const p = await protectedPerson();
    const other = await protectedPerson();
    for (let i = 0; i < 4; i++) {
      const b = await passwordStep(p.email);
      await refused(b, other.auth.assert(await secondFactorOptions(b)), /not one of your passkeys/);
    }
    const locked = await browser(s.url).call('POST', '/v1/session', { body: { email: p.email, password: PASSWORD } });
    expect([locked.status, locked.body.error.code]).toEqual([429, 'rate_limit_exceeded']);
    const failed = await s.db.query<{ after: { method: string; reason: string } }>(
      `SELECT after FROM audit_events WHERE chain = 'installation' AND action = 'sign_in.failed' AND target_id = $1`, [p.accountId],
    );
    expect(failed.rows.map((r) => r.after.method)).toEqual(['password_passkey', 'password_passkey', 'password_passkey', 'password_passkey']);
  });

  it('the last passkey cannot be removed while it is on; turned off, it can, and a password alone signs in again', async () => {
    const p = await protectedPerson();
    const last = await p.b.call('DELETE', `/v1/passkeys/${p.pk.id}`);
    expect([last.status, last.body.error?.code]).toEqual([409, 'passkey_required']);
    expect((await p.b.call('GET', '/v1/passkeys')).body.data).toHaveLength(1);
    // With a second passkey, the first may go.
    const spare = new SoftwareAuthenticator(origin);
    const second = await addPasskey(p.b, spare);
    expect((await p.b.call('DELETE', `/v1/passkeys/${p.pk.id}`)).status).toBe(200);
    expect((await p.b.call('DELETE', `/v1/passkeys/${second.id}`)).status).toBe(409);
    const off = await p.b.call('PATCH', '/v1/account', { body: { passkey_after_password: false } });
    expect(off.body.passkey_after_password).toBe(false);
    expect((await p.b.call('DELETE', `/v1/passkeys/${second.id}`)).status).toBe(200);
    const plain = await browser(s.url).call('POST', '/v1/session', { body: { email: p.email, password: PASSWORD } });
    expect(plain.status).toBe(201);
    expect(plain.body.method).toBe('password');
  });
});
