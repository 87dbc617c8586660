import { beforeEach, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import {
  attachAccountToMember,
  dbNow,
  findAccount,
  findAccountByEmailKey,
  findAccountForUpdate,
  findMember,
  findMemberById,
  findMembership,
  findSession,
  findSessionForAuth,
  insertAccount,
  insertMember,
  insertSession,
  listAccountSessions,
  listKeySessions,
  listMembers,
  listMemberships,
  lockOwners,
  markMemberRemoved,
  revokeAccountSession,
  revokeKeySession,
  setAccountPassword,
  setPasskeyAfterPassword,
  switchSession,
  touchSession,
  updateMemberBudget,
  updateMemberRole,
} from '../../src/store/accounts.js';
import {
  ensureSessionKey,
  findActiveKey,
  findKeyBySecretSha256,
  findKeyWithOrganization,
  insertApiKeyRow,
  keyHasFingerprint,
  keyIpAllowlist,
  listActiveKeys,
  recordKeyUsed,
  revokeKey,
  revokeMemberKeys,
  updateKeySettings,
  type NewApiKeyRow,
} from '../../src/store/api-keys.js';
import {
  claimInvitationByToken,
  findPendingInvitation,
  insertInvitation,
  listPendingInvitations,
  markInvitationAccepted,
  revokeInvitationRow,
  revokeOwnerLinks,
} from '../../src/store/invitations.js';
import {
  countOrganizations,
  pauseIfRunning,
  selectOrganization,
  updateOrganizationBudget,
  updateOrganizationPaused,
  updateOrganizationPlan,
} from '../../src/store/organizations.js';
import {
  advancePasskeyCounter,
  deleteAccountPasskey,
  findPasskeyByCredentialId,
  insertChallenge,
  insertPasskey,
  listAccountPasskeys,
  takeChallenge,
} from '../../src/store/passkeys.js';
import { findPendingSignIn, insertPendingSignIn, takePendingSignIn } from '../../src/store/second-factor.js';
import { claimSignUp, deleteExpiredSignUps, insertSignUp, markSignUpVerified } from '../../src/store/sign-ups.js';
import { deleteSsoSettings, findIdentity, findSsoSettings, insertIdentity, insertSsoFlow, takeSsoFlow, upsertSsoSettings } from '../../src/store/sso.js';
import { lockOrganizationForBudget } from '../../src/store/spending.js';
import { describeEachBackend } from '../helpers/server.js';
import { accept, count, deferred, makeOrg, row, untilSomeoneWaitsOnALock, useDb, type Org } from './fixtures.js';

/**
 * Who may do what (api-keys.ts, accounts.ts, organizations.ts, passkeys.ts, second-factor.ts, sso.ts, sign-ups.ts,
 * invitations.ts) on each backend: keys and their fingerprints, people, memberships and sessions, and the one-time
 * tokens (challenges, pending sign-ins, flows, sign-ups, invitations) that work once.
 */
describeEachBackend('store: access', (backend) => {
  const t = useDb(backend);
  let org: Org;
  beforeEach(async () => {
    org ??= await makeOrg(t.db);
  });

  const keyRow = (over: Partial<NewApiKeyRow> = {}): NewApiKeyRow => ({
    id: newId('key'), organizationId: org.id, userId: org.ownerId, name: 'k', mode: 'live', role: 'developer', scopes: ['generate'],
    ipAllowlist: [], monthlyBudgetUsd: null, prefix: 'sk_live_abcd', secretSha256: newId('req'), ...over,
  });

  const account = async (email = `${newId('acc')}@example.test`) =>
    (await insertAccount(t.db, { id: newId('acc'), email, emailKey: email.toLowerCase(), name: 'Ada', passwordHash: 'hash' }))!;

  const member = async (accountId: string, role: 'owner' | 'admin' | 'developer' | 'viewer' = 'developer', organizationId = org.id) => {
    const id = newId('usr');
    await insertMember(t.db, { id, organizationId, accountId, role, name: null });
    return id;
  };

  it('a key is written and read back with its effective role: the lesser of its own and its member’s', async () => {
    const k = await insertApiKeyRow(t.db, keyRow({ role: 'admin', monthlyBudgetUsd: 12.5 }));
    expect(k).toMatchObject({ role: 'admin', effective_role: 'admin', scopes: ['generate'], monthly_budget_usd: '12.50', budget_action: 'notify', session: false });
    const acc = await account();
    const viewer = await member(acc.id, 'viewer');
    const demoted = await insertApiKeyRow(t.db, keyRow({ role: 'admin', userId: viewer }));
    expect(demoted.effective_role).toBe('viewer');
    expect(await findActiveKey(t.db, demoted.id, org.id, 'live')).toMatchObject({ effective_role: 'viewer' });
    expect(await findActiveKey(t.db, demoted.id, org.id, 'test')).toBeNull();
  });

  it('a secret hash is unique: a second key with it is refused', async () => {
    const k = keyRow();
    await insertApiKeyRow(t.db, k);
    await expect(insertApiKeyRow(t.db, { ...k, id: newId('key') })).rejects.toMatchObject({ code: '23505' });
  });

  it('a key is found by its secret or id with its organization; its fingerprint changes with what authorization reads', async () => {
    const k = await insertApiKeyRow(t.db, keyRow({ ipAllowlist: ['10.0.0.0/8'] }));
    const bySecret = (await findKeyBySecretSha256(t.db, keyRow().secretSha256)) ?? null;
    expect(bySecret).toBeNull();
    const found = (await findKeyWithOrganization(t.db, k.id))!;
    expect(found).toMatchObject({ id: k.id, plan: 'team', enterprise: false, paused: false, budget_gated: false, member_removed_at: null });
    expect(await findKeyBySecretSha256(t.db, found.secret_sha256)).toMatchObject({ id: k.id, fingerprint: found.fingerprint });
    expect(await keyHasFingerprint(t.db, k.id, found.fingerprint)).toBe(true);
    expect(await keyIpAllowlist(t.db, k.id)).toEqual(['10.0.0.0/8']);
    expect(await keyIpAllowlist(t.db, newId('key'))).toBeNull();
    // A blocking budget of its organization changes it, and gates the key.
    await updateOrganizationBudget(t.db, org.id, { monthlyBudgetUsd: 100, budgetAction: 'block' });
    expect(await keyHasFingerprint(t.db, k.id, found.fingerprint)).toBe(false);
    expect((await findKeyWithOrganization(t.db, k.id))!.budget_gated).toBe(true);
    await updateOrganizationBudget(t.db, org.id, { monthlyBudgetUsd: null });
    expect((await selectOrganization(t.db, org.id))!.monthly_budget_usd).toBeNull();
    expect((await selectOrganization(t.db, org.id))!.budget_action).toBe('block');
    await updateOrganizationBudget(t.db, org.id, { budgetAction: 'notify' });
  });

  it('a key is marked used at most once a minute', async () => {
    const k = await insertApiKeyRow(t.db, keyRow());
    await recordKeyUsed(t.db, k.id);
    const first = (await row<{ last_used_at: Date }>(t.db, 'api_keys', 'id = $1', [k.id]))!.last_used_at;
    expect(first).toBeInstanceOf(Date);
    await recordKeyUsed(t.db, k.id);
    expect((await row<{ last_used_at: Date }>(t.db, 'api_keys', 'id = $1', [k.id]))!.last_used_at).toEqual(first);
  });

  it('settings change an unrevoked key only; revoked keys leave the list', async () => {
    const k = await insertApiKeyRow(t.db, keyRow());
    const changed = await updateKeySettings(t.db, k.id, { name: 'renamed', scopes: ['read'], ipAllowlist: ['1.2.3.4'], monthlyBudgetUsd: '7.00', budgetAction: 'block' });
    expect(changed).toMatchObject({ name: 'renamed', scopes: ['read'], ip_allowlist: ['1.2.3.4'], monthly_budget_usd: '7.00', budget_action: 'block' });
    const listed = await listActiveKeys(t.db, org.id, 'live', Number.MAX_SAFE_INTEGER, 100);
    expect(listed.map((x) => x.id)).toContain(k.id);
    expect((await listActiveKeys(t.db, org.id, 'live', k.seq, 100)).map((x) => x.id)).not.toContain(k.id);
    await revokeKey(t.db, k.id);
    const revokedAt = (await row<{ revoked_at: Date }>(t.db, 'api_keys', 'id = $1', [k.id]))!.revoked_at;
    await revokeKey(t.db, k.id);
    expect((await row<{ revoked_at: Date }>(t.db, 'api_keys', 'id = $1', [k.id]))!.revoked_at).toEqual(revokedAt);
    expect(await updateKeySettings(t.db, k.id, { name: 'x', scopes: [], ipAllowlist: [], monthlyBudgetUsd: null, budgetAction: 'notify' })).toBeNull();
    expect(await findActiveKey(t.db, k.id, org.id, 'live')).toBeNull();
    expect((await listActiveKeys(t.db, org.id, 'live', Number.MAX_SAFE_INTEGER, 100)).map((x) => x.id)).not.toContain(k.id);
  });

  it('a session key is made once per member and mode (racing makers get the same one), hidden from lists, and revoked with its member', async () => {
    const acc = await account();
    const m = await member(acc.id, 'admin');
    const mk = () => keyRow({ id: newId('key'), userId: m, role: 'owner', secretSha256: newId('req'), session: true });
    const ids = await Promise.all([ensureSessionKey(t.db, mk()), ensureSessionKey(t.db, mk())]);
    expect(ids[0]).toBe(ids[1]);
    expect(await ensureSessionKey(t.db, mk())).toBe(ids[0]);
    expect(await count(t.db, 'api_keys', 'user_id = $1 AND session', [m])).toBe(1);
    expect((await listActiveKeys(t.db, org.id, 'live', Number.MAX_SAFE_INTEGER, 100)).map((x) => x.id)).not.toContain(ids[0]);
    expect(await findActiveKey(t.db, ids[0], org.id, 'live')).toBeNull();
    expect(await findActiveKey(t.db, ids[0], org.id, 'live', true)).toMatchObject({ session: true, effective_role: 'admin' });
    await insertApiKeyRow(t.db, keyRow({ userId: m }));
    expect(await revokeMemberKeys(t.db, m)).toBe(2);
    expect(await revokeMemberKeys(t.db, m)).toBe(0);
  });

  it('an account is unique by its email key; found by it or by id; its password and second-factor switch are set', async () => {
    const email = `Grace.${newId('acc')}@Example.test`;
    const acc = await account(email);
    expect(acc).toMatchObject({ email, email_key: email.toLowerCase(), passkey_after_password: false });
    expect(await insertAccount(t.db, { id: newId('acc'), email: email.toUpperCase(), emailKey: email.toLowerCase(), name: null, passwordHash: null })).toBeNull();
    expect(await findAccountByEmailKey(t.db, email.toLowerCase())).toMatchObject({ id: acc.id });
    expect(await findAccountByEmailKey(t.db, 'nobody@example.test')).toBeNull();
    await setAccountPassword(t.db, acc.id, 'new-hash');
    await t.db.tx(async (q) => {
      expect((await findAccountForUpdate(q, acc.id))!.password_hash).toBe('new-hash');
      await setPasskeyAfterPassword(q, acc.id, true);
    });
    expect(await findAccount(t.db, acc.id)).toMatchObject({ passkey_after_password: true });
    expect(await findAccount(t.db, newId('acc'))).toBeNull();
    expect(await findAccountForUpdate(t.db, newId('acc'))).toBeNull();
  });

  it('two sign-ups of one email at once: one account is made', async () => {
    const email = `race.${newId('acc')}@example.test`;
    const made = await Promise.all([1, 2].map(() => insertAccount(t.db, { id: newId('acc'), email, emailKey: email, name: null, passwordHash: 'h' })));
    expect(made.filter((a) => a !== null)).toHaveLength(1);
  });

  it('members are listed with their person, changed, removed (kept as rows), and a person’s memberships follow', async () => {
    const mine = await makeOrg(t.db, { name: 'Mine' });
    const acc = await account();
    const m = await member(acc.id, 'developer', mine.id);
    const listed = await listMembers(t.db, mine.id);
    expect(listed.map((x) => x.id)).toEqual([mine.ownerId, m]);
    expect(listed[1]).toMatchObject({ email: acc.email, account_name: 'Ada', role: 'developer', last_signed_in_at: null, budget_action: 'notify' });
    await updateMemberRole(t.db, m, 'admin');
    await updateMemberBudget(t.db, m, 20, 'block');
    expect(await findMember(t.db, mine.id, m)).toMatchObject({ role: 'admin', monthly_budget_usd: '20.00', budget_action: 'block' });
    expect(await t.db.tx((q) => findMember(q, mine.id, m, true))).toMatchObject({ id: m });
    expect(await findMember(t.db, org.id, m)).toBeNull();
    expect(await findMembership(t.db, acc.id, mine.id)).toEqual({ member_id: m, organization_id: mine.id, organization_name: 'Mine', role: 'admin' });
    expect((await listMemberships(t.db, acc.id)).map((x) => x.organization_id)).toEqual([mine.id]);
    await markMemberRemoved(t.db, m);
    await updateMemberRole(t.db, m, 'owner');
    expect(await findMember(t.db, mine.id, m)).toBeNull();
    expect(await findMemberById(t.db, m)).toEqual({ organization_id: mine.id, role: 'admin' });
    expect(await findMemberById(t.db, newId('usr'))).toBeNull();
    expect(await findMembership(t.db, acc.id, mine.id)).toBeNull();
    expect(await listMemberships(t.db, acc.id)).toEqual([]);
    expect((await listMembers(t.db, mine.id)).map((x) => x.id)).toEqual([mine.ownerId]);
  });

  it('a person is a current member of an organization once', async () => {
    const acc = await account();
    await member(acc.id);
    await expect(member(acc.id)).rejects.toMatchObject({ code: '23505' });
  });

  it('an account attaches to a membership that has none, once', async () => {
    const acc = await account();
    const other = await account();
    expect(await attachAccountToMember(t.db, org.ownerId, acc.id)).toBe(true);
    expect(await attachAccountToMember(t.db, org.ownerId, other.id)).toBe(false);
    expect((await findMember(t.db, org.id, org.ownerId))!.account_id).toBe(acc.id);
  });

  it("the owners are read under the organization's lock: a second locker waits for the first to commit", async () => {
    const mine = await makeOrg(t.db);
    expect(await t.db.tx((q) => lockOwners(q, mine.id))).toEqual([mine.ownerId]);
    if (backend !== 'postgres') return;
    const locked = deferred();
    const finish = deferred();
    const order: string[] = [];
    const first = t.db.tx(async (q) => {
      await lockOwners(q, mine.id);
      locked.resolve();
      await finish.promise;
      await updateMemberRole(q, mine.ownerId, 'admin');
      order.push('first demoted the owner');
    });
    await locked.promise;
    const second = t.db.tx(async (q) => {
      const owners = await lockOwners(q, mine.id);
      order.push(`second saw ${owners.length} owner(s)`);
    });
    await untilSomeoneWaitsOnALock(t.db, 'FOR UPDATE');
    finish.resolve();
    await Promise.all([first, second]);
    expect(order).toEqual(['first demoted the owner', 'second saw 0 owner(s)']);
  });

  it('a budget check serializes on its organization’s row without blocking others’ inserts', async () => {
    const mine = await makeOrg(t.db, { credits: 100 });
    await t.db.tx((q) => lockOrganizationForBudget(q, mine.id));
    if (backend !== 'postgres') return;
    const locked = deferred();
    const finish = deferred();
    const first = t.db.tx(async (q) => {
      await lockOrganizationForBudget(q, mine.id);
      locked.resolve();
      await finish.promise;
    });
    await locked.promise;
    // NO KEY UPDATE: a generation's insert (its foreign key takes KEY SHARE) goes through meanwhile.
    await accept(t.db, mine, { price: 1 });
    const second = t.db.tx((q) => lockOrganizationForBudget(q, mine.id));
    await untilSomeoneWaitsOnALock(t.db, 'FOR NO KEY UPDATE');
    finish.resolve();
    await Promise.all([first, second]);
  });

  it('sessions: a person’s or a key’s, found for authentication with what it reads, touched, switched, listed and revoked', async () => {
    const acc = await account();
    const m = await member(acc.id, 'admin');
    const base = { csrfToken: 'csrf', userId: m, mode: 'live' as const, method: 'password', ip: '127.0.0.1', userAgent: 'ua', absoluteS: 3600 };
    const s = await insertSession(t.db, { ...base, id: newId('ses'), tokenSha256: newId('req'), accountId: acc.id });
    expect(s).toMatchObject({ account_id: acc.id, api_key_id: null, revoked_at: null });
    expect(s.expires_at.getTime() - s.created_at.getTime()).toBe(3_600_000);
    const token = (await row<{ token_sha256: string }>(t.db, 'sessions', 'id = $1', [s.id]))!.token_sha256;
    const auth = (await findSessionForAuth(t.db, token))!;
    expect(auth).toMatchObject({ id: s.id, organization_id: org.id, role: 'admin', plan: 'team', paused: false, key_id: null, require_sso: null, budget_gated: false });
    expect(auth.now).toBeInstanceOf(Date);
    expect(await findSessionForAuth(t.db, 'unknown')).toBeNull();
    await touchSession(t.db, s.id);
    expect((await findSession(t.db, s.id))!.last_seen_at).toEqual(s.last_seen_at);
    await t.db.query(`UPDATE sessions SET last_seen_at = now() - interval '2 minutes' WHERE id = $1`, [s.id]);
    await touchSession(t.db, s.id);
    expect((await findSession(t.db, s.id))!.last_seen_at.getTime()).toBeGreaterThan(s.last_seen_at.getTime() - 1);
    const switched = await switchSession(t.db, s.id, org.ownerId, 'test', 'csrf2');
    expect(switched.remaining_s).toBeGreaterThan(3500);
    expect(switched.remaining_s).toBeLessThanOrEqual(3600);
    expect(await findSession(t.db, s.id)).toMatchObject({ user_id: org.ownerId, mode: 'test', csrf_token: 'csrf2' });
    expect(await switchSession(t.db, newId('ses'), m, 'live', 'x')).toEqual({ remaining_s: 0 });
    expect((await listAccountSessions(t.db, acc.id)).map((x) => x.id)).toEqual([s.id]);
    expect(await revokeAccountSession(t.db, newId('acc'), s.id)).toBe(false);
    expect(await revokeAccountSession(t.db, acc.id, s.id)).toBe(true);
    expect(await revokeAccountSession(t.db, acc.id, s.id)).toBe(false);
    expect(await listAccountSessions(t.db, acc.id)).toEqual([]);
    expect(await findSession(t.db, newId('ses'))).toBeNull();
    // A key's session.
    const k = await insertApiKeyRow(t.db, keyRow({ userId: m }));
    const ks = await insertSession(t.db, { ...base, id: newId('ses'), tokenSha256: newId('req'), accountId: null, apiKeyId: k.id });
    expect((await listKeySessions(t.db, k.id)).map((x) => x.id)).toEqual([ks.id]);
    expect(await revokeKeySession(t.db, k.id, s.id)).toBe(false);
    expect(await revokeKeySession(t.db, k.id, ks.id)).toBe(true);
    expect(await listKeySessions(t.db, k.id)).toEqual([]);
    // A session is a person's or a key's, never both.
    await expect(insertSession(t.db, { ...base, id: newId('ses'), tokenSha256: newId('req'), accountId: acc.id, apiKeyId: k.id })).rejects.toMatchObject({ code: '23514' });
    expect((await dbNow(t.db)).getTime()).toBeGreaterThan(0);
  });

  it('a session reads its SSO connection and its member’s session key when it authenticates', async () => {
    const acc = await account();
    const m = await member(acc.id, 'developer');
    const key = await ensureSessionKey(t.db, keyRow({ userId: m, role: 'owner', session: true }));
    await upsertSsoSettings(t.db, { organization_id: org.id, issuer: 'https://idp.test', client_id: 'c', client_secret: null, auto_join_domains: [], auto_join_role: 'viewer', require_sso: true, break_glass_user: org.ownerId });
    const tokenSha256 = newId('req');
    await insertSession(t.db, { id: newId('ses'), tokenSha256, csrfToken: 'c', accountId: acc.id, userId: m, mode: 'live', method: 'sso', ip: '::1', userAgent: null, absoluteS: 60 });
    expect(await findSessionForAuth(t.db, tokenSha256)).toMatchObject({ key_id: key, budget_gated: false, require_sso: true, break_glass_user: org.ownerId });
    expect(await deleteSsoSettings(t.db, org.id)).toBe(true);
  });

  it('organizations: plan, pause (with its reason and the spend window) and count', async () => {
    const mine = await makeOrg(t.db, { plan: 'free' });
    expect(await updateOrganizationPlan(t.db, mine.id, 'pro', null)).toMatchObject({ plan: 'pro', enterprise: false });
    expect(await updateOrganizationPlan(t.db, mine.id, 'studio', true)).toMatchObject({ plan: 'studio', enterprise: true });
    expect(await updateOrganizationPlan(t.db, newId('org'), 'pro', null)).toBeUndefined();
    const paused = (await updateOrganizationPaused(t.db, mine.id, true, { kind: 'owner' }))!;
    expect(paused).toMatchObject({ paused: true, pause_reason: { kind: 'owner' }, spend_window_from: null });
    // Pausing again keeps the first pause's time and reason.
    expect(await updateOrganizationPaused(t.db, mine.id, true, { kind: 'anomaly' })).toMatchObject({ paused_at: paused.paused_at, pause_reason: { kind: 'owner' } });
    const running = (await updateOrganizationPaused(t.db, mine.id, false, null))!;
    expect(running).toMatchObject({ paused: false, paused_at: null, pause_reason: null });
    expect(running.spend_window_from).toBeInstanceOf(Date);
    // Unpausing one that runs does not move its window.
    expect((await updateOrganizationPaused(t.db, mine.id, false, null))!.spend_window_from).toEqual(running.spend_window_from);
    expect(await updateOrganizationPaused(t.db, newId('org'), true, null)).toBeUndefined();
    expect(await countOrganizations(t.db)).toBeGreaterThanOrEqual(2);
  });

  it('of pausers racing, exactly one pauses a running organization, and its queued jobs are parked', async () => {
    const mine = await makeOrg(t.db);
    const queued = await accept(t.db, mine);
    const running = await accept(t.db, mine, { sync: true });
    const results = await Promise.all([1, 2, 3].map((n) => pauseIfRunning(t.db, mine.id, { kind: 'anomaly', n })));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await selectOrganization(t.db, mine.id)).toMatchObject({ paused: true, pause_reason: { kind: 'anomaly' } });
    expect(await count(t.db, 'jobs', `generation_id = $1 AND run_at = 'infinity'`, [queued.id])).toBe(1);
    expect(await count(t.db, 'jobs', `generation_id = $1 AND run_at = 'infinity'`, [running.id])).toBe(0);
    expect(await pauseIfRunning(t.db, mine.id, { kind: 'anomaly' })).toBe(false);
  });

  it('passkeys: unique by credential, listed, found with their email, counters only move forward, deleted by their owner', async () => {
    const acc = await account();
    const p = { id: newId('pky'), accountId: acc.id, credentialId: `cred-${newId('pky')}`, publicKey: 'pk', counter: 5, transports: ['usb'], deviceType: 'singleDevice', backedUp: false, aaguid: null, name: 'Key' };
    const made = await insertPasskey(t.db, p);
    expect(made).toMatchObject({ counter: 5, transports: ['usb'], device_type: 'singleDevice', last_used_at: null });
    expect(await insertPasskey(t.db, { ...p, id: newId('pky') })).toBeNull();
    expect((await listAccountPasskeys(t.db, acc.id)).map((x) => x.id)).toEqual([p.id]);
    expect(await findPasskeyByCredentialId(t.db, p.credentialId)).toMatchObject({ id: p.id, email: acc.email });
    expect(await findPasskeyByCredentialId(t.db, 'nope')).toBeNull();
    expect(await advancePasskeyCounter(t.db, p.id, 5, true)).toBe(false);
    expect(await advancePasskeyCounter(t.db, p.id, 6, true)).toBe(true);
    expect(await findPasskeyByCredentialId(t.db, p.credentialId)).toMatchObject({ counter: 6, backed_up: true });
    // Two sign-ins with one counter value: one wins.
    expect((await Promise.all([advancePasskeyCounter(t.db, p.id, 9, true), advancePasskeyCounter(t.db, p.id, 9, true)])).filter(Boolean)).toHaveLength(1);
    const zero = { ...p, id: newId('pky'), credentialId: `cred-${newId('pky')}`, counter: 0 };
    await insertPasskey(t.db, zero);
    expect(await advancePasskeyCounter(t.db, zero.id, 0, false)).toBe(true);
    expect(await deleteAccountPasskey(t.db, newId('acc'), p.id)).toBeNull();
    expect(await deleteAccountPasskey(t.db, acc.id, p.id)).toMatchObject({ id: p.id });
    expect(await deleteAccountPasskey(t.db, acc.id, p.id)).toBeNull();
  });

  it('a challenge works once for its purpose; handing one out clears the expired', async () => {
    const now = new Date();
    const later = new Date(now.getTime() + 60_000);
    await insertChallenge(t.db, { challenge: 'old', purpose: 'sign_in', accountId: null, expiresAt: new Date(now.getTime() - 1_000), now: new Date(now.getTime() - 2_000) });
    await insertChallenge(t.db, { challenge: 'c1', purpose: 'registration', accountId: null, expiresAt: later, now });
    expect(await count(t.db, 'webauthn_challenges', 'challenge = $1', ['old'])).toBe(0);
    expect(await takeChallenge(t.db, 'c1', 'sign_in')).toBeNull();
    expect(await takeChallenge(t.db, 'c1', 'registration')).toEqual({ account_id: null, expires_at: later });
    expect(await takeChallenge(t.db, 'c1', 'registration')).toBeNull();
  });

  it('a pending sign-in is read without being used, then taken once; keeping one clears the expired', async () => {
    const acc = await account();
    const now = new Date();
    const expiresAt = new Date(now.getTime() + 60_000);
    await insertPendingSignIn(t.db, { tokenSha256: 'p-old', accountId: acc.id, organizationId: null, mode: null, expiresAt: new Date(now.getTime() - 1), now: new Date(now.getTime() - 10) });
    await insertPendingSignIn(t.db, { tokenSha256: 'p1', accountId: acc.id, organizationId: org.id, mode: 'test', expiresAt, now });
    expect(await findPendingSignIn(t.db, 'p-old')).toBeNull();
    const pending = { account_id: acc.id, organization_id: org.id, mode: 'test', expires_at: expiresAt };
    expect(await findPendingSignIn(t.db, 'p1')).toEqual(pending);
    expect(await findPendingSignIn(t.db, 'p1')).toEqual(pending);
    expect(await takePendingSignIn(t.db, 'p1')).toEqual(pending);
    expect(await takePendingSignIn(t.db, 'p1')).toBeNull();
  });

  it('SSO: settings upserted and deleted; a flow taken once (stale ones swept); an identity links once', async () => {
    const settings = { organization_id: org.id, issuer: 'https://idp.test', client_id: 'c1', client_secret: 's', auto_join_domains: ['example.test'], auto_join_role: 'developer' as const, require_sso: false, break_glass_user: null };
    expect(await upsertSsoSettings(t.db, settings)).toMatchObject({ client_id: 'c1', auto_join_domains: ['example.test'] });
    expect(await upsertSsoSettings(t.db, { ...settings, client_id: 'c2', require_sso: true })).toMatchObject({ client_id: 'c2', require_sso: true });
    expect(await findSsoSettings(t.db, org.id)).toMatchObject({ client_id: 'c2' });
    expect(await deleteSsoSettings(t.db, org.id)).toBe(true);
    expect(await deleteSsoSettings(t.db, org.id)).toBe(false);
    expect(await findSsoSettings(t.db, org.id)).toBeNull();
    await insertSsoFlow(t.db, { state: 'st1', organizationId: org.id, codeVerifier: 'v', nonce: 'n' });
    await insertSsoFlow(t.db, { state: 'st-old', organizationId: org.id, codeVerifier: 'v', nonce: 'n' });
    await t.db.query(`UPDATE sso_flows SET created_at = now() - interval '11 minutes' WHERE state = 'st-old'`);
    expect(await takeSsoFlow(t.db, 'st1')).toEqual({ organization_id: org.id, code_verifier: 'v', nonce: 'n' });
    expect(await takeSsoFlow(t.db, 'st1')).toBeNull();
    expect(await count(t.db, 'sso_flows', 'state = $1', ['st-old'])).toBe(0);
    const acc = await account();
    const other = await account();
    await insertIdentity(t.db, 'https://idp.test', 'sub-1', acc.id);
    await insertIdentity(t.db, 'https://idp.test', 'sub-1', other.id);
    expect(await findIdentity(t.db, 'https://idp.test', 'sub-1')).toBe(acc.id);
    expect(await findIdentity(t.db, 'https://idp.test', 'sub-2')).toBeNull();
  });

  it('a sign-up is claimed by its token until verified, which drops its password hash; expired ones are deleted', async () => {
    const now = new Date();
    const s = { id: newId('sgu'), email: 'new@example.test', emailKey: 'new@example.test', passwordHash: 'h', tokenSha256: newId('req'), expiresAt: new Date(now.getTime() + 60_000), now };
    await insertSignUp(t.db, { ...s, id: newId('sgu'), tokenSha256: 'old-token', expiresAt: new Date(now.getTime() - 1_000) });
    expect(await deleteExpiredSignUps(t.db, new Date(now.getTime() - 2_000))).toBe(0);
    await insertSignUp(t.db, s);
    expect(await count(t.db, 'sign_ups', 'token_sha256 = $1', ['old-token'])).toBe(0);
    const acc = await account();
    await t.db.tx(async (q) => {
      const claimed = (await claimSignUp(q, s.tokenSha256))!;
      expect(claimed).toMatchObject({ id: s.id, email: s.email, password_hash: 'h' });
      await markSignUpVerified(q, claimed.id, acc.id);
    });
    expect(await claimSignUp(t.db, s.tokenSha256)).toBeNull();
    expect(await row(t.db, 'sign_ups', 'id = $1', [s.id])).toMatchObject({ password_hash: null, account_id: acc.id });
    expect(await deleteExpiredSignUps(t.db, new Date(now.getTime() + 3_600_000))).toBe(0);
  });

  it('invitations: pending ones listed and found, claimed by token once, revoked; the owner link revoked with revokeOwnerLinks', async () => {
    const mine = await makeOrg(t.db);
    const base = { organizationId: mine.id, email: 'x@example.test', role: 'developer' as const, invitedBy: mine.ownerId, memberId: null, ttlS: 3600 };
    const inv = await insertInvitation(t.db, { ...base, id: newId('inv'), tokenSha256: 'tok-1' });
    expect(inv).toMatchObject({ role: 'developer', accepted_at: null, revoked_at: null });
    const owner = await insertInvitation(t.db, { ...base, id: newId('inv'), tokenSha256: 'tok-owner', email: null, invitedBy: null, memberId: mine.ownerId, role: 'owner' });
    const expired = await insertInvitation(t.db, { ...base, id: newId('inv'), tokenSha256: 'tok-old', ttlS: -1 });
    expect((await listPendingInvitations(t.db, mine.id)).map((i) => i.id)).toEqual([inv.id]);
    expect(await findPendingInvitation(t.db, mine.id, inv.id)).toMatchObject({ id: inv.id });
    expect(await findPendingInvitation(t.db, mine.id, expired.id)).toBeNull();
    expect(await findPendingInvitation(t.db, org.id, inv.id)).toBeNull();
    expect(await claimInvitationByToken(t.db, 'tok-old')).toBeNull();
    const acc = await account();
    const m = await member(acc.id, 'developer', mine.id);
    await t.db.tx(async (q) => {
      const claimed = (await claimInvitationByToken(q, 'tok-1'))!;
      await markInvitationAccepted(q, claimed.id, m);
    });
    expect(await claimInvitationByToken(t.db, 'tok-1')).toBeNull();
    expect(await row(t.db, 'invitations', 'id = $1', [inv.id])).toMatchObject({ accepted_by: m });
    await revokeInvitationRow(t.db, inv.id);
    expect(await row(t.db, 'invitations', 'id = $1', [inv.id])).toMatchObject({ revoked_at: null });
    await revokeOwnerLinks(t.db, mine.id);
    expect(await claimInvitationByToken(t.db, 'tok-owner')).toBeNull();
    expect((await row<{ revoked_at: Date | null }>(t.db, 'invitations', 'id = $1', [owner.id]))!.revoked_at).toBeInstanceOf(Date);
    const another = await insertInvitation(t.db, { ...base, id: newId('inv'), tokenSha256: 'tok-2' });
    await revokeInvitationRow(t.db, another.id);
    expect(await findPendingInvitation(t.db, mine.id, another.id)).toBeNull();
  });

  it('two acceptances of one invitation racing: the second finds it accepted', async () => {
    const mine = await makeOrg(t.db);
    await insertInvitation(t.db, { id: newId('inv'), organizationId: mine.id, email: null, role: 'viewer', tokenSha256: 'tok-race', invitedBy: mine.ownerId, memberId: null, ttlS: 60 });
    const acceptOnce = () =>
      t.db.tx(async (q) => {
        const inv = await claimInvitationByToken(q, 'tok-race');
        if (!inv) return false;
        await markInvitationAccepted(q, inv.id, mine.ownerId);
        return true;
      });
    expect((await Promise.all([acceptOnce(), acceptOnce()])).filter(Boolean)).toHaveLength(1);
  });
});
