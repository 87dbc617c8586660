import type * as SDK from '@mmgen/sdk';
import { Api, type ApiError } from './client.js';

/**
 * People (issue 31): a signed-in person's session, members, invitations and single sign-on, as the SDK's types
 * (generated from /v1/openapi.json), and the few calls made before anyone is signed in.
 */
export type SessionView = SDK.ResponseBody<'getSession'>;
export type SignedIn = SDK.ResponseBody<'signIn', 201>;
export type Member = SDK.Member;
export type Invitation = SDK.Invitation;
export type CreatedInvitation = SDK.CreatedInvitation;
export type SsoSettings = SDK.ResponseBody<'getSsoSettings'>;
export type SsoSettingsParams = SDK.RequestBody<'updateSsoSettings'>;
export type SessionListItem = SDK.ResponseBody<'listSessions'>['data'][number];

/**
 * The session's CSRF token, from the readable cookie the server set beside the HttpOnly session cookie (named with
 * the __Host- prefix when served over https). Its presence is also how a reload knows a session may be live.
 */
export function readCsrfCookie(): string | null {
  for (const part of document.cookie.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (name === 'mmgen_csrf' || name === '__Host-mmgen_csrf') {
      const value = decodeURIComponent(part.slice(eq + 1).trim());
      if (value) return value;
    }
  }
  return null;
}

/**
 * For the calls that start a session (sign-in, accepting an invitation, SSO): the browser sends and keeps the
 * cookies; the CSRF token of a session already open is sent along (accepting an invitation while signed in needs it).
 */
export function publicApi(onRejected?: (err: ApiError) => void): Api {
  return new Api({ kind: 'session', csrfToken: readCsrfCookie() ?? '', mode: 'live' }, onRejected);
}

/**
 * Exchanges a pasted API key, once, for a dashboard session that acts as the key (POST /v1/session/key): from then on
 * the browser holds only the HttpOnly session cookie and the CSRF token, and the key is dropped from memory.
 */
export function signInWithKey(apiKey: string): Promise<SignedIn> {
  return publicApi().post<SignedIn>('/v1/session/key', { api_key: apiKey });
}

export function signInWithPassword(email: string, password: string): Promise<SignedIn> {
  return publicApi().post<SignedIn>('/v1/session', { email, password });
}

/** The issuer's authorization URL for the organization's single sign-on; the browser goes there next. */
export async function startSso(organizationId: string): Promise<string> {
  return (await publicApi().post<{ authorization_url: string }>('/v1/sso/start', { organization_id: organizationId })).authorization_url;
}

export interface AcceptInvitationParams {
  token: string;
  email?: string;
  password?: string;
  name?: string;
}

export function acceptInvitation(params: AcceptInvitationParams): Promise<SignedIn> {
  return publicApi().post<SignedIn>('/v1/invitations/accept', params);
}

/** The signed-in person's own settings (PATCH /v1/account): a passkey after the password. */
export type AccountView = SDK.ResponseBody<'updateAccount'>;

export function updateAccount(api: Api, params: SDK.RequestBody<'updateAccount'>): Promise<AccountView> {
  return api.patch<AccountView>('/v1/account', params);
}

/** Whether this installation takes sign-ups (the operator's MMGEN_SIGNUP); the sign-in page offers one only then. */
export async function signUpOpen(): Promise<boolean> {
  return (await publicApi().get<SDK.ResponseBody<'getSignUpSettings'>>('/v1/sign-up')).open;
}

export function signUp(email: string, password: string): Promise<SDK.ResponseBody<'signUp', 202>> {
  return publicApi().post('/v1/sign-up', { email, password });
}

/** Following the mailed link: creates the account and its organization, and signs in. */
export function verifySignUp(token: string): Promise<SignedIn> {
  return publicApi().post<SignedIn>('/v1/sign-up/verify', { token });
}
