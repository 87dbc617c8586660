import { ApiError } from '../../errors.js';
import { newId, randomBase62 } from '../../ids.js';
import {
  findAccount,
  findMemberById,
  findMembership,
  findSession,
  findSessionForAuth,
  insertSession,
  listAccountSessions,
  listKeySessions,
  listMemberships,
  revokeAccountSession,
  revokeKeySession,
  switchSession,
  touchSession,
  type MembershipRow,
  type SessionRow,
} from '../../store/accounts.js';
import { ensureSessionKey, findActiveKey } from '../../store/api-keys.js';
import type { Db, Queryable } from '../../store/db.js';
import { findSsoSettings } from '../../store/sso.js';
import type { Mode, Principal, Role, Scope } from '../access.js';
import { recordAudit, type AuditOrigin } from '../audit.js';
import { findLiveKeyById, hashSecret, type AuthenticatedKey } from '../api-keys.js';

/**
 * Session glossary
 * - session: a person signed in to the dashboard. The browser holds its token in an HttpOnly cookie; the server
 *   keeps only the token's SHA-256. It acts as one of the person's memberships at a time (switchable) and in one
 *   mode, through that membership's session key, so a session has exactly its member's role.
 * - CSRF token: a second secret of the session, which the dashboard sends in X-CSRF-Token with every
 *   state-changing request; a cross-site page can make the browser send the cookie, never this header.
 * - idle and absolute timeouts: a session ends after `idleS` without a request, and `maxS` after sign-in.
 */
export interface SessionTimeouts {
  idleS: number;
  maxS: number;
}

export type SignInMethod = 'password' | 'passkey' | 'password_passkey' | 'sso' | 'invitation' | 'sign_up';

export interface StartedSession {
  token: string;
  csrfToken: string;
  session: SessionRow;
}

const TOKEN_LENGTH = 43;

/** A new session of the person, acting as `member` in `mode`; the token is returned once, for the cookie. */
export async function startSession(
  q: Queryable,
  timeouts: SessionTimeouts,
  input: { accountId: string; member: { member_id: string; organization_id: string }; mode?: Mode; method: SignInMethod; ip: string; userAgent: string | null },
): Promise<StartedSession> {
  const mode = input.mode ?? 'live';
  await ensureKeyOf(q, input.member.member_id, input.member.organization_id, mode);
  const token = randomBase62(TOKEN_LENGTH);
  const csrfToken = randomBase62(TOKEN_LENGTH);
  const session = await insertSession(q, {
    id: newId('ses'),
    tokenSha256: hashSecret(token),
    csrfToken,
    accountId: input.accountId,
    userId: input.member.member_id,
    mode,
    method: input.method,
    ip: input.ip,
    userAgent: input.userAgent?.slice(0, 500) ?? null,
    absoluteS: timeouts.maxS,
  });
  return { token, csrfToken, session };
}

function ensureKeyOf(q: Queryable, userId: string, organizationId: string, mode: Mode): Promise<string> {
  const secret = randomBase62(TOKEN_LENGTH);
  return ensureSessionKey(q, {
    id: newId('key'),
    organizationId,
    userId,
    name: `Dashboard session (${mode})`,
    mode,
    role: 'owner',
    scopes: [],
    ipAllowlist: [],
    monthlyBudgetUsd: null,
    // Nobody is given this secret: the key is reachable only through a session.
    prefix: 'session',
    secretSha256: hashSecret(`session:${secret}`),
  });
}

export interface AuthenticatedSession {
  principal: Principal;
  csrfToken: string;
  /** Set for a session opened with an API key: the key as it is now, whose checks (IP allowlist, scopes…) the request passes. */
  key?: AuthenticatedKey;
}

const expired = () => new ApiError('session_expired', 'The session has ended (signed out, revoked, timed out, or no longer a member). Sign in again.');
const keyGone = () =>
  new ApiError('invalid_api_key', 'The API key this session was opened with is unknown or has been revoked (or its member was removed). Sign in again.');

/** The token of a session opened with an API key, returned once for the cookie; the session keeps the key's id, never its secret. */
export async function startKeySession(
  q: Queryable,
  timeouts: SessionTimeouts,
  input: { key: AuthenticatedKey; ip: string; userAgent: string | null },
): Promise<StartedSession> {
  const token = randomBase62(TOKEN_LENGTH);
  const csrfToken = randomBase62(TOKEN_LENGTH);
  const { principal } = input.key;
  const session = await insertSession(q, {
    id: newId('ses'),
    tokenSha256: hashSecret(token),
    csrfToken,
    accountId: null,
    apiKeyId: principal.keyId,
    userId: principal.userId,
    mode: principal.mode,
    method: 'api_key',
    ip: input.ip,
    userAgent: input.userAgent?.slice(0, 500) ?? null,
    absoluteS: timeouts.maxS,
  });
  return { token, csrfToken, session };
}

/**
 * The principal of a session token, or the contract's 401 (ended, timed out, removed member) or 403 (the
 * organization now requires single sign-on of a session that did not use it). Every request reads the session
 * from the database: a revoked session or a removed member is refused at once, on every node.
 */
export async function authenticateSession(q: Queryable, timeouts: SessionTimeouts, token: string): Promise<AuthenticatedSession> {
  const row = await findSessionForAuth(q, hashSecret(token));
  if (!row || row.revoked_at) throw expired();
  const now = row.now.getTime();
  if (row.expires_at.getTime() <= now || row.last_seen_at.getTime() + timeouts.idleS * 1000 <= now) throw expired();
  if (row.api_key_id !== null) {
    // The key is read as a bearer's is, each time: revoked, its member removed or demoted, it shows on this request.
    const key = await findLiveKeyById(q, row.api_key_id);
    if (!key) throw keyGone();
    if (now - row.last_seen_at.getTime() > 60_000) await touchSession(q, row.id);
    return { csrfToken: row.csrf_token, key, principal: { ...key.principal, keySessionId: row.id } };
  }
  if (row.member_removed_at || row.account_id === null) throw expired();
  if (row.require_sso && row.method !== 'sso' && row.break_glass_user !== row.user_id) {
    throw new ApiError('sso_required', 'This organization requires single sign-on. Sign in through its identity provider.');
  }
  const keyId = row.key_id ?? (await ensureKeyOf(q, row.user_id, row.organization_id, row.mode));
  if (now - row.last_seen_at.getTime() > 60_000) await touchSession(q, row.id);
  return {
    csrfToken: row.csrf_token,
    principal: {
      keyId,
      userId: row.user_id,
      sessionId: row.id,
      accountId: row.account_id,
      organizationId: row.organization_id,
      mode: row.mode,
      role: row.role,
      scopes: [],
      plan: row.plan,
      enterprise: row.enterprise,
      paused: row.paused,
      budgetGated: row.budget_gated ?? false,
    },
  };
}

export interface MembershipView {
  organization_id: string;
  organization_name: string;
  member_id: string;
  role: Role;
}

export interface SessionKeyView {
  id: string;
  name: string;
  prefix: string;
  mode: Mode;
  role: Role;
  effective_role: Role;
  scopes: Scope[];
}

export interface SessionView {
  id: string;
  object: 'session';
  /** Who holds the session: a person (signed in with an account) or an API key (pasted into the dashboard). */
  kind: 'person' | 'api_key';
  account: { id: string; email: string; name: string | null; has_password: boolean; passkey_after_password: boolean } | null;
  /** The key a session opened with an API key acts as (never its secret); null for a person's session. */
  api_key: SessionKeyView | null;
  organization_id: string;
  member_id: string;
  role: Role;
  mode: Mode;
  method: string;
  created_at: string;
  expires_at: string;
  memberships: MembershipView[];
}

const membershipView = (m: MembershipRow): MembershipView => ({
  organization_id: m.organization_id, organization_name: m.organization_name, member_id: m.member_id, role: m.role,
});

const SESSION_REQUIRED = 'This operation is for a signed-in person (the dashboard session), not an API key.';

/** The person's session behind the principal, or 403 `session_required` (an API key, a session opened with one). */
function requireSession(p: Principal): { sessionId: string; accountId: string } {
  if (p.sessionId === undefined || p.accountId === undefined) throw new ApiError('session_required', SESSION_REQUIRED);
  return { sessionId: p.sessionId, accountId: p.accountId };
}

/** Whose sessions the caller's own are: the person's, or (a session opened with an API key) that key's. */
type Holder = { kind: 'person'; sessionId: string; accountId: string } | { kind: 'api_key'; sessionId: string; keyId: string };

function holderOf(p: Principal): Holder {
  if (p.keySessionId !== undefined) return { kind: 'api_key', sessionId: p.keySessionId, keyId: p.keyId };
  return { kind: 'person', ...requireSession(p) };
}

export async function getSessionView(q: Queryable, p: Principal, session?: SessionRow): Promise<SessionView> {
  const holder = holderOf(p);
  const common = { id: holder.sessionId, object: 'session' as const, organization_id: p.organizationId, member_id: p.userId, role: p.role, mode: p.mode };
  const times = (s: SessionRow | null | undefined) => ({
    created_at: (s?.created_at ?? new Date()).toISOString(),
    expires_at: (s?.expires_at ?? new Date()).toISOString(),
  });
  if (holder.kind === 'api_key') {
    const key = await findActiveKey(q, holder.keyId, p.organizationId, p.mode);
    if (!key) throw new ApiError('invalid_api_key', 'The API key this session was opened with is unknown or has been revoked. Sign in again.');
    const s = session ?? (await findSession(q, holder.sessionId));
    return {
      ...common,
      kind: 'api_key',
      account: null,
      api_key: { id: key.id, name: key.name, prefix: key.prefix, mode: key.mode, role: key.role, effective_role: key.effective_role, scopes: key.scopes },
      method: 'api_key',
      ...times(s),
      memberships: [],
    };
  }
  const account = (await findAccount(q, holder.accountId))!;
  const memberships = await listMemberships(q, holder.accountId);
  const s = session ?? (await listAccountSessions(q, holder.accountId)).find((x) => x.id === holder.sessionId);
  return {
    ...common,
    kind: 'person',
    account: { id: account.id, email: account.email, name: account.name, has_password: account.password_hash !== null, passkey_after_password: account.passkey_after_password },
    api_key: null,
    method: s?.method ?? 'password',
    ...times(s),
    memberships: memberships.map(membershipView),
  };
}

export interface SessionListItem {
  id: string;
  object: 'session';
  current: boolean;
  method: string;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

/** The view of a person's session just started (the sign-in answer). */
export async function startedSessionView(q: Queryable, started: StartedSession): Promise<SessionView> {
  const member = (await findMemberById(q, started.session.user_id))!;
  return getSessionView(q, {
    keyId: '', userId: started.session.user_id, sessionId: started.session.id, accountId: started.session.account_id!,
    organizationId: member.organization_id, mode: started.session.mode, role: member.role, scopes: [], plan: 'free', enterprise: false, paused: false,
  }, started.session);
}

/** The view of a session just opened with an API key: the key's, as its requests will be. */
export function startedKeySessionView(q: Queryable, started: StartedSession, key: AuthenticatedKey): Promise<SessionView> {
  return getSessionView(q, { ...key.principal, keySessionId: started.session.id }, started.session);
}

/**
 * The caller's own sessions that are still alive: a person's (every organization's: a session is the person's, not
 * the member's), or, for a session opened with an API key, those opened with that key.
 */
export async function listOwnSessions(q: Queryable, p: Principal, timeouts: SessionTimeouts): Promise<{ object: 'list'; data: SessionListItem[]; has_more: false }> {
  const holder = holderOf(p);
  const rows = holder.kind === 'api_key' ? await listKeySessions(q, holder.keyId) : await listAccountSessions(q, holder.accountId);
  const idleCutoff = Date.now() - timeouts.idleS * 1000;
  return {
    object: 'list',
    has_more: false,
    data: rows
      .filter((s) => s.last_seen_at.getTime() > idleCutoff)
      .map((s) => ({
        id: s.id, object: 'session', current: s.id === holder.sessionId, method: s.method, ip: s.ip, user_agent: s.user_agent,
        created_at: s.created_at.toISOString(), last_seen_at: s.last_seen_at.toISOString(), expires_at: s.expires_at.toISOString(),
      })),
  };
}

/**
 * Ends one of the caller's own sessions (the current one signs out); another person's session, or one not opened
 * with the caller's key, is 404, as one that never existed.
 */
export async function revokeOwnSession(
  db: Db, p: Principal, id: string, origin: AuditOrigin, via: 'sign_out' | 'revoke',
): Promise<{ id: string; object: 'session'; deleted: true }> {
  const holder = holderOf(p);
  return db.tx(async (q) => {
    const revoked = holder.kind === 'api_key' ? await revokeKeySession(q, holder.keyId, id) : await revokeAccountSession(q, holder.accountId, id);
    if (!revoked) throw new ApiError('resource_not_found', `No such session: '${id}'`, 'id');
    // In the chain of the organization the revoking session acts in: the person's own act (or the key's), as their sign-in was.
    // Its public id is `id` before, not `session_id`: audit redaction takes any name with `sessionid` in it for a session cookie.
    await recordAudit(q, { ...origin, organizationId: p.organizationId, action: 'session.revoked', target: { type: 'session', id }, before: { id }, after: { via } });
    return { id, object: 'session', deleted: true };
  });
}

/**
 * A switch's answer. `csrf` is the session's CSRF token from now on: a new one when the switch changed organization or
 * mode, so that whoever holds the old one (another tab of the browser, a request sent before the switch) can tell
 * that the session is no longer the one it knew, and none of its writes lands in the organization switched to.
 */
export interface SwitchedSession {
  view: SessionView;
  csrf: { token: string; changed: boolean; remainingS: number };
}

/** The session acts as the person's membership of another organization, or in the other mode, from its next request. */
export async function switchOwnSession(
  db: Db, p: Principal, to: { organization_id?: string | undefined; mode?: Mode | undefined }, origin: AuditOrigin,
): Promise<SwitchedSession> {
  return db.tx((q) => switchIn(q, p, to, origin));
}

async function switchIn(q: Queryable, p: Principal, to: { organization_id?: string | undefined; mode?: Mode | undefined }, origin: AuditOrigin): Promise<SwitchedSession> {
  const { sessionId, accountId } = requireSession(p);
  const orgId = to.organization_id ?? p.organizationId;
  const member = await findMembership(q, accountId, orgId);
  if (!member) throw new ApiError('resource_not_found', `No such organization: '${orgId}'`, 'organization_id');
  const mode = to.mode ?? p.mode;
  // Switching into an organization that requires single sign-on would leave a password session refused on every request.
  const sso = await findSsoSettings(q, orgId);
  const session = await findSession(q, sessionId);
  if (!session) throw expired();
  if (sso?.require_sso && session.method !== 'sso' && sso.break_glass_user !== member.member_id) {
    throw new ApiError('sso_required', 'That organization requires single sign-on. Sign in through its identity provider.');
  }
  const keyId = await ensureKeyOf(q, member.member_id, orgId, mode);
  if (orgId === p.organizationId && mode === p.mode) {
    return { view: await getSessionView(q, p), csrf: { token: session.csrf_token, changed: false, remainingS: 0 } };
  }
  const csrfToken = randomBase62(TOKEN_LENGTH);
  const { remaining_s } = await switchSession(q, sessionId, member.member_id, mode, csrfToken);
  // In the chain of the organization switched to: from here on the session acts there, as that membership.
  await recordAudit(q, {
    ...origin,
    actor: { type: 'member', id: member.member_id },
    organizationId: orgId,
    action: 'session.switched',
    target: { type: 'session', id: sessionId },
    before: { organization_id: p.organizationId, mode: p.mode },
    after: { organization_id: orgId, mode },
  });
  const view = await getSessionView(q, { ...p, keyId, userId: member.member_id, organizationId: orgId, role: member.role, mode });
  return { view, csrf: { token: csrfToken, changed: true, remainingS: remaining_s } };
}

export { requireSession };
