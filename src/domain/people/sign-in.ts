import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import { randomBase62 } from '../../ids.js';
import { findAccountByEmailKey, listMemberships } from '../../store/accounts.js';
import type { Queryable } from '../../store/db.js';
import { insertPendingSignIn } from '../../store/second-factor.js';
import { findSsoSettings } from '../../store/sso.js';
import type { SignInGuard } from '../../rate-limit.js';
import type { Mode } from '../access.js';
import { keyActor, recordAudit, type AuditOrigin } from '../audit.js';
import { emailKey, passwordMatches } from './passwords.js';
import { startKeySession, startSession, type SessionTimeouts, type StartedSession } from './sessions.js';
import { findKeyBySecret, hashSecret, ipAllowed, type AuthenticatedKey } from '../api-keys.js';

export interface SignInPorts {
  db: Queryable;
  clock: Clock;
  signIn: SignInGuard;
  timeouts: SessionTimeouts;
  /** Failures (per email or address) after which each answer is slowed. */
  slowAfter: number;
}

export interface SignInRequest {
  email: string;
  password: string;
  organization_id?: string | undefined;
  mode?: Mode | undefined;
}

const SLOW_BASE_MS = 250;
const SLOW_MAX_MS = 4_000;

/**
 * Signs a person in with their password. Every way of failing (no such email, no password, a wrong one) is the same
 * 401 after the same work (an argon2 verification), counted against the email as written and the address; past
 * `slowAfter` failures answers are slowed, past the guard's limits the email or address is locked (429) for the
 * window, even for the right password: what a guesser learns is the same whether the email exists or not.
 */
export async function signInWithPassword(
  ports: SignInPorts, req: SignInRequest, client: { ip: string; userAgent: string | null; requestId?: string | null },
): Promise<StartedSession | PendingSecondFactor> {
  const key = emailKey(req.email);
  // Refusals are the installation's entries (the operator's log): an email as written may name no account, and an
  // organization's log is no place for what anyone on the internet typed.
  const refusal = (action: string) =>
    recordAudit(ports.db, {
      actor: { type: 'system', id: 'sign-in' }, address: client.ip, requestId: client.requestId ?? null, organizationId: null,
      action, target: { type: 'email', id: req.email.slice(0, 320) }, before: null, after: null,
    });
  await applySignInBrake(ports, key, client.ip, () => refusal('sign_in.locked'));
  const account = await findAccountByEmailKey(ports.db, key);
  if (!(await passwordMatches(account?.password_hash ?? null, req.password)) || !account) {
    await ports.signIn.failed(key, client.ip);
    await refusal('sign_in.failed');
    throw new ApiError('invalid_credentials', 'The email or password is wrong.');
  }
  // With a passkey required after the password, the email's failure count is cleared only when the passkey is
  // right: a known password must not wipe out the second factor's failures.
  if (account.passkey_after_password) return startPendingSignIn(ports, account.id, req, client);
  await ports.signIn.succeeded(key);
  return startSignedInSession(ports, account.id, req, client, 'password');
}

/**
 * The brute-force brake every sign-in passes before its credential is checked: 429 while the email (or the key a
 * credential is counted under) or the address is locked, after `onLocked` recorded it; slowed past `slowAfter`.
 */
export async function applySignInBrake(
  ports: Pick<SignInPorts, 'signIn' | 'slowAfter'>, key: string, ip: string, onLocked: () => Promise<unknown>,
): Promise<void> {
  const state = await ports.signIn.state(key, ip);
  if (state.lockedForS !== null) {
    await onLocked();
    throw new ApiError('rate_limit_exceeded', 'Too many failed sign-ins for this email or from this address. Try again later.')
      .withHeader('Retry-After', String(state.lockedForS));
  }
  if (state.failures >= ports.slowAfter) {
    await sleep(Math.min(SLOW_MAX_MS, SLOW_BASE_MS * 2 ** (state.failures - ports.slowAfter)));
  }
}

/**
 * The end of every sign-in once the credential is proven (a password, a passkey): the membership signed in to, the
 * organization's single sign-on requirement, the session, and its `sign_in.succeeded` entry.
 */
export async function startSignedInSession(
  ports: { db: Queryable; timeouts: SessionTimeouts },
  accountId: string,
  req: { organization_id?: string | undefined; mode?: Mode | undefined },
  client: { ip: string; userAgent: string | null; requestId?: string | null },
  method: 'password' | 'passkey' | 'password_passkey',
): Promise<StartedSession> {
  const memberships = await listMemberships(ports.db, accountId);
  const member = req.organization_id !== undefined ? memberships.find((m) => m.organization_id === req.organization_id) : memberships[0];
  if (!member) {
    throw new ApiError(
      'resource_not_found',
      req.organization_id !== undefined ? `No such organization: '${req.organization_id}'` : 'This account belongs to no organization any more.',
      'organization_id',
    );
  }
  const sso = await findSsoSettings(ports.db, member.organization_id);
  if (sso?.require_sso && sso.break_glass_user !== member.member_id) {
    throw new ApiError('sso_required', 'This organization requires single sign-on. Sign in through its identity provider.');
  }
  const started = await startSession(ports.db, ports.timeouts, {
    accountId, member, mode: req.mode, method, ip: client.ip, userAgent: client.userAgent,
  });
  const origin: AuditOrigin = { actor: { type: 'member', id: member.member_id }, address: client.ip, requestId: client.requestId ?? null, mode: null };
  await recordAudit(ports.db, { ...origin, organizationId: member.organization_id, action: 'sign_in.succeeded', target: { type: 'account', id: accountId }, before: null, after: { method } });
  return started;
}

export const PENDING_TTL_MS = 5 * 60_000;
const TOKEN_LENGTH = 43;

export interface PendingSecondFactor {
  pending: true;
  token: string;
  expiresAt: Date;
}

/** Called by the password sign-in once the password is right, for an account that asks for a passkey after it (second-factor.ts). */
export async function startPendingSignIn(
  ports: { db: Queryable; clock: Clock },
  accountId: string,
  req: { organization_id?: string | undefined; mode?: Mode | undefined },
  client: { ip: string; requestId?: string | null },
): Promise<PendingSecondFactor> {
  const token = randomBase62(TOKEN_LENGTH);
  const now = ports.clock.now();
  const expiresAt = new Date(now + PENDING_TTL_MS);
  await insertPendingSignIn(ports.db, {
    tokenSha256: hashSecret(token), accountId, organizationId: req.organization_id ?? null, mode: req.mode ?? null, expiresAt, now: new Date(now),
  });
  // The installation's entry, as every step of a sign-in that has not chosen an organization yet.
  await recordAudit(ports.db, {
    actor: { type: 'system', id: 'sign-in' }, address: client.ip, requestId: client.requestId ?? null, organizationId: null,
    action: 'sign_in.second_factor_required', target: { type: 'account', id: accountId }, before: null, after: { method: 'password' },
  });
  return { pending: true, token, expiresAt };
}

const KEY_SHAPE = /^sk_(live|test)_[0-9A-Za-z]{20,200}$/;

/**
 * Exchanges an API key, once, for a dashboard session bound to it (docs/contract-addenda.md, "The dashboard never
 * stores an API key"): the browser then holds the session's HttpOnly cookie, never the key. The exchange passes the
 * sign-in brake as a password does (slowed, then locked per address; the failures are counted under the presented
 * key's digest in place of an email), and a key that does not authenticate is one 401 `invalid_api_key`, malformed,
 * unknown, revoked or of a removed member alike. The key's IP allowlist applies to the exchange as to its requests.
 */
export async function signInWithKey(
  ports: SignInPorts, apiKey: string, client: { ip: string; userAgent: string | null; requestId?: string | null },
): Promise<{ started: StartedSession; key: AuthenticatedKey }> {
  const secret = apiKey.trim();
  const counted = `api_key:${hashSecret(secret)}`;
  const refusal = (action: string) =>
    recordAudit(ports.db, {
      actor: { type: 'system', id: 'sign-in' }, address: client.ip, requestId: client.requestId ?? null, organizationId: null,
      // Never the presented string: it may be a real key with a typo, a secret all the same.
      action, target: { type: 'api_key', id: 'presented' }, before: null, after: { method: 'api_key' },
    });
  await applySignInBrake(ports, counted, client.ip, () => refusal('sign_in.locked'));
  const key = KEY_SHAPE.test(secret) ? await findKeyBySecret(ports.db, secret) : null;
  if (!key) {
    await ports.signIn.failed(counted, client.ip);
    await refusal('sign_in.failed');
    throw new ApiError('invalid_api_key', 'The API key is unknown or has been revoked.');
  }
  if (!ipAllowed(client.ip, key.ipAllowlist)) {
    throw new ApiError('ip_not_allowed', `Requests from ${client.ip} are not allowed for this API key.`);
  }
  await ports.signIn.succeeded(counted);
  const started = await startKeySession(ports.db, ports.timeouts, { key, ip: client.ip, userAgent: client.userAgent });
  const { principal } = key;
  // In the key's organization's chain, with the key as the actor: what the session does from here on is the key's.
  await recordAudit(ports.db, {
    actor: keyActor(principal), address: client.ip, requestId: client.requestId ?? null, mode: principal.mode,
    organizationId: principal.organizationId, action: 'sign_in.succeeded', target: { type: 'api_key', id: principal.keyId },
    before: null, after: { method: 'api_key', session: started.session.id },
  });
  return { started, key };
}
