import type { Mode, Plan, Role, Scope } from '../domain/access.js';
import type { Queryable } from './db.js';

export interface ApiKeyRow {
  id: string;
  seq: number;
  organization_id: string;
  user_id: string;
  name: string;
  mode: Mode;
  role: Role;
  /** Unchecked by the table: only scopes the API accepted (SCOPES) are ever written. */
  scopes: Scope[];
  ip_allowlist: string[];
  /** numeric: its text, e.g. "12.50". */
  monthly_budget_usd: string | null;
  budget_action: 'notify' | 'block';
  prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  /** A dashboard session's key (0040_accounts.sql): never listed, never presented by anyone. */
  session: boolean;
  /** What the key may do: the lesser of its own role and its member's (docs/contract-addenda.md, "People"). */
  effective_role: Role;
}

/** A key with what authorization reads of its organization. */
export interface KeyWithOrganizationRow extends ApiKeyRow {
  secret_sha256: string;
  plan: Plan;
  enterprise: boolean;
  paused: boolean;
  /** A blocking budget (the key's, its member's or its organization's) concerns this key's reservations. */
  budget_gated: boolean;
  fingerprint: string;
  /** The member the key belongs to was removed: the key no longer authenticates. */
  member_removed_at: Date | null;
}

export interface NewApiKeyRow {
  id: string;
  organizationId: string;
  userId: string;
  name: string;
  mode: Mode;
  role: Role;
  scopes: readonly string[];
  ipAllowlist: readonly string[];
  monthlyBudgetUsd: number | null;
  budgetAction?: 'notify' | 'block' | undefined;
  prefix: string;
  secretSha256: string;
  session?: boolean;
}

export interface ApiKeySettings {
  name: string;
  scopes: readonly string[];
  ipAllowlist: readonly string[];
  /** Dollars, or the column's own text when it is kept unchanged. */
  monthlyBudgetUsd: number | string | null;
  budgetAction: 'notify' | 'block';
}

/**
 * Whether a blocking budget concerns the key `k` of organization `o` and member `u`: then its
 * reservations take the budget check (billing/budgets.ts). Part of the
 * fingerprint, so a cached key learns of a new blocking budget (its own, its member's or its organization's) on
 * its next request, on every node.
 */
export const BUDGET_GATED_SQL = `(k.budget_action = 'block' AND k.monthly_budget_usd IS NOT NULL) OR (u.budget_action = 'block' AND u.monthly_budget_usd IS NOT NULL)
  OR (o.budget_action = 'block' AND o.monthly_budget_usd IS NOT NULL)`;

const ROLE_ORDER_SQL = `ARRAY['viewer', 'developer', 'admin', 'owner']`;

/** The role key `k` acts with: the lesser of its own and its member `u`'s (a demoted member's keys are demoted with them). */
export const EFFECTIVE_ROLE_SQL = `(${ROLE_ORDER_SQL})[least(array_position(${ROLE_ORDER_SQL}, k.role), array_position(${ROLE_ORDER_SQL}, u.role))]`;

/**
 * The key fingerprint (access.ts glossary) of `k` (api_keys) joined to `o`
 * (organizations) and `u` (its member, users), as SQL: computed the same way
 * where a key is looked up and where a cached key is confirmed, so any change
 * to what authorization reads changes it, the member's role and removal included.
 */
export const KEY_FINGERPRINT_SQL = `md5(concat_ws('|', k.organization_id, k.mode, k.role, k.scopes::text, k.ip_allowlist::text,
  coalesce(k.revoked_at::text, '-'), o.plan, o.enterprise::text, o.paused::text, (${BUDGET_GATED_SQL})::text,
  u.role, coalesce(u.removed_at::text, '-')))`;

/** A query (for a CTE or alone) that finds one row when the key `keyParam` still has the fingerprint `fingerprintParam`. */
export function keyUnchangedSql(keyParam: string, fingerprintParam: string): string {
  return `SELECT 1 FROM api_keys k JOIN organizations o ON o.id = k.organization_id JOIN users u ON u.id = k.user_id
    WHERE k.id = ${keyParam} AND ${KEY_FINGERPRINT_SQL} = ${fingerprintParam}`;
}

/** A key row as the API shows it: `k` with its member `u` joined for the effective role. */
const KEY_COLUMNS = `k.*, ${EFFECTIVE_ROLE_SQL} AS effective_role`;

export async function insertApiKeyRow(q: Queryable, key: NewApiKeyRow): Promise<ApiKeyRow> {
  const r = await q.query<ApiKeyRow>(
    `WITH k AS (
       INSERT INTO api_keys (id, organization_id, user_id, name, mode, role, scopes, ip_allowlist, monthly_budget_usd, prefix, secret_sha256, budget_action, session)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING *)
     SELECT ${KEY_COLUMNS} FROM k JOIN users u ON u.id = k.user_id`,
    [
      key.id,
      key.organizationId,
      key.userId,
      key.name,
      key.mode,
      key.role,
      key.scopes,
      key.ipAllowlist,
      key.monthlyBudgetUsd,
      key.prefix,
      key.secretSha256,
      key.budgetAction ?? 'notify',
      key.session ?? false,
    ],
  );
  return r.rows[0]!;
}

const KEY_WITH_ORGANIZATION = `SELECT ${KEY_COLUMNS}, o.plan, o.enterprise, o.paused, (${BUDGET_GATED_SQL}) AS budget_gated, ${KEY_FINGERPRINT_SQL} AS fingerprint,
       u.removed_at AS member_removed_at
     FROM api_keys k JOIN organizations o ON o.id = k.organization_id JOIN users u ON u.id = k.user_id`;

/** The key with this secret hash, revoked or not. */
export async function findKeyBySecretSha256(q: Queryable, secretSha256: string): Promise<KeyWithOrganizationRow | null> {
  const r = await q.query<KeyWithOrganizationRow>(`${KEY_WITH_ORGANIZATION} WHERE k.secret_sha256 = $1`, [secretSha256]);
  return r.rows[0] ?? null;
}

/** The key with this id, revoked or not, read as authenticating by its secret reads it (a key-bound dashboard session's key). */
export async function findKeyWithOrganization(q: Queryable, id: string): Promise<KeyWithOrganizationRow | null> {
  const r = await q.query<KeyWithOrganizationRow>(`${KEY_WITH_ORGANIZATION} WHERE k.id = $1`, [id]);
  return r.rows[0] ?? null;
}

export async function keyHasFingerprint(q: Queryable, keyId: string, fingerprint: string): Promise<boolean> {
  const r = await q.query(keyUnchangedSql('$1', '$2'), [keyId, fingerprint]);
  return r.rows.length === 1;
}

/** At most once a minute per key, to keep the hot path read-only. */
export async function recordKeyUsed(q: Queryable, keyId: string): Promise<void> {
  await q.query(
    `UPDATE api_keys SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '60 seconds')`,
    [keyId],
  );
}

/** An unrevoked key of this organization and mode; a session's key only when `includeSession` (the session reading its own). */
export async function findActiveKey(q: Queryable, id: string, organizationId: string, mode: Mode, includeSession = false): Promise<ApiKeyRow | null> {
  const r = await q.query<ApiKeyRow>(
    `SELECT ${KEY_COLUMNS} FROM api_keys k JOIN users u ON u.id = k.user_id
     WHERE k.id = $1 AND k.organization_id = $2 AND k.mode = $3 AND k.revoked_at IS NULL AND (NOT k.session OR $4)`,
    [id, organizationId, mode, includeSession],
  );
  return r.rows[0] ?? null;
}

/** The key's IP allowlist; null when there is no such key. */
export async function keyIpAllowlist(q: Queryable, keyId: string): Promise<string[] | null> {
  const r = await q.query<{ ip_allowlist: string[] }>('SELECT ip_allowlist FROM api_keys WHERE id = $1', [keyId]);
  return r.rows[0]?.ip_allowlist ?? null;
}

/** Null when the key is unknown or revoked. */
export async function updateKeySettings(q: Queryable, id: string, settings: ApiKeySettings): Promise<ApiKeyRow | null> {
  const r = await q.query<ApiKeyRow>(
    `WITH k AS (
       UPDATE api_keys SET name = $2, scopes = $3, ip_allowlist = $4, monthly_budget_usd = $5, budget_action = $6
       WHERE id = $1 AND revoked_at IS NULL RETURNING *)
     SELECT ${KEY_COLUMNS} FROM k JOIN users u ON u.id = k.user_id`,
    [id, settings.name, settings.scopes, settings.ipAllowlist, settings.monthlyBudgetUsd, settings.budgetAction],
  );
  return r.rows[0] ?? null;
}

export async function revokeKey(q: Queryable, id: string): Promise<void> {
  await q.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [id]);
}

/** Unrevoked keys of this organization and mode created before `beforeSeq`, newest first. */
export async function listActiveKeys(
  q: Queryable,
  organizationId: string,
  mode: Mode,
  beforeSeq: number,
  limit: number,
): Promise<ApiKeyRow[]> {
  const r = await q.query<ApiKeyRow>(
    `SELECT ${KEY_COLUMNS} FROM api_keys k JOIN users u ON u.id = k.user_id
     WHERE k.organization_id = $1 AND k.mode = $2 AND k.revoked_at IS NULL AND NOT k.session AND k.seq < $3
     ORDER BY k.seq DESC LIMIT $4`,
    [organizationId, mode, beforeSeq, limit],
  );
  return r.rows;
}

/** Revokes every key of a member (their session keys too): a removed member's keys answer 401 from their next request. */
export async function revokeMemberKeys(q: Queryable, userId: string): Promise<number> {
  const r = await q.query('UPDATE api_keys SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL', [userId]);
  return r.rowCount ?? 0;
}

/**
 * The dashboard session key of a membership and mode, made on first use. Its role is owner: it acts with its
 * member's role (EFFECTIVE_ROLE_SQL), whatever that is now or becomes.
 */
export async function ensureSessionKey(q: Queryable, key: NewApiKeyRow): Promise<string> {
  const found = await q.query<{ id: string }>(
    'SELECT id FROM api_keys WHERE user_id = $1 AND mode = $2 AND session AND revoked_at IS NULL',
    [key.userId, key.mode],
  );
  if (found.rows[0]) return found.rows[0].id;
  await q.query(
    `INSERT INTO api_keys (id, organization_id, user_id, name, mode, role, scopes, ip_allowlist, monthly_budget_usd, prefix, secret_sha256, session)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, true)
     ON CONFLICT (user_id, mode) WHERE session AND revoked_at IS NULL DO NOTHING`,
    [key.id, key.organizationId, key.userId, key.name, key.mode, key.role, key.scopes, key.ipAllowlist, key.monthlyBudgetUsd, key.prefix, key.secretSha256],
  );
  const r = await q.query<{ id: string }>(
    'SELECT id FROM api_keys WHERE user_id = $1 AND mode = $2 AND session AND revoked_at IS NULL',
    [key.userId, key.mode],
  );
  return r.rows[0]!.id;
}
