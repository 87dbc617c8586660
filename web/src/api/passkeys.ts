import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import type * as SDK from '@mmgen/sdk';
import type { Api } from './client.js';
import { publicApi, type SignedIn } from './people.js';

/**
 * Passkeys (WebAuthn) as the dashboard drives them: each ceremony is the server's options, the browser's
 * authenticator, then the server's check. The /v1/passkeys operations are session-only: `api` is the signed-in
 * person's session (the HttpOnly cookie and the CSRF token), never an API key.
 */
export type Passkey = SDK.ResponseBody<'listPasskeys'>['data'][number];
type CreationOptions = Parameters<typeof startRegistration>[0]['optionsJSON'];
type RequestOptions = Parameters<typeof startAuthentication>[0]['optionsJSON'];

export async function listPasskeys(api: Api, signal?: AbortSignal): Promise<Passkey[]> {
  return (await api.get<SDK.ResponseBody<'listPasskeys'>>('/v1/passkeys', signal ? { signal } : {})).data;
}

/** The registration ceremony: the authenticator makes a key pair for this site, the server keeps its public half. */
export async function addPasskey(api: Api, name?: string): Promise<Passkey> {
  const options = await api.post<CreationOptions>('/v1/passkeys/options');
  const credential = await startRegistration({ optionsJSON: options });
  return api.post<Passkey>('/v1/passkeys', { credential, ...(name ? { name } : {}) });
}

export function removePasskey(api: Api, id: string): Promise<unknown> {
  return api.del(`/v1/passkeys/${encodeURIComponent(id)}`);
}

/**
 * The sign-in ceremony, before anyone is signed in: the browser offers the passkeys it holds for this site, and the
 * server answers as a password sign-in does (the session cookies and the CSRF token).
 */
export async function signInWithPasskey(organizationId?: string): Promise<SignedIn> {
  const options = await publicApi().post<RequestOptions>('/v1/session/passkey/options');
  const credential = await startAuthentication({ optionsJSON: options });
  return publicApi().post<SignedIn>('/v1/session/passkey', { credential, ...(organizationId ? { organization_id: organizationId } : {}) });
}

/**
 * After a password that answered `second_factor_required`: the browser holds the pending sign-in in an HttpOnly
 * cookie; the server's options list the person's passkeys, and their answer completes the sign-in.
 */
export async function finishSecondFactor(): Promise<SignedIn> {
  const options = await publicApi().post<RequestOptions>('/v1/session/second-factor/options');
  const credential = await startAuthentication({ optionsJSON: options });
  return publicApi().post<SignedIn>('/v1/session/second-factor', { credential });
}
