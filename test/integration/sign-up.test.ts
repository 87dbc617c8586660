import { afterAll, beforeAll, expect, it } from 'vitest';
import { MovableClock } from '../../src/clock.js';
import { runRetention } from '../../src/request-log/retention.js';
import { loadConfig } from '../../src/config.js';
import { browser } from '../helpers/browser-session.js';
import { client, describeOnBackend, startTestServer, type TestServer } from '../helpers/server.js';
import { startSmtpCapture, type CapturedMail } from '../helpers/smtp.js';

/**
 * Self sign-up (issue 31 item 1): off by default (403 sign_up_closed); on (MMGEN_SIGNUP=on, with SMTP), a sign-up
 * mails a link through a real SMTP server on loopback; following it creates the account and a new organization the
 * person owns (empty wallet, no keys) and signs them in. An email that has an account gets the same answer (its
 * owner is mailed a notice, without a link). Sign-ups are braked like sign-ins.
 */
const signUpLink = (mail: CapturedMail) =>
  /https?:\/\/\S+\/dashboard\/sign-up#token=[0-9A-Za-z]+/.exec(mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='))?.[0];
const tokenOf = (link: string) => new URL(link).hash.replace('#token=', '');

it('MMGEN_SIGNUP=on without SMTP is refused at config validation, with what to do', () => {
  expect(() => loadConfig({ MMGEN_SIGNUP: 'on' })).toThrow(/MMGEN_SIGNUP=on needs MMGEN_SMTP_URL/);
  expect(() => loadConfig({ MMGEN_SIGNUP: 'maybe' })).toThrow(/MMGEN_SIGNUP must be on or off/);
  expect(() => loadConfig({ MMGEN_SIGNUP_PLAN: 'gold' })).toThrow(/MMGEN_SIGNUP_PLAN must be one of free, pro, studio, team/);
  expect(loadConfig({}).signUp).toEqual({ enabled: false, plan: 'free', ttlS: 86_400 });
});

describeOnBackend('self sign-up', 'pglite', (backend) => {
  let s: TestServer;
  let closed: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
  const clock = new MovableClock();
  const mailsTo = (email: string) => smtp.mails.filter((m) => m.to.some((to) => to.toLowerCase() === email.toLowerCase()));

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    s = await startTestServer(
      backend,
      {
        MMGEN_SIGNUP: 'on', MMGEN_SMTP_URL: smtp.url, MMGEN_MAIL_FROM: 'mmgen <mmgen@example.test>',
        MMGEN_SIGNIN_SLOW_AFTER: '1000', MMGEN_SIGNIN_LOCK_AFTER: '3', MMGEN_SIGNIN_ADDRESS_LOCK_AFTER: '10000',
      },
      { clock },
    );
    // SMTP configured, sign-up not opened: the default.
    closed = await startTestServer(backend, { MMGEN_SMTP_URL: smtp.url, MMGEN_MAIL_FROM: 'mmgen <mmgen@example.test>' }, { sameDbAs: s });
  });
  afterAll(async () => {
    await closed?.close();
    await s?.close();
    await smtp?.close();
  });

  it('off by default: the sign-in page is told so, and every sign-up route is 403 sign_up_closed', async () => {
    expect((await client(closed.url)('GET', '/v1/sign-up')).body).toEqual({ object: 'sign_up_settings', open: false });
    const post = await client(closed.url)('POST', '/v1/sign-up', { body: { email: 'closed@example.test', password: 'a long enough password' } });
    expect([post.status, post.body.error.code]).toEqual([403, 'sign_up_closed']);
    expect(post.body.error.message).toMatch(/does not take sign-ups/);
    const verify = await client(closed.url)('POST', '/v1/sign-up/verify', { body: { token: 'x'.repeat(43) } });
    expect([verify.status, verify.body.error.code]).toEqual([403, 'sign_up_closed']);
    expect(mailsTo('closed@example.test')).toEqual([]);
    expect((await client(s.url)('GET', '/v1/sign-up')).body).toEqual({ object: 'sign_up_settings', open: true });
  });

  it('sign up, follow the mailed link: the person owns a new organization (empty wallet), is signed in, and it is audited', async () => {
    const email = 'Newcomer@Example.test';
    const res = await client(s.url)('POST', '/v1/sign-up', { body: { email, password: 'a long enough password' } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({ object: 'sign_up', email, status: 'verification_sent' });
    // Nothing exists before the link is followed.
    expect((await s.db.query('SELECT 1 FROM accounts WHERE email_key = $1', ['newcomer@example.test'])).rows).toEqual([]);
    const [mail] = mailsTo(email);
    expect(mail).toBeDefined();
    const link = signUpLink(mail!)!;
    expect(link).toMatch(new RegExp(`^${s.url}/dashboard/sign-up#token=[0-9A-Za-z]{43}$`));

    const b = browser(s.url);
    const verified = await b.call('POST', '/v1/sign-up/verify', { body: { token: tokenOf(link) } });
    expect(verified.status, JSON.stringify(verified.body)).toBe(201);
    expect(verified.body).toMatchObject({ object: 'session', method: 'sign_up', role: 'owner', account: { email, has_password: true, passkey_after_password: false } });
    expect(verified.body.memberships).toEqual([expect.objectContaining({ organization_id: verified.body.organization_id, role: 'owner', organization_name: "Newcomer's organization" })]);
    expect(verified.headers.getSetCookie().find((c) => c.startsWith('mmgen_session='))).toMatch(/HttpOnly/i);
    const orgId = verified.body.organization_id as string;
    // The hash now lives with the account only: the verified sign-up keeps no copy of it.
    const kept = await s.db.query<{ password_hash: string | null; verified: boolean }>('SELECT password_hash, verified_at IS NOT NULL AS verified FROM sign_ups WHERE email_key = $1', ['newcomer@example.test']);
    expect(kept.rows).toEqual([{ password_hash: null, verified: true }]);
    // The person acts in their new organization: its owner, its wallet empty, its plan the operator's sign-up plan.
    expect((await b.call('GET', '/v1/organization')).body).toMatchObject({ id: orgId, plan: 'free', enterprise: false });
    expect((await b.call('GET', '/v1/wallet')).body).toMatchObject({ balance_credits: 0 });
    expect((await b.call('GET', '/v1/members')).body.data).toEqual([expect.objectContaining({ id: verified.body.member_id, role: 'owner', email })]);
    // No owner keys were made whose secrets nobody would see; the owner makes their own.
    expect((await b.call('GET', '/v1/api-keys')).body.data).toEqual([]);
    const key = await b.call('POST', '/v1/api-keys', { body: { name: 'mine', role: 'owner' } });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    // The password chosen at sign-up signs in.
    expect((await browser(s.url).call('POST', '/v1/session', { body: { email: 'newcomer@example.test', password: 'a long enough password' } })).status).toBe(201);
    // The link works once.
    const again = await browser(s.url).call('POST', '/v1/sign-up/verify', { body: { token: tokenOf(link) } });
    expect([again.status, again.body.error.code]).toEqual([410, 'sign_up_invalid']);

    const entries = (await b.call('GET', '/v1/audit-events?limit=100')).body.data as any[];
    const actions = entries.map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['organization.created', 'account.created', 'member.added']));
    expect(entries.find((e) => e.action === 'organization.created')).toMatchObject({ actor: { type: 'member', id: verified.body.member_id }, before: null, after: { plan: 'free', owner_user_id: verified.body.member_id } });
    expect(entries.find((e) => e.action === 'account.created')).toMatchObject({ target: { type: 'account', id: verified.body.account.id }, after: { via: 'sign_up' } });
    const requested = await s.db.query<{ after: { existing_account: boolean } }>(`SELECT after FROM audit_events WHERE chain = 'installation' AND action = 'sign_up.requested' AND target_id = $1`, [email]);
    expect(requested.rows).toEqual([{ after: { existing_account: false } }]);
  });

  it('an email that has an account gets the same answer; its owner is mailed a notice without a link', async () => {
    const email = 'taken@example.test';
    const first = await client(s.url)('POST', '/v1/sign-up', { body: { email, password: 'a long enough password' } });
    expect((await browser(s.url).call('POST', '/v1/sign-up/verify', { body: { token: tokenOf(signUpLink(mailsTo(email)[0]!)!) } })).status).toBe(201);
    const second = await client(s.url)('POST', '/v1/sign-up', { body: { email, password: 'another long password' } });
    const fresh = await client(s.url)('POST', '/v1/sign-up', { body: { email: 'untaken@example.test', password: 'another long password' } });
    const shape = (r: typeof first) => ({ status: r.status, keys: Object.keys(r.body).sort(), status_field: r.body.status, object: r.body.object });
    expect(shape(second)).toEqual(shape(fresh));
    expect(shape(second)).toEqual(shape(first));
    const mails = mailsTo(email);
    expect(mails).toHaveLength(2);
    expect(signUpLink(mails[1]!)).toBeUndefined();
    expect(mails[1]!.raw).toMatch(/already has one/);
    // The account is untouched: the old password still signs in, the new one does not.
    expect((await browser(s.url).call('POST', '/v1/session', { body: { email, password: 'a long enough password' } })).status).toBe(201);
    expect((await browser(s.url).call('POST', '/v1/session', { body: { email, password: 'another long password' } })).status).toBe(401);
  });

  it('refuses a short password, an expired link, and a link whose email got an account meanwhile', async () => {
    const short = await client(s.url)('POST', '/v1/sign-up', { body: { email: 'short@example.test', password: 'short' } });
    expect([short.status, short.body.error.code, short.body.error.param]).toEqual([400, 'parameter_invalid', 'password']);
    expect(mailsTo('short@example.test')).toEqual([]);

    await client(s.url)('POST', '/v1/sign-up', { body: { email: 'late@example.test', password: 'a long enough password' } });
    clock.advance(24 * 3600_000 + 1000);
    const late = await browser(s.url).call('POST', '/v1/sign-up/verify', { body: { token: tokenOf(signUpLink(mailsTo('late@example.test')[0]!)!) } });
    expect([late.status, late.body.error.code]).toEqual([410, 'sign_up_invalid']);
    // Its password hash does not wait for the next sign-up to go: retention deletes the expired sign-up.
    const lateRow = () => s.db.query('SELECT 1 FROM sign_ups WHERE email_key = $1', ['late@example.test']).then((r) => r.rows);
    expect(await lateRow()).toHaveLength(1);
    expect((await runRetention(s.runtime.deps)).expiredSignUpsDeleted).toBeGreaterThanOrEqual(1);
    expect(await lateRow()).toEqual([]);

    // Two sign-ups of one email before either link is followed: the first followed wins, the second is 409.
    await client(s.url)('POST', '/v1/sign-up', { body: { email: 'twice@example.test', password: 'a long enough password' } });
    await client(s.url)('POST', '/v1/sign-up', { body: { email: 'twice@example.test', password: 'a long enough password' } });
    const [one, two] = mailsTo('twice@example.test').map((m) => tokenOf(signUpLink(m)!));
    expect((await browser(s.url).call('POST', '/v1/sign-up/verify', { body: { token: one } })).status).toBe(201);
    const taken = await browser(s.url).call('POST', '/v1/sign-up/verify', { body: { token: two } });
    expect([taken.status, taken.body.error.code]).toEqual([409, 'email_taken']);
    expect((await s.db.query('SELECT 1 FROM accounts WHERE email_key = $1', ['twice@example.test'])).rows).toHaveLength(1);
  });

  it('sign-ups of one email are braked like failed sign-ins: locked (429) past the limit, and recorded', async () => {
    const email = 'flood@example.test';
    for (let i = 0; i < 3; i++) expect((await client(s.url)('POST', '/v1/sign-up', { body: { email, password: 'a long enough password' } })).status).toBe(202);
    const locked = await client(s.url)('POST', '/v1/sign-up', { body: { email, password: 'a long enough password' } });
    expect([locked.status, locked.body.error.code]).toEqual([429, 'rate_limit_exceeded']);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(mailsTo(email)).toHaveLength(3);
    const rows = await s.db.query(`SELECT 1 FROM audit_events WHERE chain = 'installation' AND action = 'sign_up.locked' AND target_id = $1`, [email]);
    expect(rows.rows).toHaveLength(1);
  });
});
