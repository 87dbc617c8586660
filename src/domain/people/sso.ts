import * as oidc from 'openid-client';
import { ApiError } from '../../errors.js';
import { classifyAddress } from '../../files/safe-fetch.js';
import { newId } from '../../ids.js';
import { findAccountByEmailKey, findMember, findMembership, insertAccount, insertMember } from '../../store/accounts.js';
import type { Db, Queryable } from '../../store/db.js';
import {
  deleteSsoSettings,
  findIdentity,
  findSsoSettings,
  insertIdentity,
  insertSsoFlow,
  takeSsoFlow,
  upsertSsoSettings,
  type SsoSettingsRow,
} from '../../store/sso.js';
import { roleAllows, type Principal, type Role } from '../access.js';
import { recordAudit, type AuditOrigin } from '../audit.js';
import { emailKey } from './passwords.js';
import { startSession, type SessionTimeouts, type StartedSession } from './sessions.js';

/**
 * Single sign-on glossary
 * - connection: an organization's OpenID Connect issuer and client (any issuer that publishes discovery: Okta,
 *   Entra ID, Google, Keycloak…), which email domains join on their first sign-in and at which role, and whether
 *   everyone but one break-glass owner must sign in through it.
 * - flow: one sign-in through the issuer, authorization code with PKCE (S256), state and nonce, through
 *   openid-client; what the callback must find is kept server-side under the state, used once, for ten minutes.
 */
export interface SsoPorts {
  db: Db;
  publicUrl: string;
  /** An issuer on a private or loopback address, or over plain http, is refused unless the operator allows it. */
  allowPrivateNetwork: boolean;
  timeouts: SessionTimeouts;
}

export interface SsoSettingsView {
  object: 'sso_settings';
  issuer: string;
  client_id: string;
  has_client_secret: boolean;
  auto_join_domains: string[];
  auto_join_role: Role;
  require_sso: boolean;
  break_glass_member_id: string | null;
  /** Register this at the issuer as the client's redirect URI. */
  redirect_uri: string;
  updated_at: string;
}

export const redirectUri = (publicUrl: string) => `${publicUrl}/v1/sso/callback`;

const view = (s: SsoSettingsRow, publicUrl: string): SsoSettingsView => ({
  object: 'sso_settings', issuer: s.issuer, client_id: s.client_id, has_client_secret: s.client_secret !== null,
  auto_join_domains: s.auto_join_domains, auto_join_role: s.auto_join_role, require_sso: s.require_sso,
  break_glass_member_id: s.break_glass_user, redirect_uri: redirectUri(publicUrl), updated_at: s.updated_at.toISOString(),
});

const notConfigured = () => new ApiError('resource_not_found', 'This organization has no single sign-on configured.');

export async function getSsoSettings(q: Queryable, caller: Principal, publicUrl: string): Promise<SsoSettingsView> {
  const s = await findSsoSettings(q, caller.organizationId);
  if (!s) throw notConfigured();
  return view(s, publicUrl);
}

function assertIssuerAllowed(issuer: string, allowPrivateNetwork: boolean): URL {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new ApiError('parameter_invalid', 'issuer must be a URL.', 'issuer');
  }
  if (allowPrivateNetwork) {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ApiError('parameter_invalid', 'issuer must be an https URL.', 'issuer');
    return url;
  }
  if (url.protocol !== 'https:') throw new ApiError('parameter_invalid', 'issuer must be an https URL.', 'issuer');
  // An organization's owner names the issuer, and mmgen's server fetches it: no address inside the deployment.
  // (A name that resolves to one is not caught here; see docs/contract-addenda.md, "Single sign-on".)
  const literal = classifyAddress(url.hostname);
  if (literal.range !== 'invalid' && !literal.public) {
    throw new ApiError('parameter_invalid', 'issuer must not be a private or loopback address.', 'issuer');
  }
  return url;
}

// Discovery documents by issuer and client, for a few minutes: one sign-in needs two, and issuers rotate rarely.
// Shared by the installations of a process (tests run many): the document is the issuer's, the same whoever asks;
// whether an installation may ask it at all (its private-network setting) is checked on every call, before the cache.
const discovered = new Map<string, { config: Promise<oidc.Configuration>; at: number }>();
const DISCOVERY_TTL_MS = 5 * 60_000;

function configurationOf(s: { issuer: string; client_id: string; client_secret: string | null }, allowPrivateNetwork: boolean): Promise<oidc.Configuration> {
  const url = assertIssuerAllowed(s.issuer, allowPrivateNetwork);
  const cacheKey = `${s.issuer}\n${s.client_id}\n${s.client_secret ?? ''}`;
  const hit = discovered.get(cacheKey);
  if (hit && Date.now() - hit.at < DISCOVERY_TTL_MS) return hit.config;
  // openid-client checks the ID token's claims but, for one from the token endpoint, not its signature unless told
  // to (OIDC Core 3.1.3.7 lets TLS stand in for it): told here, so every sign-in verifies it against the issuer's
  // JWKS (fetched and cached by the library). TLS alone is not enough: an http issuer on a private network has none,
  // and a proxy that ends TLS could rewrite the answer.
  const execute = url.protocol === 'http:' ? [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks] : [oidc.enableNonRepudiationChecks];
  const config = oidc.discovery(url, s.client_id, s.client_secret ?? undefined, s.client_secret === null ? oidc.None() : undefined, { execute, timeout: 10 });
  discovered.set(cacheKey, { config, at: Date.now() });
  config.catch(() => discovered.delete(cacheKey));
  return config;
}

export interface SsoSettingsRequest {
  issuer: string;
  client_id: string;
  client_secret?: string | null | undefined;
  auto_join_domains?: string[] | undefined;
  auto_join_role?: Role | undefined;
  require_sso?: boolean | undefined;
  break_glass_member_id?: string | null | undefined;
}

/** Sets the organization's connection; the issuer is discovered first, so a wrong one is refused here, not at sign-in. */
export async function putSsoSettings(ports: SsoPorts, caller: Principal, req: SsoSettingsRequest, origin: AuditOrigin): Promise<SsoSettingsView> {
  const before = await findSsoSettings(ports.db, caller.organizationId);
  const clientSecret = req.client_secret === undefined ? (before?.client_secret ?? null) : req.client_secret;
  try {
    await configurationOf({ issuer: req.issuer, client_id: req.client_id, client_secret: clientSecret }, ports.allowPrivateNetwork);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError('parameter_invalid', `The issuer's discovery document could not be read: ${(err as Error).message}`, 'issuer');
  }
  const breakGlass = req.break_glass_member_id === undefined ? (before?.break_glass_user ?? null) : req.break_glass_member_id;
  const requireSso = req.require_sso ?? before?.require_sso ?? false;
  if (breakGlass !== null) {
    const m = await findMember(ports.db, caller.organizationId, breakGlass);
    if (!m || m.role !== 'owner') throw new ApiError('parameter_invalid', 'The break-glass member must be an owner of this organization.', 'break_glass_member_id');
  }
  if (requireSso && breakGlass === null) {
    throw new ApiError('parameter_missing', 'Requiring single sign-on needs a break-glass owner who may still sign in with a password.', 'break_glass_member_id');
  }
  const domains = [...new Set((req.auto_join_domains ?? before?.auto_join_domains ?? []).map((d) => d.trim().toLowerCase()))];
  const role = req.auto_join_role ?? before?.auto_join_role ?? 'viewer';
  if (!roleAllows(caller.role, role) || role === 'owner') throw new ApiError('parameter_invalid', 'auto_join_role must be admin, developer or viewer.', 'auto_join_role');
  // The views carry has_client_secret, never the secret itself.
  return ports.db.tx(async (q) => {
    const saved = await upsertSsoSettings(q, {
      organization_id: caller.organizationId, issuer: req.issuer, client_id: req.client_id, client_secret: clientSecret,
      auto_join_domains: domains, auto_join_role: role, require_sso: requireSso, break_glass_user: breakGlass,
    });
    const after = view(saved, ports.publicUrl);
    await recordAudit(q, {
      ...origin, organizationId: caller.organizationId, action: 'sso.settings_changed', target: { type: 'sso_settings', id: caller.organizationId },
      before: before ? view(before, ports.publicUrl) : null, after,
    });
    return after;
  });
}

export async function removeSsoSettings(db: Db, caller: Principal, origin: AuditOrigin): Promise<{ object: 'sso_settings'; deleted: true }> {
  return db.tx(async (q) => {
    const before = await findSsoSettings(q, caller.organizationId);
    if (!(await deleteSsoSettings(q, caller.organizationId)) || !before) throw notConfigured();
    await recordAudit(q, {
      ...origin, organizationId: caller.organizationId, action: 'sso.settings_removed', target: { type: 'sso_settings', id: caller.organizationId },
      before: view(before, ''), after: null,
    });
    return { object: 'sso_settings', deleted: true };
  });
}

/** The issuer's authorization URL for one sign-in to the organization (PKCE S256, state, nonce kept server-side). */
export async function startSsoSignIn(ports: SsoPorts, organizationId: string): Promise<{ authorization_url: string }> {
  const s = await findSsoSettings(ports.db, organizationId);
  if (!s) throw new ApiError('resource_not_found', `No single sign-on for organization '${organizationId}'.`, 'organization_id');
  const config = await configurationOf(s, ports.allowPrivateNetwork);
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  await insertSsoFlow(ports.db, { state, organizationId, codeVerifier, nonce });
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri(ports.publicUrl),
    scope: 'openid email profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { authorization_url: url.href };
}

const refused = (why: string) => new ApiError('invalid_credentials', `Single sign-on failed: ${why}`);
/** openid-client's message is generic ("invalid response encountered"); the check that failed is its cause's. */
function reasonOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : null;
  return cause && cause !== message ? `${message}: ${cause}` : message;
}
const notInvited = (why: string) => new ApiError('insufficient_role', `Single sign-on cannot let you in: ${why}. Ask an owner or admin of the organization for an invitation.`);

/**
 * The issuer's redirect back: the code is exchanged (with the PKCE verifier, checking state and nonce), the ID
 * token's subject finds the person (or their verified email does, or a new account is made), and they are
 * signed in as a member, joining at the connection's role when their email's domain joins automatically.
 */
export async function finishSsoSignIn(
  ports: SsoPorts, currentUrl: URL, client: { ip: string; userAgent: string | null; requestId?: string | null },
): Promise<StartedSession> {
  const state = currentUrl.searchParams.get('state');
  const flow = state ? await takeSsoFlow(ports.db, state) : null;
  if (!flow) throw refused('the sign-in expired or was already used; start again.');
  const s = await findSsoSettings(ports.db, flow.organization_id);
  if (!s) throw refused('the organization no longer has single sign-on.');
  const config = await configurationOf(s, ports.allowPrivateNetwork);
  let claims: (oidc.IDToken & Record<string, unknown>) | undefined;
  try {
    const tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
      pkceCodeVerifier: flow.code_verifier, expectedState: state!, expectedNonce: flow.nonce, idTokenExpected: true,
    });
    claims = tokens.claims();
    // Conforming issuers put scope claims (email, name) in the UserInfo answer rather than the ID token.
    if (claims && typeof claims.email !== 'string') {
      const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
      claims = { ...info, ...claims, email: info.email, email_verified: info.email_verified, name: info.name };
    }
  } catch (err) {
    throw refused(`the identity provider's answer was refused (${reasonOf(err)}).`);
  }
  if (!claims) throw refused('no ID token.');
  const email = typeof claims.email === 'string' ? claims.email : null;
  const verified = claims.email_verified === true;
  return ports.db.tx(async (q) => {
    let accountId = await findIdentity(q, s.issuer, claims.sub);
    let newAccount = false;
    let joined = false;
    if (!accountId) {
      // Without a verified email nobody can be found or join automatically: the same answer as any non-member's.
      if (!email || !verified) throw notInvited('the identity provider did not confirm your email address, and only a confirmed one finds your account or joins automatically');
      // A verified email at the organization's own issuer finds the person's existing account.
      const existing = await findAccountByEmailKey(q, emailKey(email));
      accountId = existing?.id ?? (await insertAccount(q, {
        id: newId('acc'), email, emailKey: emailKey(email), name: typeof claims.name === 'string' ? claims.name : null, passwordHash: null,
      }))!.id;
      newAccount = !existing;
      await insertIdentity(q, s.issuer, claims.sub, accountId);
    }
    let member = await findMembership(q, accountId, s.organization_id);
    if (!member) {
      const domain = email?.split('@')[1]?.toLowerCase();
      if (!verified || !domain || !s.auto_join_domains.includes(domain)) throw notInvited('you are not a member of this organization');
      const id = newId('usr');
      await insertMember(q, { id, organizationId: s.organization_id, accountId, role: s.auto_join_role, name: typeof claims.name === 'string' ? claims.name : null });
      joined = true;
      member = (await findMembership(q, accountId, s.organization_id))!;
    }
    const started = await startSession(q, ports.timeouts, { accountId, member, method: 'sso', ip: client.ip, userAgent: client.userAgent });
    const entry = { actor: { type: 'member', id: member.member_id } as const, address: client.ip, requestId: client.requestId ?? null, mode: null, organizationId: s.organization_id };
    if (newAccount) await recordAudit(q, { ...entry, action: 'account.created', target: { type: 'account', id: accountId }, before: null, after: { via: 'sso', issuer: s.issuer } });
    if (joined) await recordAudit(q, { ...entry, action: 'member.added', target: { type: 'member', id: member.member_id }, before: null, after: { role: s.auto_join_role, account_id: accountId, via: 'sso' } });
    await recordAudit(q, { ...entry, action: 'sign_in.succeeded', target: { type: 'account', id: accountId }, before: null, after: { method: 'sso', issuer: s.issuer } });
    return started;
  });
}
