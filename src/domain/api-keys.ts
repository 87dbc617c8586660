import { createHash, timingSafeEqual } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { ApiError, notFound } from '../errors.js';
import { newId, randomBase62 } from '../ids.js';
import type { Queryable } from '../store/db.js';
import { canGrant, roleAllows, StaleAuthentication, type Mode, type Plan, type Principal, type Role, type Scope } from './access.js';

/**
 * API keys: the secret (`sk_live_…`/`sk_test_…`) is shown once at creation and
 * only its SHA-256 is stored. A deleted key is kept as a revoked row so its id
 * never resolves again and usage by it stays attributable.
 */
export interface ApiKeyView {
  id: string;
  object: 'api_key';
  name: string;
  mode: Mode;
  role: Role;
  scopes: Scope[];
  ipAllowlist: string[];
  monthly_budget_usd: number | null;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
}

interface ApiKeyRow {
  id: string;
  seq: number;
  organization_id: string;
  user_id: string;
  name: string;
  mode: Mode;
  role: Role;
  scopes: Scope[];
  ip_allowlist: string[];
  monthly_budget_usd: string | null;
  prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const SECRET_RANDOM_LENGTH = 40;

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function toApiKeyView(r: ApiKeyRow): ApiKeyView {
  return {
    id: r.id,
    object: 'api_key',
    name: r.name,
    mode: r.mode,
    role: r.role,
    scopes: r.scopes,
    ipAllowlist: r.ip_allowlist,
    monthly_budget_usd: r.monthly_budget_usd === null ? null : Number(r.monthly_budget_usd),
    prefix: r.prefix,
    created_at: r.created_at.toISOString(),
    last_used_at: r.last_used_at ? r.last_used_at.toISOString() : null,
  };
}

/** Normalizes CIDR strings (a bare address becomes /32 or /128); throws parameter_invalid on a bad one. */
export function normalizeAllowlist(entries: readonly string[]): string[] {
  return entries.map((entry, i) => {
    try {
      const [addr, bits] = entry.includes('/') ? ipaddr.parseCIDR(entry) : (() => {
        const a = ipaddr.parse(entry);
        return [a, a.kind() === 'ipv4' ? 32 : 128] as const;
      })();
      // Write the network address, so "10.1.2.3/8" is stored as "10.0.0.0/8".
      const network = addr.kind() === 'ipv4'
        ? ipaddr.IPv4.networkAddressFromCIDR(`${addr.toString()}/${bits}`)
        : ipaddr.IPv6.networkAddressFromCIDR(`${addr.toString()}/${bits}`);
      return `${network.toString()}/${bits}`;
    } catch {
      throw new ApiError('parameter_invalid', `ipAllowlist[${i}]: "${entry}" is not an IPv4 or IPv6 CIDR range`, `ipAllowlist[${i}]`);
    }
  });
}

/** Whether `ip` (as the socket or a trusted proxy reports it) is inside one of the ranges. */
export function ipAllowed(ip: string, allowlist: readonly string[]): boolean {
  if (allowlist.length === 0) return true;
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process() turns an IPv4-mapped IPv6 address (::ffff:1.2.3.4) into IPv4.
    addr = ipaddr.process(ip);
  } catch {
    return false;
  }
  return allowlist.some((cidr) => {
    const [range, bits] = ipaddr.parseCIDR(cidr);
    return range.kind() === addr.kind() && addr.match([range, bits] as [typeof addr, number]);
  });
}

/** Whether every range of `want` lies inside one of `have`'s; an empty `have` is unrestricted, an empty `want` is everywhere. */
export function allowlistWithin(have: readonly string[], want: readonly string[]): boolean {
  if (have.length === 0) return true;
  if (want.length === 0) return false;
  return want.every((w) => {
    const [wa, wbits] = ipaddr.parseCIDR(w);
    return have.some((h) => {
      const [ha, hbits] = ipaddr.parseCIDR(h);
      return ha.kind() === wa.kind() && wbits >= hbits && wa.match([ha, hbits] as [typeof wa, number]);
    });
  });
}

export interface CreateKeyInput {
  organizationId: string;
  userId: string;
  name: string;
  mode: Mode;
  role: Role;
  scopes: Scope[];
  ipAllowlist: string[];
  monthlyBudgetUsd: number | null;
}

export async function insertApiKey(q: Queryable, input: CreateKeyInput): Promise<{ view: ApiKeyView; secret: string }> {
  const secret = `sk_${input.mode}_${randomBase62(SECRET_RANDOM_LENGTH)}`;
  const r = await q.query<ApiKeyRow>(
    `INSERT INTO api_keys (id, organization_id, user_id, name, mode, role, scopes, ip_allowlist, monthly_budget_usd, prefix, secret_sha256)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
    [
      newId('key'),
      input.organizationId,
      input.userId,
      input.name,
      input.mode,
      input.role,
      input.scopes,
      input.ipAllowlist,
      input.monthlyBudgetUsd,
      secret.slice(0, 12),
      hashSecret(secret),
    ],
  );
  return { view: toApiKeyView(r.rows[0]!), secret };
}

export interface AuthenticatedKey {
  principal: Principal;
  ipAllowlist: string[];
  lastUsedAt: Date | null;
  /** The key fingerprint (access.ts glossary) as of this lookup. */
  fingerprint: string;
}

/**
 * The key fingerprint of `k` (api_keys) joined to `o` (organizations), as SQL:
 * computed the same way where a key is looked up and where a cached key is
 * confirmed, so any change to what authorization reads changes it.
 */
export const KEY_FINGERPRINT_SQL = `md5(concat_ws('|', k.organization_id, k.mode, k.role, k.scopes::text, k.ip_allowlist::text,
  coalesce(k.revoked_at::text, '-'), o.plan, o.enterprise::text, o.paused::text))`;

/**
 * Looks a secret up by its hash. Returns null for an unknown or revoked key.
 * Read routes call this on every request; credit-consuming routes may use a
 * cached result, confirmed by fingerprint in the statement that accepts.
 */
export async function findKeyBySecret(q: Queryable, secret: string): Promise<AuthenticatedKey | null> {
  const hash = hashSecret(secret);
  const r = await q.query<ApiKeyRow & { secret_sha256: string; plan: Plan; enterprise: boolean; paused: boolean; fingerprint: string }>(
    `SELECT k.*, o.plan, o.enterprise, o.paused, ${KEY_FINGERPRINT_SQL} AS fingerprint
     FROM api_keys k JOIN organizations o ON o.id = k.organization_id
     WHERE k.secret_sha256 = $1`,
    [hash],
  );
  const row = r.rows[0];
  if (!row || row.revoked_at) return null;
  // The index lookup already matched; the constant-time compare guards against a
  // collation or index surprise ever matching a different hash.
  if (!timingSafeEqual(Buffer.from(row.secret_sha256), Buffer.from(hash))) return null;
  return {
    principal: {
      keyId: row.id,
      userId: row.user_id,
      organizationId: row.organization_id,
      mode: row.mode,
      role: row.role,
      scopes: row.scopes,
      plan: row.plan,
      enterprise: row.enterprise,
      paused: row.paused,
    },
    ipAllowlist: row.ip_allowlist,
    lastUsedAt: row.last_used_at,
    fingerprint: row.fingerprint,
  };
}

/** A query (for a CTE or alone) that finds one row when the key `keyParam` still has the fingerprint `fingerprintParam`. */
export function keyUnchangedSql(keyParam: string, fingerprintParam: string): string {
  return `SELECT 1 FROM api_keys k JOIN organizations o ON o.id = k.organization_id WHERE k.id = ${keyParam} AND ${KEY_FINGERPRINT_SQL} = ${fingerprintParam}`;
}

/**
 * Confirms a principal taken from a node's key cache: true (and the principal
 * is confirmed from then on) when its key still has its fingerprint, or when
 * there was nothing to confirm; false when the key changed.
 */
export async function confirmPrincipal(q: Queryable, principal: Principal): Promise<boolean> {
  if (principal.unconfirmedFingerprint === undefined) return true;
  const r = await q.query(keyUnchangedSql('$1', '$2'), [principal.keyId, principal.unconfirmedFingerprint]);
  if (r.rows.length !== 1) return false;
  delete principal.unconfirmedFingerprint;
  return true;
}

/**
 * confirmPrincipal before something is done outside the accepting statement
 * (a cache copy, fetching an input): a changed key throws StaleAuthentication,
 * and the request is then authenticated afresh.
 */
export async function confirmCachedPrincipal(q: Queryable, principal: Principal): Promise<void> {
  if (!(await confirmPrincipal(q, principal))) throw new StaleAuthentication();
}

/** last_used_at is written at most once a minute per key, to keep the hot path read-only. */
export async function touchKey(q: Queryable, keyId: string): Promise<void> {
  await q.query(
    `UPDATE api_keys SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '60 seconds')`,
    [keyId],
  );
}

async function loadKey(q: Queryable, caller: Principal, id: string): Promise<ApiKeyRow> {
  const r = await q.query<ApiKeyRow>(
    'SELECT * FROM api_keys WHERE id = $1 AND organization_id = $2 AND mode = $3 AND revoked_at IS NULL',
    [id, caller.organizationId, caller.mode],
  );
  const row = r.rows[0];
  if (!row) throw notFound('api key', id);
  return row;
}

function assertCanManage(caller: Principal, target: ApiKeyRow): void {
  if (!roleAllows(caller.role, target.role)) {
    throw new ApiError('insufficient_role', `This key cannot manage a key with role '${target.role}'.`);
  }
}

function assertCanGrant(caller: Principal, role: Role, scopes: Scope[]): void {
  if (!canGrant(caller, { role, scopes })) {
    throw new ApiError(
      'insufficient_role',
      'A key cannot grant a role or scopes broader than its own' +
        (caller.scopes.length > 0 && scopes.length === 0 ? ' (an empty scope list means full access).' : '.'),
    );
  }
}

/**
 * An IP allowlist is part of what a key has: a key restricted to some ranges
 * may not make a key, or widen one (itself included), to reach beyond them,
 * or it could mint its way out of its own restriction.
 */
async function assertAllowlistGrantable(q: Queryable, caller: Principal, allowlist: string[]): Promise<string[]> {
  const own = await callerAllowlist(q, caller);
  if (!allowlistWithin(own, allowlist)) {
    throw new ApiError(
      'insufficient_role',
      `This key may only be used from ${own.join(', ')}; it cannot grant an IP allowlist ${allowlist.length === 0 ? 'that is empty (any address)' : 'reaching beyond those ranges'}.`,
      'ipAllowlist',
    );
  }
  return own;
}

async function callerAllowlist(q: Queryable, caller: Principal): Promise<string[]> {
  const r = await q.query<{ ip_allowlist: string[] }>('SELECT ip_allowlist FROM api_keys WHERE id = $1', [caller.keyId]);
  return r.rows[0]?.ip_allowlist ?? [];
}

function assertAllowlistFeature(caller: Principal, allowlist: string[]): void {
  if (allowlist.length > 0 && !caller.enterprise) {
    throw new ApiError('feature_not_available', 'IP allowlists are available to Enterprise organizations only.', 'ipAllowlist');
  }
}

export interface CreateKeyRequest {
  name: string;
  mode?: Mode | undefined;
  role?: Role | undefined;
  scopes?: Scope[] | undefined;
  ipAllowlist?: string[] | undefined;
  monthly_budget_usd?: number | null | undefined;
}

export async function createApiKey(q: Queryable, caller: Principal, req: CreateKeyRequest): Promise<ApiKeyView & { key: string }> {
  const mode = req.mode ?? caller.mode;
  if (caller.mode === 'test' && mode === 'live') {
    throw new ApiError('insufficient_role', 'A test-mode key cannot create live-mode keys.', 'mode');
  }
  const role = req.role ?? caller.role;
  const scopes = dedupe(req.scopes ?? [...caller.scopes]);
  assertCanGrant(caller, role, scopes);
  // Omitted: the caller's own allowlist (none for an unrestricted caller), as scopes are copied.
  const ipAllowlist = req.ipAllowlist !== undefined ? normalizeAllowlist(req.ipAllowlist) : await callerAllowlist(q, caller);
  if (req.ipAllowlist !== undefined) {
    assertAllowlistFeature(caller, ipAllowlist);
    await assertAllowlistGrantable(q, caller, ipAllowlist);
  }
  const { view, secret } = await insertApiKey(q, {
    organizationId: caller.organizationId,
    userId: caller.userId,
    name: req.name,
    mode,
    role,
    scopes,
    ipAllowlist,
    monthlyBudgetUsd: req.monthly_budget_usd ?? null,
  });
  return { ...view, key: secret };
}

export interface UpdateKeyRequest {
  name?: string | undefined;
  scopes?: Scope[] | undefined;
  ipAllowlist?: string[] | undefined;
  monthly_budget_usd?: number | null | undefined;
}

export async function updateApiKey(q: Queryable, caller: Principal, id: string, req: UpdateKeyRequest): Promise<ApiKeyView> {
  const row = await loadKey(q, caller, id);
  assertCanManage(caller, row);
  const scopes = req.scopes !== undefined ? dedupe(req.scopes) : row.scopes;
  if (req.scopes !== undefined) assertCanGrant(caller, row.role, scopes);
  const ipAllowlist = req.ipAllowlist !== undefined ? normalizeAllowlist(req.ipAllowlist) : row.ip_allowlist;
  if (req.ipAllowlist !== undefined) {
    assertAllowlistFeature(caller, ipAllowlist);
    await assertAllowlistGrantable(q, caller, ipAllowlist);
  }
  const budget = req.monthly_budget_usd !== undefined ? req.monthly_budget_usd : row.monthly_budget_usd;
  const r = await q.query<ApiKeyRow>(
    `UPDATE api_keys SET name = $2, scopes = $3, ip_allowlist = $4, monthly_budget_usd = $5
     WHERE id = $1 AND revoked_at IS NULL RETURNING *`,
    [id, req.name ?? row.name, scopes, ipAllowlist, budget],
  );
  if (!r.rows[0]) throw notFound('api key', id);
  return toApiKeyView(r.rows[0]);
}

export async function revokeApiKey(q: Queryable, caller: Principal, id: string): Promise<{ id: string; object: 'api_key'; deleted: true }> {
  const row = await loadKey(q, caller, id);
  assertCanManage(caller, row);
  await q.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [id]);
  return { id, object: 'api_key', deleted: true };
}

export async function getApiKey(q: Queryable, caller: Principal, id: string): Promise<ApiKeyView> {
  return toApiKeyView(await loadKey(q, caller, id));
}

export async function listApiKeys(
  q: Queryable,
  caller: Principal,
  page: { limit: number; startingAfter?: string | undefined },
): Promise<{ object: 'list'; data: ApiKeyView[]; has_more: boolean }> {
  let cursor = Number.MAX_SAFE_INTEGER;
  if (page.startingAfter) {
    const after = await loadKey(q, caller, page.startingAfter).catch(() => {
      throw new ApiError('resource_not_found', `No such api key: '${page.startingAfter}'`, 'starting_after');
    });
    cursor = after.seq;
  }
  const r = await q.query<ApiKeyRow>(
    `SELECT * FROM api_keys WHERE organization_id = $1 AND mode = $2 AND revoked_at IS NULL AND seq < $3
     ORDER BY seq DESC LIMIT $4`,
    [caller.organizationId, caller.mode, cursor, page.limit + 1],
  );
  return { object: 'list', data: r.rows.slice(0, page.limit).map(toApiKeyView), has_more: r.rows.length > page.limit };
}

function dedupe<T>(xs: readonly T[]): T[] {
  return [...new Set(xs)];
}
