import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topUp } from '../../src/billing/credits.js';
import { bootstrapDefaultOrganization } from '../../src/main.js';
import { browser } from '../helpers/browser-session.js';
import { startSmtpCapture } from '../helpers/smtp.js';
import { client, describeOnBackend, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * People (issue 31): the first-start owner link, password sign-in with a session cookie and CSRF token, invitations
 * mailed through a real SMTP server on loopback, members' roles bounding their keys (on every node), the last owner,
 * several organizations per person, listing and revoking one's sessions, timeouts, and the sign-in brute-force brake.
 */

const tokenOf = (url: string) => new URL(url).hash.replace('#token=', '');

describeOnBackend('people: accounts, sessions, members and invitations', 'pglite', (backend) => {
  let s: TestServer;
  let node2: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
  let orgId: string;
  let ownerKey: string;
  const owner = () => browser(s.url);
  let ownerB: ReturnType<typeof browser>;

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    s = await startTestServer(backend, {
      MMGEN_SIMULATE_PROVIDERS: '1',
      MMGEN_SMTP_URL: smtp.url,
      MMGEN_MAIL_FROM: 'mmgen <mmgen@example.test>',
      MMGEN_SIGNIN_SLOW_AFTER: '2',
      MMGEN_SIGNIN_LOCK_AFTER: '4',
    });
    node2 = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1' }, { sameDbAs: s });
    const created = await bootstrapDefaultOrganization(s.runtime.deps);
    expect(created).not.toBeNull();
    orgId = created!.organization.id;
    ownerKey = created!.keys.live;
    // The link is the dashboard's page with the token in the fragment (no server log ever sees it).
    expect(created!.ownerLink).toMatch(new RegExp(`^${s.url}/dashboard/accept-invitation#token=[0-9A-Za-z]{43}$`));
    ownerB = owner();
    const accepted = await ownerB.call('POST', '/v1/invitations/accept', {
      body: { token: tokenOf(created!.ownerLink), email: 'Owner@Example.test', password: 'correct horse battery', name: 'Olive Owner' },
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    expect(accepted.body).toMatchObject({ organization_id: orgId, role: 'owner', account: { email: 'Owner@Example.test', has_password: true } });
    // Used once.
    const again = await browser(s.url).call('POST', '/v1/invitations/accept', { body: { token: tokenOf(created!.ownerLink), email: 'x@example.test', password: 'another password 1' } });
    expect([again.status, again.body.error.code]).toEqual([410, 'invitation_invalid']);
  });
  afterAll(async () => {
    await node2?.close();
    await s?.close();
    await smtp?.close();
  });

  it('the session cookie is HttpOnly and SameSite; the owner link made the owner of the first keys', async () => {
    const b = browser(s.url);
    const res = await b.call('POST', '/v1/session', { body: { email: 'owner@example.test', password: 'correct horse battery' } });
    expect(res.status).toBe(201);
    const cookies = res.headers.getSetCookie();
    const session = cookies.find((c) => c.startsWith('mmgen_session='))!;
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Lax/i);
    // Served over http on loopback: no Secure flag and no __Host- prefix (the browser would drop them).
    expect(session).not.toMatch(/Secure/i);
    expect(cookies.find((c) => c.startsWith('mmgen_csrf='))).not.toMatch(/HttpOnly/i);
    expect(res.body.csrf_token).toBe(b.csrf);
    const members = (await b.call('GET', '/v1/members')).body.data;
    expect(members).toEqual([expect.objectContaining({ email: 'Owner@Example.test', role: 'owner' })]);
    // The latest sign-in is this one (the person's newest session).
    const sessions = (await b.call('GET', '/v1/sessions')).body.data as Array<{ created_at: string }>;
    expect(members[0].last_signed_in_at).toBe(sessions.map((x) => x.created_at).sort().at(-1));
    // The first keys belong to that member: the same organization's owner key lists the same member.
    expect((await client(s.url)('GET', '/v1/members', { key: ownerKey })).body.data[0].id).toBe(members[0].id);
  });

  it('CSRF: a state-changing request with the cookie but without the token is refused, and changes nothing', async () => {
    const b = browser(s.url);
    await b.call('POST', '/v1/session', { body: { email: 'owner@example.test', password: 'correct horse battery' } });
    const before = (await b.call('GET', '/v1/api-keys')).body.data.length;
    for (const headers of [{}, { 'x-csrf-token': 'A'.repeat(43) }] as Array<Record<string, string>>) {
      const res = await b.call('POST', '/v1/api-keys', { body: { name: 'forged' }, csrf: false, headers });
      expect([res.status, res.body.error.code]).toEqual([403, 'csrf_token_invalid']);
    }
    expect((await b.call('DELETE', '/v1/session', { csrf: false })).status).toBe(403);
    expect((await b.call('GET', '/v1/api-keys')).body.data.length).toBe(before);
    const made = await b.call('POST', '/v1/api-keys', { body: { name: 'by the owner in the dashboard' } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ role: 'owner', effective_role: 'owner' });
    // The session's own key is never listed.
    expect((await b.call('GET', '/v1/api-keys')).body.data.map((k: any) => k.name)).not.toContain('Dashboard session (live)');
  });

  it('invite a developer by mail, accept, make a key; demoting lowers it and removing revokes it on every node', async () => {
    const b = ownerB;
    const inv = await b.call('POST', '/v1/invitations', { body: { email: 'dev@example.test', role: 'developer' } });
    expect(inv.status, JSON.stringify(inv.body)).toBe(201);
    expect(inv.body.mail).toBe('sent');
    const mail = smtp.mails.find((m) => m.to.includes('dev@example.test'))!;
    expect(mail).toBeDefined();
    const link = /https?:\/\/\S+#token=[0-9A-Za-z]+/.exec(mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='))![0];
    expect(link).toBe(inv.body.url);
    expect((await b.call('GET', '/v1/invitations')).body.data.map((i: any) => i.id)).toContain(inv.body.id);

    const dev = browser(s.url);
    // The invitation's email is the account's: none other can be chosen.
    const joined = await dev.call('POST', '/v1/invitations/accept', { body: { token: tokenOf(link), email: 'someone@else.test', password: 'developer password 1' } });
    expect(joined.status, JSON.stringify(joined.body)).toBe(201);
    expect(joined.body).toMatchObject({ role: 'developer', account: { email: 'dev@example.test' } });
    const devMember = joined.body.member_id;

    // A developer may not invite nor manage members.
    expect((await dev.call('POST', '/v1/invitations', { body: { email: 'x@example.test', role: 'viewer' } })).status).toBe(403);
    const key = await dev.call('POST', '/v1/api-keys', { body: { name: 'dev key' } });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    expect(key.body).toMatchObject({ role: 'developer', effective_role: 'developer' });
    // Not even the developer's session can make a key above its role.
    expect((await dev.call('POST', '/v1/api-keys', { body: { name: 'x', role: 'admin' } })).status).toBe(403);

    const api1 = client(s.url);
    const api2 = client(node2.url);
    const image = { model: 'flux-schnell', prompt: 'a member key', width: 256, height: 256 };
    await topUp(s.db, { organizationId: orgId, credits: 100_000, reference: 'people-test', note: 'test credits' });
    // Through the key cache of node 2 (a generation is a cacheable route).
    const first = await api2('POST', '/v1/images', { key: key.body.key, body: image });
    expect(first.status, JSON.stringify(first.body)).toBe(200);

    // Demoted to viewer: the key is a viewer's from its next request, on both nodes.
    const demoted = await b.call('PATCH', `/v1/members/${devMember}`, { body: { role: 'viewer' } });
    expect(demoted.status, JSON.stringify(demoted.body)).toBe(200);
    expect(demoted.body.role).toBe('viewer');
    for (const api of [api1, api2]) {
      const res = await api('POST', '/v1/images', { key: key.body.key, body: image });
      expect([res.status, res.body.error?.code]).toEqual([403, 'insufficient_role']);
      expect((await api('GET', '/v1/api-keys/current', { key: key.body.key })).body).toMatchObject({ role: 'developer', effective_role: 'viewer' });
    }
    // And so is their session.
    expect((await dev.call('POST', '/v1/api-keys', { body: { name: 'y' } })).status).toBe(403);
    expect((await dev.call('GET', '/v1/session')).body.role).toBe('viewer');

    // Removed: the key answers 401 on its next request, on every node; the session ends.
    const removed = await b.call('DELETE', `/v1/members/${devMember}`);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    for (const api of [api2, api1]) {
      const res = await api('POST', '/v1/images', { key: key.body.key, body: image });
      expect([res.status, res.body.error?.code]).toEqual([401, 'invalid_api_key']);
    }
    const ended = await dev.call('GET', '/v1/session');
    expect([ended.status, ended.body.error.code]).toEqual([401, 'session_expired']);
    expect((await b.call('GET', '/v1/members')).body.data.map((m: any) => m.id)).not.toContain(devMember);

    // The audit log has every step, with its actor (the member who acted), the address and request, before and after.
    const ownerMember = (await b.call('GET', '/v1/session')).body.member_id as string;
    const entries = (await b.call('GET', '/v1/audit-events?limit=100')).body.data as any[];
    const entry = (action: string, targetId: string) => {
      const found = entries.filter((e) => e.action === action && e.target.id === targetId);
      expect(found, `${action} ${targetId}`).toHaveLength(1);
      expect(found[0].client_address).toBeTruthy();
      expect(found[0].request_id).toBeTruthy();
      return found[0];
    };
    expect(entry('invitation.created', inv.body.id)).toMatchObject({ actor: { type: 'member', id: ownerMember }, before: null, after: { email: 'dev@example.test', role: 'developer' } });
    expect(entry('invitation.accepted', inv.body.id)).toMatchObject({ actor: { type: 'member', id: devMember } });
    expect(entry('member.added', devMember)).toMatchObject({ actor: { type: 'member', id: devMember }, after: { role: 'developer', via: 'invitation' } });
    expect(entry('api_key.created', key.body.id)).toMatchObject({ actor: { type: 'member', id: devMember }, after: { role: 'developer' } });
    expect(entry('member.role_changed', devMember)).toMatchObject({ actor: { type: 'member', id: ownerMember }, before: { role: 'developer' }, after: { role: 'viewer' } });
    expect(entry('member.removed', devMember)).toMatchObject({ actor: { type: 'member', id: ownerMember }, before: { role: 'viewer' }, after: { removed: true, revoked_keys: expect.any(Number) } });
    expect(entry('member.removed', devMember).after.revoked_keys).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(entries)).not.toContain(tokenOf(link));
  });

  it('the last owner can be neither demoted nor removed, by a key or a session', async () => {
    const me = (await ownerB.call('GET', '/v1/session')).body.member_id;
    for (const res of [
      await ownerB.call('PATCH', `/v1/members/${me}`, { body: { role: 'admin' } }),
      await ownerB.call('DELETE', `/v1/members/${me}`),
      await client(s.url)('DELETE', `/v1/members/${me}`, { key: ownerKey }),
    ]) expect([res.status, res.body.error.code]).toEqual([409, 'last_owner']);
    // An admin cannot touch an owner, nor grant owner.
    const inv = await ownerB.call('POST', '/v1/invitations', { body: { email: 'admin@example.test', role: 'admin' } });
    const admin = browser(s.url);
    expect((await admin.call('POST', '/v1/invitations/accept', { body: { token: tokenOf(inv.body.url), password: 'admin password 12' } })).status).toBe(201);
    expect((await admin.call('PATCH', `/v1/members/${me}`, { body: { role: 'viewer' } })).body.error.code).toBe('insufficient_role');
    const adminId = (await admin.call('GET', '/v1/session')).body.member_id;
    expect((await admin.call('PATCH', `/v1/members/${adminId}`, { body: { role: 'owner' } })).body.error.code).toBe('insufficient_role');
    expect((await admin.call('POST', '/v1/invitations', { body: { email: 'o2@example.test', role: 'owner' } })).body.error.code).toBe('insufficient_role');
  });

  it('a person belongs to several organizations and switches; a session never reads another organization', async () => {
    const other = await s.createOrg({ name: 'second' });
    const api = client(s.url);
    const otherKey = (await api('POST', '/v1/api-keys', { key: other.live, body: { name: 'secret of org B' } })).body;
    // Org B invites the owner of org A (by their email); signed in, they accept with their own account.
    const inv = await api('POST', '/v1/invitations', { key: other.live, body: { email: 'owner@example.test', role: 'developer' } });
    expect(inv.status, JSON.stringify(inv.body)).toBe(201);
    expect(inv.body.mail).toBe('sent');
    const b = browser(s.url);
    await b.call('POST', '/v1/session', { body: { email: 'owner@example.test', password: 'correct horse battery' } });
    // While acting in org A, org B's key is 404 exactly as a made-up id.
    const probe = await b.call('GET', `/v1/api-keys/${otherKey.id}`);
    expect([probe.status, probe.body.error.code]).toEqual([404, 'resource_not_found']);
    expect((await b.call('PATCH', '/v1/session', { body: { organization_id: other.id } })).status).toBe(404);
    const accepted = await b.call('POST', '/v1/invitations/accept', { body: { token: tokenOf(inv.body.url) } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    expect(accepted.body.memberships.map((m: any) => m.organization_id).sort()).toEqual([orgId, other.id].sort());
    const switched = await b.call('PATCH', '/v1/session', { body: { organization_id: other.id } });
    expect(switched.body).toMatchObject({ organization_id: other.id, role: 'developer' });
    expect((await b.call('GET', '/v1/organization')).body.id).toBe(other.id);
    expect((await b.call('GET', `/v1/api-keys/${otherKey.id}`)).status).toBe(200);
    await b.call('PATCH', '/v1/session', { body: { organization_id: orgId } });
    expect((await b.call('GET', '/v1/organization')).body.id).toBe(orgId);
    // Each switch is in the log of the organization switched to, by the membership that acts there from then on.
    const sessionId = switched.body.id as string;
    const switches = async (org: string) =>
      ((await api('GET', '/v1/audit-events?action=session.switched&limit=100', { key: org })).body.data as any[]).filter((e) => e.target.id === sessionId);
    // (Accepting the invitation moved the session into org B already: the switch to B above changed nothing, and
    // nothing was recorded for it.)
    expect(await switches(other.live)).toEqual([]);
    const backToA = await switches(ownerKey);
    expect(backToA.map((e) => [e.actor.type, e.before.organization_id, e.after.organization_id])).toEqual([['member', other.id, orgId]]);
    await b.call('PATCH', '/v1/session', { body: { organization_id: other.id, mode: 'test' } });
    const intoB = await switches(other.live);
    expect(intoB.map((e) => [e.before.organization_id, e.before.mode, e.after.organization_id, e.after.mode])).toEqual([[orgId, 'live', other.id, 'test']]);
    expect(intoB[0].actor).toMatchObject({ type: 'member', id: switched.body.member_id });

    // A switch that moves the session gives it a new CSRF token, in the answer and the readable cookie, for as long as
    // the session has left; the old token no longer changes anything (a write sent before the switch, or from a tab
    // that has not caught up, would land in the organization switched to).
    const before = b.csrf!;
    const moved = await b.call('PATCH', '/v1/session', { body: { mode: 'live' } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.csrf_token).toMatch(/^[0-9A-Za-z]{43}$/);
    expect(moved.body.csrf_token).not.toBe(before);
    const csrfCookie = moved.headers.getSetCookie().find((c) => c.startsWith('mmgen_csrf='))!;
    expect(csrfCookie).toContain(`mmgen_csrf=${moved.body.csrf_token as string}`);
    expect(moved.headers.getSetCookie().filter((c) => c.startsWith('mmgen_session='))).toEqual([]);
    const maxAge = Number(/Max-Age=(\d+)/i.exec(csrfCookie)![1]);
    expect(maxAge).toBeGreaterThan(s.config.accounts.sessionMaxS - 600);
    expect(maxAge).toBeLessThanOrEqual(s.config.accounts.sessionMaxS);
    const stale = await b.call('PATCH', '/v1/session', { body: { mode: 'test' }, headers: { 'x-csrf-token': before }, csrf: false });
    expect([stale.status, stale.body.error.code]).toEqual([403, 'csrf_token_invalid']);
    expect((await b.call('GET', '/v1/session')).body.mode).toBe('live');
    // A switch that changes nothing keeps the token, and sets no cookie.
    const same = await b.call('PATCH', '/v1/session', { body: { mode: 'live' } });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(same.body.csrf_token).toBe(moved.body.csrf_token);
    expect(same.headers.getSetCookie()).toEqual([]);
  });

  it('a person lists their sessions and revokes one; idle and absolute timeouts end a session', async () => {
    const one = browser(s.url);
    const two = browser(s.url);
    await one.call('POST', '/v1/session', { body: { email: 'owner@example.test', password: 'correct horse battery' } });
    const second = await two.call('POST', '/v1/session', { body: { email: 'owner@example.test', password: 'correct horse battery' } });
    const list = (await one.call('GET', '/v1/sessions')).body.data;
    expect(list.find((x: any) => x.id === second.body.id)).toMatchObject({ current: false });
    expect(list.filter((x: any) => x.current)).toHaveLength(1);
    expect((await one.call('DELETE', `/v1/sessions/${second.body.id}`)).status).toBe(200);
    expect((await two.call('GET', '/v1/session')).status).toBe(401);
    // Keys cannot call the person's session operations.
    expect((await client(s.url)('GET', '/v1/sessions', { key: ownerKey })).body.error.code).toBe('session_required');

    const idle = browser(s.url);
    const idleId = (await idle.call('POST', '/v1/session', { body: { email: 'owner@example.test', password: 'correct horse battery' } })).body.id;
    await s.db.query(`UPDATE sessions SET last_seen_at = now() - interval '61 minutes' WHERE id = $1`, [idleId]);
    expect((await idle.call('GET', '/v1/members')).body.error.code).toBe('session_expired');
    const old = browser(s.url);
    const oldId = (await old.call('POST', '/v1/session', { body: { email: 'owner@example.test', password: 'correct horse battery' } })).body.id;
    await s.db.query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = $1`, [oldId]);
    expect((await old.call('GET', '/v1/members')).body.error.code).toBe('session_expired');
    // Signing out ends the session and clears the cookies.
    const oneId = (await one.call('GET', '/v1/session')).body.id as string;
    expect((await one.call('DELETE', '/v1/session')).status).toBe(200);
    expect(one.jar.size).toBe(0);
    // Both ends are in the log: the revoked one and the sign-out, each by the person.
    const revoked = (await client(s.url)('GET', '/v1/audit-events?action=session.revoked&limit=100', { key: ownerKey })).body.data as any[];
    const of = (id: string) => revoked.filter((e) => e.target.id === id).map((e) => [e.actor.type, e.after.via, e.before]);
    // The session's public id is kept readable (not taken for a session cookie by the redaction).
    expect(of(second.body.id)).toEqual([['member', 'revoke', { id: second.body.id }]]);
    expect(of(oneId)).toEqual([['member', 'sign_out', { id: oneId }]]);
  });

  describe('sign-in brute force', () => {
    it('is slowed, then locked per email, answering alike whether the email exists or not', async () => {
      const api = client(s.url);
      const attempt = (email: string, password: string, ip: string) =>
        api('POST', '/v1/session', { body: { email, password }, headers: {} }).then((r) => ({ ...r, ip }));
      const answers: Array<[number, string]> = [];
      const times: number[] = [];
      for (const email of ['owner@example.test', 'nobody@example.test']) {
        for (let i = 0; i < 4; i++) {
          const t0 = Date.now();
          const res = await attempt(email, `wrong guess ${i}`, '');
          times.push(Date.now() - t0);
          answers.push([res.status, res.body.error.code]);
        }
        const locked = await attempt(email, 'correct horse battery', '');
        answers.push([locked.status, locked.body.error.code]);
        expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      const each = [[401, 'invalid_credentials'], [401, 'invalid_credentials'], [401, 'invalid_credentials'], [401, 'invalid_credentials'], [429, 'rate_limit_exceeded']];
      expect(answers).toEqual([...each, ...each]);
      // From the third failure on, answers wait (250 ms, then 500 ms).
      expect(times[2]!).toBeGreaterThanOrEqual(240);
      expect(times[3]!).toBeGreaterThanOrEqual(490);
      // Another person's email is not locked by these.
      expect((await api('POST', '/v1/session', { body: { email: 'admin@example.test', password: 'admin password 12' } })).status).toBe(201);
    }, 60_000);
  });
});
