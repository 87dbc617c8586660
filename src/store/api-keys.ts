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
}

/** A key with what authorization reads of its organization. */
export interface KeyWithOrganizationRow extends ApiKeyRow {
  secret_sha256: string;
  plan: Plan;
  enterprise: boolean;
  paused: boolean;
  /** A blocking budget (the key's or its organization's) concerns this key's reservations. */
  budget_gated: boolean;
  fingerprint: string;
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
 * Whether a blocking budget concerns the key `k` of organization `o`: then its
 * reservations take the budget check (billing/budgets.ts). Part of the
 * fingerprint, so a cached key learns of a new blocking budget on its next request.
 */
export const BUDGET_GATED_SQL = `(k.budget_action = 'block' AND k.monthly_budget_usd IS NOT NULL) OR (o.budget_action = 'block' AND o.monthly_budget_usd IS NOT NULL)`;

/**
 * The key fingerprint (access.ts glossary) of `k` (api_keys) joined to `o`
 * (organizations), as SQL: computed the same way where a key is looked up and
 * where a cached key is confirmed, so any change to what authorization reads
 * changes it.
 */
export const KEY_FINGERPRINT_SQL = `md5(concat_ws('|', k.organization_id, k.mode, k.role, k.scopes::text, k.ip_allowlist::text,
  coalesce(k.revoked_at::text, '-'), o.plan, o.enterprise::text, o.paused::text, (${BUDGET_GATED_SQL})::text))`;

/** A query (for a CTE or alone) that finds one row when the key `keyParam` still has the fingerprint `fingerprintParam`. */
export function keyUnchangedSql(keyParam: string, fingerprintParam: string): string {
  return `SELECT 1 FROM api_keys k JOIN organizations o ON o.id = k.organization_id WHERE k.id = ${keyParam} AND ${KEY_FINGERPRINT_SQL} = ${fingerprintParam}`;
}

export async function insertApiKeyRow(q: Queryable, key: NewApiKeyRow): Promise<ApiKeyRow> {
  const r = await q.query<ApiKeyRow>(
    `INSERT INTO api_keys (id, organization_id, user_id, name, mode, role, scopes, ip_allowlist, monthly_budget_usd, prefix, secret_sha256, budget_action)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING *`,
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
    ],
  );
  return r.rows[0]!;
}

/** The key with this secret hash, revoked or not. */
export async function findKeyBySecretSha256(q: Queryable, secretSha256: string): Promise<KeyWithOrganizationRow | null> {
  const r = await q.query<KeyWithOrganizationRow>(
    `SELECT k.*, o.plan, o.enterprise, o.paused, (${BUDGET_GATED_SQL}) AS budget_gated, ${KEY_FINGERPRINT_SQL} AS fingerprint
     FROM api_keys k JOIN organizations o ON o.id = k.organization_id
     WHERE k.secret_sha256 = $1`,
    [secretSha256],
  );
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

/** An unrevoked key of this organization and mode. */
export async function findActiveKey(q: Queryable, id: string, organizationId: string, mode: Mode): Promise<ApiKeyRow | null> {
  const r = await q.query<ApiKeyRow>(
    'SELECT * FROM api_keys WHERE id = $1 AND organization_id = $2 AND mode = $3 AND revoked_at IS NULL',
    [id, organizationId, mode],
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
    `UPDATE api_keys SET name = $2, scopes = $3, ip_allowlist = $4, monthly_budget_usd = $5, budget_action = $6
     WHERE id = $1 AND revoked_at IS NULL RETURNING *`,
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
    `SELECT * FROM api_keys WHERE organization_id = $1 AND mode = $2 AND revoked_at IS NULL AND seq < $3
     ORDER BY seq DESC LIMIT $4`,
    [organizationId, mode, beforeSeq, limit],
  );
  return r.rows;
}
