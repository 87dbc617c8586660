import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import { newId } from '../../ids.js';
import { findAccount, findAccountForUpdate } from '../../store/accounts.js';
import type { Db, Queryable } from '../../store/db.js';
import {
  advancePasskeyCounter,
  deleteAccountPasskey,
  findPasskeyByCredentialId,
  insertChallenge,
  insertPasskey,
  listAccountPasskeys,
  takeChallenge,
  type ChallengePurpose,
  type PasskeyRow,
} from '../../store/passkeys.js';
import type { SignInGuard } from '../../rate-limit.js';
import type { Mode, Principal } from '../access.js';
import { recordAudit, type AuditOrigin } from '../audit.js';
import { emailKey } from './passwords.js';
import { requireSession, type SessionTimeouts, type StartedSession } from './sessions.js';
import { applySignInBrake, startSignedInSession } from './sign-in.js';

/**
 * Passkey glossary (WebAuthn, through @simplewebauthn/server)
 * - relying party: this installation. Its id (RP ID) is the host name of the configured public URL
 *   (MMGEN_PUBLIC_URL) and the only origin accepted is that URL's origin: a passkey made for mmgen works nowhere
 *   else, and an assertion made on another site is refused.
 * - challenge: random bytes mmgen hands out with the options of one ceremony (registration or sign-in), kept
 *   server-side for CHALLENGE_TTL_MS and taken (deleted) by the first answer that names it, so each works once.
 * - counter: the authenticator's signature counter; a sign-in must show a larger one than the last recorded (the
 *   library's check, then a conditional update against a concurrent sign-in), else the passkey may be cloned.
 * A passkey is the person's (the account's), like a password: it signs them in to any of their organizations.
 */
export interface PasskeyPorts {
  db: Db;
  clock: Clock;
  publicUrl: string;
}

export interface PasskeySignInPorts extends PasskeyPorts {
  signIn: SignInGuard;
  slowAfter: number;
  timeouts: SessionTimeouts;
}

export const CHALLENGE_TTL_MS = 5 * 60_000;
const RP_NAME = 'mmgen';

export function relyingParty(publicUrl: string): { rpID: string; origin: string } {
  const url = new URL(publicUrl);
  return { rpID: url.hostname, origin: url.origin };
}

export interface PasskeyView {
  id: string;
  object: 'passkey';
  name: string;
  device_type: 'singleDevice' | 'multiDevice';
  backed_up: boolean;
  transports: string[];
  created_at: string;
  last_used_at: string | null;
}

const view = (p: PasskeyRow): PasskeyView => ({
  id: p.id, object: 'passkey', name: p.name, device_type: p.device_type, backed_up: p.backed_up, transports: p.transports,
  created_at: p.created_at.toISOString(), last_used_at: p.last_used_at?.toISOString() ?? null,
});

/** What the audit log keeps of a passkey: never its public key or credential id (the redaction list drops `credential…` anyway). */
const auditView = (p: PasskeyRow) => ({ name: p.name, account_id: p.account_id, aaguid: p.aaguid, device_type: p.device_type, backed_up: p.backed_up });

/** The challenge a browser's answer signed, read from its clientDataJSON (the library checks the rest). */
function challengeOf(clientDataJSON: string): string | null {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    const challenge = typeof parsed === 'object' && parsed !== null ? (parsed as { challenge?: unknown }).challenge : undefined;
    return typeof challenge === 'string' && challenge.length > 0 && challenge.length <= 200 ? challenge : null;
  } catch {
    return null;
  }
}

export type ChallengeProblem = 'missing' | 'unknown' | 'expired' | 'other_account';

export const CHALLENGE_MESSAGES: Record<ChallengeProblem, string> = {
  missing: 'The response carries no readable challenge (response.clientDataJSON).',
  unknown: 'The challenge is unknown or was already used. Ask for new options and try again.',
  expired: 'The challenge expired. Ask for new options and try again.',
  other_account: 'The challenge is unknown or was already used. Ask for new options and try again.',
};

/** Takes the challenge the answer names: null when it is this ceremony's, live, and (for registration) the account's. */
export async function takeOwnChallenge(
  ports: PasskeyPorts, clientDataJSON: string, purpose: ChallengePurpose, accountId: string | null,
): Promise<{ challenge: string } | { problem: ChallengeProblem }> {
  const challenge = challengeOf(clientDataJSON);
  if (challenge === null) return { problem: 'missing' };
  const taken = await takeChallenge(ports.db, challenge, purpose);
  if (!taken) return { problem: 'unknown' };
  if (taken.account_id !== accountId) return { problem: 'other_account' };
  if (taken.expires_at.getTime() <= ports.clock.now()) return { problem: 'expired' };
  return { challenge };
}

export async function storeChallenge(ports: PasskeyPorts, challenge: string, purpose: ChallengePurpose, accountId: string | null): Promise<void> {
  const now = ports.clock.now();
  await insertChallenge(ports.db, { challenge, purpose, accountId, expiresAt: new Date(now + CHALLENGE_TTL_MS), now: new Date(now) });
}

export const problemText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Registration, step 1: options for navigator.credentials.create(), for the signed-in person. */
export async function startPasskeyRegistration(ports: PasskeyPorts, caller: Principal): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const { accountId } = requireSession(caller);
  const account = (await findAccount(ports.db, accountId))!;
  const existing = await listAccountPasskeys(ports.db, accountId);
  const options = await generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: relyingParty(ports.publicUrl).rpID,
    userName: account.email,
    userDisplayName: account.name ?? account.email,
    userID: new TextEncoder().encode(account.id),
    timeout: CHALLENGE_TTL_MS,
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports })),
    // A discoverable credential signs in without typing an email; verified by the person (PIN, biometrics), as a
    // passkey may be the only credential.
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  await storeChallenge(ports, options.challenge, 'registration', accountId);
  return options;
}

/** Registration, step 2: verifies the authenticator's answer and keeps the passkey. */
export async function finishPasskeyRegistration(
  ports: PasskeyPorts, caller: Principal, req: { credential: RegistrationResponseJSON; name?: string | undefined }, origin: AuditOrigin,
): Promise<PasskeyView> {
  const { accountId } = requireSession(caller);
  const refuse = (message: string) => new ApiError('parameter_invalid', `The passkey was not added: ${message}`, 'credential');
  const taken = await takeOwnChallenge(ports, req.credential.response.clientDataJSON, 'registration', accountId);
  if ('problem' in taken) throw refuse(CHALLENGE_MESSAGES[taken.problem]);
  const rp = relyingParty(ports.publicUrl);
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verified = await verifyRegistrationResponse({
      response: req.credential,
      expectedChallenge: taken.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      requireUserVerification: true,
    });
  } catch (err) {
    throw refuse(problemText(err));
  }
  if (!verified.verified) throw refuse('the attestation did not verify.');
  const info = verified.registrationInfo;
  return ports.db.tx(async (q) => {
    const count = (await listAccountPasskeys(q, accountId)).length;
    const row = await insertPasskey(q, {
      id: newId('pky'),
      accountId,
      credentialId: info.credential.id,
      publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
      counter: info.credential.counter,
      transports: info.credential.transports ?? req.credential.response.transports ?? [],
      deviceType: info.credentialDeviceType,
      backedUp: info.credentialBackedUp,
      aaguid: info.aaguid,
      name: req.name ?? `Passkey ${count + 1}`,
    });
    if (!row) throw refuse('this authenticator\'s credential is already registered.');
    await recordAudit(q, { ...origin, organizationId: caller.organizationId, action: 'passkey.added', target: { type: 'passkey', id: row.id }, before: null, after: auditView(row) });
    return view(row);
  });
}

export async function listOwnPasskeys(q: Queryable, caller: Principal): Promise<{ object: 'list'; data: PasskeyView[]; has_more: false }> {
  const { accountId } = requireSession(caller);
  return { object: 'list', data: (await listAccountPasskeys(q, accountId)).map(view), has_more: false };
}

/** Deletes one of the person's passkeys; another person's is 404, as one that never existed. */
export async function removeOwnPasskey(db: Db, caller: Principal, id: string, origin: AuditOrigin): Promise<{ id: string; object: 'passkey'; deleted: true }> {
  const { accountId } = requireSession(caller);
  return db.tx(async (q) => {
    // Locks the account's row, so a concurrent removal of the other passkey, or the setting turned on, waits for this one.
    const account = await findAccountForUpdate(q, accountId);
    const row = await deleteAccountPasskey(q, accountId, id);
    if (!row) throw new ApiError('resource_not_found', `No such passkey: '${id}'`, 'id');
    if (account?.passkey_after_password && (await listAccountPasskeys(q, accountId)).length === 0) {
      throw new ApiError(
        'passkey_required',
        'This is your last passkey, and your account asks for a passkey after your password: turn that off first (PATCH /v1/account), then remove it.',
      );
    }
    await recordAudit(q, { ...origin, organizationId: caller.organizationId, action: 'passkey.removed', target: { type: 'passkey', id: row.id }, before: auditView(row), after: null });
    return { id, object: 'passkey', deleted: true };
  });
}

/** Sign-in, step 1: options for navigator.credentials.get(); the browser offers the person's passkeys for this site. */
export async function startPasskeySignIn(
  ports: PasskeyPorts & { signIn: SignInGuard; slowAfter: number }, client: { ip: string },
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  // A locked address gets no challenge either: each costs a row until it expires.
  await applySignInBrake(ports, `passkey-options:${client.ip}`, client.ip, async () => {});
  const options = await generateAuthenticationOptions({ rpID: relyingParty(ports.publicUrl).rpID, userVerification: 'required', timeout: CHALLENGE_TTL_MS });
  await storeChallenge(ports, options.challenge, 'sign_in', null);
  return options;
}

/**
 * An assertion checked against the passkey it names and the challenge it answers, and the passkey's signature
 * counter moved past it (a counter that does not move means a cloned authenticator): null when all holds, else why
 * not, for the caller's refusal. Shared by a passkey sign-in and the passkey after a password.
 */
export async function verifyAssertion(
  ports: Pick<PasskeyPorts, 'db' | 'publicUrl'>, credential: AuthenticationResponseJSON, challenge: string, passkey: PasskeyRow,
): Promise<string | null> {
  const rp = relyingParty(ports.publicUrl);
  let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verified = await verifyAuthenticationResponse({
      response: credential,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      credential: { id: passkey.credential_id, publicKey: Buffer.from(passkey.public_key, 'base64url'), counter: passkey.counter, transports: passkey.transports },
      requireUserVerification: true,
    });
  } catch (err) {
    return problemText(err);
  }
  if (!verified.verified) return 'the signature did not verify.';
  const info = verified.authenticationInfo;
  if (!(await advancePasskeyCounter(ports.db, passkey.id, info.newCounter, info.credentialBackedUp))) {
    return `the signature counter (${info.newCounter}) did not move past the last one seen: the passkey may have been cloned.`;
  }
  return null;
}

export interface PasskeySignInRequest {
  credential: AuthenticationResponseJSON;
  organization_id?: string | undefined;
  mode?: Mode | undefined;
}

/**
 * Sign-in, step 2: the assertion is verified against the passkey it names, and the person signs in as with a password
 * (the same session, cookies, single sign-on rule and `sign_in.succeeded` entry). Every refusal is one 401
 * `invalid_credentials` whose message says why, counted by the same brake as passwords: against the person's email
 * when the passkey is known (so passkey and password failures add up), else against the credential id, and always
 * against the address.
 */
export async function signInWithPasskey(
  ports: PasskeySignInPorts, req: PasskeySignInRequest, client: { ip: string; userAgent: string | null; requestId?: string | null },
): Promise<StartedSession> {
  const credentialId = req.credential.id;
  const passkey = await findPasskeyByCredentialId(ports.db, credentialId);
  const key = passkey ? emailKey(passkey.email) : `passkey:${credentialId}`;
  // The installation's entries (the operator's log), as a refused password sign-in's: the credential may be no one's.
  const refusal = (action: string, reason: string | null) =>
    recordAudit(ports.db, {
      actor: { type: 'system', id: 'sign-in' }, address: client.ip, requestId: client.requestId ?? null, organizationId: null,
      action, target: { type: 'passkey', id: passkey?.id ?? credentialId.slice(0, 200) }, before: null, after: { method: 'passkey', reason },
    });
  await applySignInBrake(ports, key, client.ip, () => refusal('sign_in.locked', null));
  const refuse = async (reason: string): Promise<never> => {
    await ports.signIn.failed(key, client.ip);
    await refusal('sign_in.failed', reason);
    throw new ApiError('invalid_credentials', `The passkey sign-in was refused: ${reason}`);
  };
  const taken = await takeOwnChallenge(ports, req.credential.response.clientDataJSON, 'sign_in', null);
  if ('problem' in taken) return refuse(CHALLENGE_MESSAGES[taken.problem]);
  if (!passkey) return refuse('this passkey is not registered here (it may have been removed).');
  const problem = await verifyAssertion(ports, req.credential, taken.challenge, passkey);
  if (problem) return refuse(problem);
  await ports.signIn.succeeded(key);
  return startSignedInSession(ports, passkey.account_id, req, client, 'passkey');
}
