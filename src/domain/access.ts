/**
 * Access glossary
 * - role: what a user may do in an organization: viewer < developer < admin < owner.
 *   A key inherits its creator's role, or is created with a narrower one.
 * - scope: a narrowing of a key to some operations. An empty scope list means
 *   every operation the role allows.
 * - mode: `live` (real credits) or `test` (sandbox, no charges); data of one
 *   mode is invisible to keys of the other.
 * - principal: the authenticated caller of one request: key, organization, role, scopes.
 * - key fingerprint: a digest of everything about a key and its organization
 *   that authorization depends on (revocation, role, scopes, IP allowlist,
 *   plan, enterprise, paused). A principal taken from a process's cache
 *   carries the fingerprint it was cached with, and the statement that accepts
 *   its generation proceeds only if the key still has that fingerprint; so a
 *   revoked or changed key is refused on its very next request, on every node.
 */
export const ROLES = ['viewer', 'developer', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export const SCOPES = [
  'images:write',
  'videos:write',
  'voice:write',
  'music:write',
  'avatars:write',
  'chat:write',
  'three-d:write',
  'upscale:write',
  'generations:read',
  'generations:write',
  'uploads:write',
  'usage:read',
  'webhooks:manage',
  'api_keys:manage',
  'members:manage',
] as const;
export type Scope = (typeof SCOPES)[number];

export type Mode = 'live' | 'test';
export type Plan = 'free' | 'pro' | 'studio' | 'team';
export const PLANS: readonly Plan[] = ['free', 'pro', 'studio', 'team'];

export interface Principal {
  /** The key; for a signed-in person, their membership's session key (0040_accounts.sql), which nobody holds the secret of. */
  keyId: string;
  /** The member (users row) the key belongs to, or the session acts as. */
  userId: string;
  /** Set when a signed-in person's session cookie authenticated the request, not an API key. */
  sessionId?: string;
  /** The person (account) behind a session. */
  accountId?: string;
  /**
   * Set when a dashboard session opened with an API key (0075_key_sessions.sql) authenticated the request. Such a
   * principal is its key's in every respect (role, scopes, IP allowlist, budgets, rate limit, audit actor); only the
   * session's own operations (GET /v1/session, its list, signing out) read this. `sessionId` stays unset: that is a person's.
   */
  keySessionId?: string;
  organizationId: string;
  mode: Mode;
  role: Role;
  scopes: Scope[];
  plan: Plan;
  enterprise: boolean;
  paused: boolean;
  /**
   * A blocking budget (the key's or its organization's, contract §7) concerns
   * this key: its reservations are budget-checked (billing/budgets.ts). Part of
   * the key fingerprint. Absent means false.
   */
  budgetGated?: boolean;
  /**
   * Set when the principal came from this process's cache of keys rather than
   * from the database: the fingerprint that the accepting statement must still
   * find (then nothing before it may have had effects), else it throws
   * StaleAuthentication and the request is authenticated afresh.
   */
  unconfirmedFingerprint?: string;
}

/** A cached principal whose key changed (revoked, narrowed, paused…): authenticate the request again, from the database. */
export class StaleAuthentication extends Error {
  constructor() {
    super('the cached API key changed since it was cached');
  }
}

export function roleRank(role: Role): number {
  return ROLES.indexOf(role);
}

export function roleAllows(have: Role, need: Role): boolean {
  return roleRank(have) >= roleRank(need);
}

/** Whether a principal's scopes cover a scope (empty list = every scope). */
export function scopeAllows(scopes: readonly Scope[], need: Scope): boolean {
  return scopes.length === 0 || scopes.includes(need);
}

/**
 * Whether a key with (role, scopes) may hand out (newRole, newScopes): never a
 * higher role, never a scope it lacks. A scoped key cannot make a full-access
 * (empty-scope) key, since that would be broader than itself.
 */
export function canGrant(
  have: { role: Role; scopes: readonly Scope[] },
  want: { role: Role; scopes: readonly Scope[] },
): boolean {
  if (!roleAllows(have.role, want.role)) return false;
  if (have.scopes.length === 0) return true;
  if (want.scopes.length === 0) return false;
  return want.scopes.every((s) => have.scopes.includes(s));
}
