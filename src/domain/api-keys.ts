import { createHash, timingSafeEqual } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { ApiError, notFound } from '../errors.js';
import { newId, randomBase62 } from '../ids.js';
import {
  findActiveKey,
  findKeyBySecretSha256,
  findKeyWithOrganization,
  insertApiKeyRow,
  keyHasFingerprint,
  keyIpAllowlist,
  listActiveKeys,
  revokeKey,
  updateKeySettings,
  type ApiKeyRow,
  type KeyWithOrganizationRow,
} from '../store/api-keys.js';
import { inTransaction, type Queryable } from '../store/db.js';
import { keysMonthSpend } from '../store/spending.js';
import { creditsToUsd } from '../billing/credits.js';
import { recordAudit, type AuditOrigin } from './audit.js';
import { canGrant, roleAllows, StaleAuthentication, type Mode, type Principal, type Role, type Scope } from './access.js';

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
  /** What the key may do now: the lesser of `role` and its member's role. */
  effective_role: Role;
  scopes: Scope[];
  ipAllowlist: string[];
  monthly_budget_usd: number | null;
  budget_action: 'notify' | 'block';
  /** Live credits charged this calendar month (UTC) plus those held now, in dollars. */
  spent_usd: number;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
}

const SECRET_RANDOM_LENGTH = 40;

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function toApiKeyView(r: ApiKeyRow, spentCredits = 0): ApiKeyView {
  return {
    id: r.id,
    object: 'api_key',
    name: r.name,
    mode: r.mode,
    role: r.role,
    effective_role: r.effective_role,
    scopes: r.scopes,
    ipAllowlist: r.ip_allowlist,
    monthly_budget_usd: r.monthly_budget_usd === null ? null : Number(r.monthly_budget_usd),
    budget_action: r.budget_action,
    spent_usd: creditsToUsd(spentCredits),
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
  budgetAction?: 'notify' | 'block' | undefined;
}

export async function insertApiKey(q: Queryable, input: CreateKeyInput): Promise<{ view: ApiKeyView; secret: string }> {
  const secret = `sk_${input.mode}_${randomBase62(SECRET_RANDOM_LENGTH)}`;
  const row = await insertApiKeyRow(q, {
    id: newId('key'),
    organizationId: input.organizationId,
    userId: input.userId,
    name: input.name,
    mode: input.mode,
    role: input.role,
    scopes: input.scopes,
    ipAllowlist: input.ipAllowlist,
    monthlyBudgetUsd: input.monthlyBudgetUsd,
    budgetAction: input.budgetAction,
    prefix: secret.slice(0, 12),
    secretSha256: hashSecret(secret),
  });
  return { view: toApiKeyView(row), secret };
}

export interface AuthenticatedKey {
  principal: Principal;
  ipAllowlist: string[];
  lastUsedAt: Date | null;
  /** The key fingerprint (access.ts glossary) as of this lookup. */
  fingerprint: string;
}

/**
 * Looks a secret up by its hash. Returns null for an unknown or revoked key.
 * Read routes call this on every request; credit-consuming routes may use a
 * cached result, confirmed by fingerprint in the statement that accepts.
 */
export async function findKeyBySecret(q: Queryable, secret: string): Promise<AuthenticatedKey | null> {
  const hash = hashSecret(secret);
  const row = await findKeyBySecretSha256(q, hash);
  if (!row || row.revoked_at || row.member_removed_at) return null;
  // The index lookup already matched; the constant-time compare guards against a
  // collation or index surprise ever matching a different hash.
  if (!timingSafeEqual(Buffer.from(row.secret_sha256), Buffer.from(hash))) return null;
  return authenticatedKey(row);
}

/**
 * The key a key-bound dashboard session acts as (0075_key_sessions.sql), read afresh on each of its requests: null
 * once the key is revoked or its member removed, and with the key's effective role as it is now.
 */
export async function findLiveKeyById(q: Queryable, id: string): Promise<AuthenticatedKey | null> {
  const row = await findKeyWithOrganization(q, id);
  if (!row || row.revoked_at || row.member_removed_at) return null;
  return authenticatedKey(row);
}

function authenticatedKey(row: KeyWithOrganizationRow): AuthenticatedKey {
  return {
    principal: {
      keyId: row.id,
      userId: row.user_id,
      organizationId: row.organization_id,
      mode: row.mode,
      role: row.effective_role,
      scopes: row.scopes,
      plan: row.plan,
      enterprise: row.enterprise,
      paused: row.paused,
      budgetGated: row.budget_gated,
    },
    ipAllowlist: row.ip_allowlist,
    lastUsedAt: row.last_used_at,
    fingerprint: row.fingerprint,
  };
}

/**
 * Confirms a principal taken from a node's key cache: true (and the principal
 * is confirmed from then on) when its key still has its fingerprint, or when
 * there was nothing to confirm; false when the key changed.
 */
export async function confirmPrincipal(q: Queryable, principal: Principal): Promise<boolean> {
  if (principal.unconfirmedFingerprint === undefined) return true;
  if (!(await keyHasFingerprint(q, principal.keyId, principal.unconfirmedFingerprint))) return false;
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
export { recordKeyUsed } from '../store/api-keys.js';

async function loadKey(q: Queryable, caller: Principal, id: string): Promise<ApiKeyRow> {
  // A session reads its own key (GET /v1/api-keys/current); no other session key is ever found by id.
  const row = await findActiveKey(q, id, caller.organizationId, caller.mode, caller.sessionId !== undefined && id === caller.keyId);
  if (!row) throw notFound('api key', id);
  return row;
}

function assertCanManage(caller: Principal, target: ApiKeyRow): void {
  // A signed-in person below admin (sessionRole) manages only the keys that are theirs.
  if (!roleAllows(caller.role, 'admin') && target.user_id !== caller.userId) {
    throw new ApiError('insufficient_role', `Your role '${caller.role}' manages only your own keys.`);
  }
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
  return (await keyIpAllowlist(q, caller.keyId)) ?? [];
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
  budget_action?: 'notify' | 'block' | undefined;
}

/** Creates the key and its audit entry (`api_key.created`) in one transaction (the caller's, if `q` is one). */
export async function createApiKey(q: Queryable, caller: Principal, req: CreateKeyRequest, origin: AuditOrigin): Promise<ApiKeyView & { key: string }> {
  return inTransaction(q, async (t) => {
    const created = await createKeyIn(t, caller, req);
    const { key: _secret, ...after } = created;
    await recordAudit(t, { ...origin, organizationId: caller.organizationId, action: 'api_key.created', target: { type: 'api_key', id: created.id }, before: null, after: settingsOf(after) });
    return created;
  });
}

async function createKeyIn(q: Queryable, caller: Principal, req: CreateKeyRequest): Promise<ApiKeyView & { key: string }> {
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
    budgetAction: req.budget_action,
  });
  return { ...view, key: secret };
}

export interface UpdateKeyRequest {
  name?: string | undefined;
  scopes?: Scope[] | undefined;
  ipAllowlist?: string[] | undefined;
  monthly_budget_usd?: number | null | undefined;
  budget_action?: 'notify' | 'block' | undefined;
}

/** Updates the key and records `api_key.updated` with its settings before and after, in one transaction. */
export async function updateApiKey(q: Queryable, caller: Principal, id: string, req: UpdateKeyRequest, origin: AuditOrigin): Promise<ApiKeyView> {
  return inTransaction(q, async (t) => {
    const before = toApiKeyView(await loadKey(t, caller, id));
    const after = await updateKeyIn(t, caller, id, req);
    await recordAudit(t, { ...origin, organizationId: caller.organizationId, action: 'api_key.updated', target: { type: 'api_key', id }, before: settingsOf(before), after: settingsOf(after) });
    return after;
  });
}

/** What a key's audit entries compare: its settings, not its spend or last use, which change without anyone's act. */
function settingsOf(v: ApiKeyView): Omit<ApiKeyView, 'spent_usd' | 'last_used_at'> {
  const { spent_usd: _spent, last_used_at: _used, ...settings } = v;
  return settings;
}

async function updateKeyIn(q: Queryable, caller: Principal, id: string, req: UpdateKeyRequest): Promise<ApiKeyView> {
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
  const updated = await updateKeySettings(q, id, {
    name: req.name ?? row.name, scopes, ipAllowlist, monthlyBudgetUsd: budget, budgetAction: req.budget_action ?? row.budget_action,
  });
  if (!updated) throw notFound('api key', id);
  return withSpend(q, updated);
}

/** Revokes the key and records `api_key.revoked`, in one transaction. */
export async function revokeApiKey(q: Queryable, caller: Principal, id: string, origin: AuditOrigin): Promise<{ id: string; object: 'api_key'; deleted: true }> {
  return inTransaction(q, async (t) => {
    const row = await loadKey(t, caller, id);
    assertCanManage(caller, row);
    await revokeKey(t, id);
    await recordAudit(t, { ...origin, organizationId: caller.organizationId, action: 'api_key.revoked', target: { type: 'api_key', id }, before: settingsOf(toApiKeyView(row)), after: null });
    return { id, object: 'api_key', deleted: true };
  });
}

export async function getApiKey(q: Queryable, caller: Principal, id: string): Promise<ApiKeyView> {
  return withSpend(q, await loadKey(q, caller, id));
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
  const rows = await listActiveKeys(q, caller.organizationId, caller.mode, cursor, page.limit + 1);
  const page_ = rows.slice(0, page.limit);
  const spent = await keysMonthSpend(q, caller.organizationId, page_.map((r) => r.id));
  return { object: 'list', data: page_.map((r) => toApiKeyView(r, spent.get(r.id) ?? 0)), has_more: rows.length > page.limit };
}

/** The key's view with its month's spend (store/spending.ts). */
async function withSpend(q: Queryable, row: ApiKeyRow): Promise<ApiKeyView> {
  const spent = await keysMonthSpend(q, row.organization_id, [row.id]);
  return toApiKeyView(row, spent.get(row.id) ?? 0);
}

function dedupe<T>(xs: readonly T[]): T[] {
  return [...new Set(xs)];
}
