import type { Mode, Plan, Role } from '../domain/access.js';
import { BUDGET_GATED_SQL } from './api-keys.js';
import type { Queryable } from './db.js';

/** People, their memberships and their sessions (0040_accounts.sql). */
export interface AccountRow {
  id: string;
  email: string;
  email_key: string;
  name: string | null;
  password_hash: string | null;
  /** The person asked for a passkey after their password (0080): a password alone starts no session. */
  passkey_after_password: boolean;
  created_at: Date;
}

export interface MemberRow {
  id: string;
  organization_id: string;
  account_id: string | null;
  role: Role;
  name: string | null;
  created_at: Date;
  removed_at: Date | null;
  email: string | null;
  account_name: string | null;
  /** The person's latest sign-in (any organization's: a session is the person's); null before the first. */
  last_signed_in_at: Date | null;
  /** numeric: its text, e.g. "12.50"; over all of the member's keys (0070_member_budgets.sql). */
  monthly_budget_usd: string | null;
  budget_action: 'notify' | 'block';
}

export interface MembershipRow {
  member_id: string;
  organization_id: string;
  organization_name: string;
  role: Role;
}

export interface SessionRow {
  id: string;
  csrf_token: string;
  /** The person signed in; null for a session opened with an API key (0075_key_sessions.sql). */
  account_id: string | null;
  /** The API key a key-bound session acts as; null for a person's session. */
  api_key_id: string | null;
  user_id: string;
  mode: Mode;
  method: string;
  ip: string | null;
  user_agent: string | null;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

/** A session with what authenticating a request by it reads. */
export interface SessionAuthRow extends SessionRow {
  now: Date;
  organization_id: string;
  role: Role;
  member_removed_at: Date | null;
  plan: Plan;
  enterprise: boolean;
  paused: boolean;
  key_id: string | null;
  budget_gated: boolean | null;
  require_sso: boolean | null;
  break_glass_user: string | null;
}

export async function findAccountByEmailKey(q: Queryable, emailKey: string): Promise<AccountRow | null> {
  const r = await q.query<AccountRow>('SELECT * FROM accounts WHERE email_key = $1', [emailKey]);
  return r.rows[0] ?? null;
}

export async function findAccount(q: Queryable, id: string): Promise<AccountRow | null> {
  const r = await q.query<AccountRow>('SELECT * FROM accounts WHERE id = $1', [id]);
  return r.rows[0] ?? null;
}

export async function findAccountForUpdate(q: Queryable, id: string): Promise<AccountRow | null> {
  const r = await q.query<AccountRow>('SELECT * FROM accounts WHERE id = $1 FOR UPDATE', [id]);
  return r.rows[0] ?? null;
}

/** Null when the email is taken (by a concurrent sign-up too). */
export async function insertAccount(
  q: Queryable, a: { id: string; email: string; emailKey: string; name: string | null; passwordHash: string | null },
): Promise<AccountRow | null> {
  const r = await q.query<AccountRow>(
    `INSERT INTO accounts (id, email, email_key, name, password_hash) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (email_key) DO NOTHING RETURNING *`,
    [a.id, a.email, a.emailKey, a.name, a.passwordHash],
  );
  return r.rows[0] ?? null;
}

/** Turns the passkey-after-password requirement on or off (the caller holds the account's row lock). */
export async function setPasskeyAfterPassword(q: Queryable, id: string, on: boolean): Promise<void> {
  await q.query('UPDATE accounts SET passkey_after_password = $2 WHERE id = $1', [id, on]);
}

export async function setAccountPassword(q: Queryable, id: string, passwordHash: string): Promise<void> {
  await q.query('UPDATE accounts SET password_hash = $2 WHERE id = $1', [id, passwordHash]);
}

const MEMBER_COLUMNS = `u.id, u.organization_id, u.account_id, u.role, u.name, u.created_at, u.removed_at, a.email, a.name AS account_name,
  u.monthly_budget_usd, u.budget_action,
  (SELECT max(s.created_at) FROM sessions s WHERE s.account_id = u.account_id) AS last_signed_in_at`;

/** The organization's current members (removed ones are kept as rows, for the keys and usage they made). */
export async function listMembers(q: Queryable, organizationId: string): Promise<MemberRow[]> {
  const r = await q.query<MemberRow>(
    `SELECT ${MEMBER_COLUMNS} FROM users u LEFT JOIN accounts a ON a.id = u.account_id
     WHERE u.organization_id = $1 AND u.removed_at IS NULL ORDER BY u.created_at, u.id`,
    [organizationId],
  );
  return r.rows;
}

/** A current member of the organization, locked for an update when `forUpdate`. */
export async function findMember(q: Queryable, organizationId: string, id: string, forUpdate = false): Promise<MemberRow | null> {
  const r = await q.query<MemberRow>(
    `SELECT ${MEMBER_COLUMNS} FROM users u LEFT JOIN accounts a ON a.id = u.account_id
     WHERE u.id = $1 AND u.organization_id = $2 AND u.removed_at IS NULL${forUpdate ? ' FOR UPDATE OF u' : ''}`,
    [id, organizationId],
  );
  return r.rows[0] ?? null;
}

/**
 * The organization's owners, locked: a change that could leave it without one
 * takes this first, so two owners demoting each other at once cannot both succeed.
 */
export async function lockOwners(q: Queryable, organizationId: string): Promise<string[]> {
  await q.query('SELECT id FROM organizations WHERE id = $1 FOR UPDATE', [organizationId]);
  const r = await q.query<{ id: string }>(
    `SELECT id FROM users WHERE organization_id = $1 AND role = 'owner' AND removed_at IS NULL`,
    [organizationId],
  );
  return r.rows.map((x) => x.id);
}

export async function updateMemberRole(q: Queryable, id: string, role: Role): Promise<void> {
  await q.query('UPDATE users SET role = $2 WHERE id = $1 AND removed_at IS NULL', [id, role]);
}

/** Dollars, or the column's own text when it is kept unchanged. */
export async function updateMemberBudget(q: Queryable, id: string, monthlyBudgetUsd: number | string | null, budgetAction: 'notify' | 'block'): Promise<void> {
  await q.query('UPDATE users SET monthly_budget_usd = $2, budget_action = $3 WHERE id = $1 AND removed_at IS NULL', [id, monthlyBudgetUsd, budgetAction]);
}

export async function markMemberRemoved(q: Queryable, id: string): Promise<void> {
  await q.query('UPDATE users SET removed_at = now() WHERE id = $1 AND removed_at IS NULL', [id]);
}

export async function insertMember(q: Queryable, m: { id: string; organizationId: string; accountId: string; role: Role; name: string | null }): Promise<void> {
  await q.query('INSERT INTO users (id, organization_id, account_id, role, name) VALUES ($1, $2, $3, $4, $5)', [
    m.id, m.organizationId, m.accountId, m.role, m.name,
  ]);
}

export async function attachAccountToMember(q: Queryable, memberId: string, accountId: string): Promise<boolean> {
  const r = await q.query('UPDATE users SET account_id = $2 WHERE id = $1 AND account_id IS NULL AND removed_at IS NULL', [memberId, accountId]);
  return r.rowCount === 1;
}

/** The person's current membership of an organization. */
export async function findMembership(q: Queryable, accountId: string, organizationId: string): Promise<MembershipRow | null> {
  const r = await q.query<MembershipRow>(
    `SELECT u.id AS member_id, u.organization_id, o.name AS organization_name, u.role
     FROM users u JOIN organizations o ON o.id = u.organization_id
     WHERE u.account_id = $1 AND u.organization_id = $2 AND u.removed_at IS NULL`,
    [accountId, organizationId],
  );
  return r.rows[0] ?? null;
}

/** Every organization the person belongs to, oldest membership first. */
export async function listMemberships(q: Queryable, accountId: string): Promise<MembershipRow[]> {
  const r = await q.query<MembershipRow>(
    `SELECT u.id AS member_id, u.organization_id, o.name AS organization_name, u.role
     FROM users u JOIN organizations o ON o.id = u.organization_id
     WHERE u.account_id = $1 AND u.removed_at IS NULL ORDER BY u.created_at, u.id`,
    [accountId],
  );
  return r.rows;
}

/** A session of a person (`accountId`) or of an API key (`apiKeyId`): exactly one of them. */
export async function insertSession(
  q: Queryable,
  s: {
    id: string; tokenSha256: string; csrfToken: string; accountId: string | null; apiKeyId?: string | null; userId: string; mode: Mode; method: string;
    ip: string; userAgent: string | null; absoluteS: number;
  },
): Promise<SessionRow> {
  const r = await q.query<SessionRow>(
    `INSERT INTO sessions (id, token_sha256, csrf_token, account_id, api_key_id, user_id, mode, method, ip, user_agent, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now() + make_interval(secs => $11)) RETURNING *`,
    [s.id, s.tokenSha256, s.csrfToken, s.accountId, s.apiKeyId ?? null, s.userId, s.mode, s.method, s.ip, s.userAgent, s.absoluteS],
  );
  return r.rows[0]!;
}

/** The live sessions opened with this API key (neither revoked nor past their absolute end; idle ones are filtered by the caller). */
export async function listKeySessions(q: Queryable, apiKeyId: string): Promise<SessionRow[]> {
  const r = await q.query<SessionRow>(
    'SELECT * FROM sessions WHERE api_key_id = $1 AND revoked_at IS NULL AND expires_at > now() ORDER BY created_at DESC, id LIMIT 200',
    [apiKeyId],
  );
  return r.rows;
}

/** Revokes one session opened with this API key; false when it was opened otherwise or has already ended. */
export async function revokeKeySession(q: Queryable, apiKeyId: string, id: string): Promise<boolean> {
  const r = await q.query('UPDATE sessions SET revoked_at = now() WHERE id = $1 AND api_key_id = $2 AND revoked_at IS NULL', [id, apiKeyId]);
  return r.rowCount === 1;
}

/** The session with this token hash and what a request authenticated by it needs, with the database's clock. */
export async function findSessionForAuth(q: Queryable, tokenSha256: string): Promise<SessionAuthRow | null> {
  const r = await q.query<SessionAuthRow>(
    `SELECT s.*, now() AS now, u.organization_id, u.role, u.removed_at AS member_removed_at,
       o.plan, o.enterprise, o.paused, k.id AS key_id, (${BUDGET_GATED_SQL}) AS budget_gated,
       c.require_sso, c.break_glass_user
     FROM sessions s JOIN users u ON u.id = s.user_id JOIN organizations o ON o.id = u.organization_id
     LEFT JOIN api_keys k ON k.user_id = s.user_id AND k.mode = s.mode AND k.session AND k.revoked_at IS NULL
     LEFT JOIN sso_connections c ON c.organization_id = u.organization_id
     WHERE s.token_sha256 = $1`,
    [tokenSha256],
  );
  return r.rows[0] ?? null;
}

/** At most once a minute per session: the idle timeout counts from the last request seen. */
export async function touchSession(q: Queryable, id: string): Promise<void> {
  await q.query(`UPDATE sessions SET last_seen_at = now() WHERE id = $1 AND last_seen_at < now() - interval '60 seconds'`, [id]);
}

/** Moves the session to another membership or mode under a new CSRF token; answers the seconds it has left to live. */
export async function switchSession(q: Queryable, id: string, userId: string, mode: Mode, csrfToken: string): Promise<{ remaining_s: number }> {
  const r = await q.query<{ remaining_s: number }>(
    `UPDATE sessions SET user_id = $2, mode = $3, csrf_token = $4 WHERE id = $1
     RETURNING GREATEST(0, floor(extract(epoch FROM expires_at - now())))::int AS remaining_s`,
    [id, userId, mode, csrfToken],
  );
  return r.rows[0] ?? { remaining_s: 0 };
}

export async function findSession(q: Queryable, id: string): Promise<SessionRow | null> {
  const r = await q.query<SessionRow>('SELECT * FROM sessions WHERE id = $1', [id]);
  return r.rows[0] ?? null;
}

/** The person's sessions that are neither revoked nor past their absolute end (idle ones are filtered by the caller). */
export async function listAccountSessions(q: Queryable, accountId: string): Promise<SessionRow[]> {
  const r = await q.query<SessionRow>(
    'SELECT * FROM sessions WHERE account_id = $1 AND revoked_at IS NULL AND expires_at > now() ORDER BY created_at DESC, id LIMIT 200',
    [accountId],
  );
  return r.rows;
}

/** Revokes one of the person's sessions; false when it is not theirs or already ended. */
export async function revokeAccountSession(q: Queryable, accountId: string, id: string): Promise<boolean> {
  const r = await q.query('UPDATE sessions SET revoked_at = now() WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL', [id, accountId]);
  return r.rowCount === 1;
}

export async function dbNow(q: Queryable): Promise<Date> {
  const r = await q.query<{ now: Date }>('SELECT now() AS now');
  return r.rows[0]!.now;
}

/** A membership by id, removed or not: what a session acting as it reads. */
export async function findMemberById(q: Queryable, id: string): Promise<{ organization_id: string; role: Role } | null> {
  const r = await q.query<{ organization_id: string; role: Role }>('SELECT organization_id, role FROM users WHERE id = $1', [id]);
  return r.rows[0] ?? null;
}
