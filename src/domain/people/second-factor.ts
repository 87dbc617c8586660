import {
  generateAuthenticationOptions,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import { ApiError } from '../../errors.js';
import { findAccount, findAccountForUpdate, setPasskeyAfterPassword } from '../../store/accounts.js';
import type { Db } from '../../store/db.js';
import { findPasskeyByCredentialId, listAccountPasskeys } from '../../store/passkeys.js';
import { findPendingSignIn, takePendingSignIn, type PendingSignInRow } from '../../store/second-factor.js';
import type { Principal } from '../access.js';
import { recordAudit, type AuditOrigin } from '../audit.js';
import { hashSecret } from '../api-keys.js';
import {
  CHALLENGE_MESSAGES,
  CHALLENGE_TTL_MS,
  relyingParty,
  storeChallenge,
  takeOwnChallenge,
  verifyAssertion,
  type PasskeySignInPorts,
} from './passkeys.js';
import { emailKey } from './passwords.js';
import { requireSession, type StartedSession } from './sessions.js';
import { applySignInBrake, startSignedInSession } from './sign-in.js';

/**
 * A passkey after the password (docs/contract-addenda.md, "Passkeys (WebAuthn)"). A person with a password and a
 * passkey may ask for both: their right password then starts no session but a *pending sign-in* (sign-in.ts
 * startPendingSignIn), a random token the browser holds in an HttpOnly cookie scoped to /v1/session/second-factor,
 * usable once, for PENDING_TTL_MS. An
 * assertion of one of that person's passkeys, sent with it, completes the sign-in. Single sign-on is not affected
 * (the identity provider is the factor), nor a passkey sign-in on its own (it already is the stronger credential).
 */
const STALE = 'The password step is unknown, used or expired: sign in with your password again.';

async function livePending(ports: Pick<PasskeySignInPorts, 'clock'>, row: PendingSignInRow | null): Promise<PendingSignInRow | null> {
  return row && row.expires_at.getTime() > ports.clock.now() ? row : null;
}

/** Step 2: options for navigator.credentials.get(), listing the person's passkeys (the pending sign-in is not used up). */
export async function startSecondFactor(
  ports: PasskeySignInPorts, pendingToken: string | undefined, client: { ip: string },
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const pending = pendingToken === undefined ? null : await livePending(ports, await findPendingSignIn(ports.db, hashSecret(pendingToken)));
  if (!pending) throw new ApiError('invalid_credentials', STALE);
  const account = (await findAccount(ports.db, pending.account_id))!;
  await applySignInBrake(ports, emailKey(account.email), client.ip, async () => {});
  const passkeys = await listAccountPasskeys(ports.db, account.id);
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(ports.publicUrl).rpID,
    userVerification: 'required',
    timeout: CHALLENGE_TTL_MS,
    allowCredentials: passkeys.map((p) => ({ id: p.credential_id, transports: p.transports })),
  });
  await storeChallenge(ports, options.challenge, 'second_factor', account.id);
  return options;
}

/**
 * Step 3: the assertion completes the pending sign-in. The pending token is taken (deleted) first, so it works once
 * whatever the outcome; a refusal (no or a stale token, another person's passkey, a bad signature, a counter that
 * did not move) is 401 `invalid_credentials` with the reason, counted against the person's email and the address
 * by the same brake as passwords and passkeys. Only a good assertion clears the email's count.
 */
export async function finishSecondFactor(
  ports: PasskeySignInPorts,
  pendingToken: string | undefined,
  req: { credential: AuthenticationResponseJSON },
  client: { ip: string; userAgent: string | null; requestId?: string | null },
): Promise<StartedSession> {
  const pending = pendingToken === undefined ? null : await livePending(ports, await takePendingSignIn(ports.db, hashSecret(pendingToken)));
  if (!pending) {
    // Without a live pending sign-in nobody's password was proven: nothing to count against but the address.
    await ports.signIn.failed(`second-factor:${client.ip}`, client.ip);
    throw new ApiError('invalid_credentials', STALE);
  }
  const account = (await findAccount(ports.db, pending.account_id))!;
  const key = emailKey(account.email);
  const refusal = (action: string, reason: string | null) =>
    recordAudit(ports.db, {
      actor: { type: 'system', id: 'sign-in' }, address: client.ip, requestId: client.requestId ?? null, organizationId: null,
      action, target: { type: 'account', id: account.id }, before: null, after: { method: 'password_passkey', reason },
    });
  await applySignInBrake(ports, key, client.ip, () => refusal('sign_in.locked', null));
  const refuse = async (reason: string): Promise<never> => {
    await ports.signIn.failed(key, client.ip);
    await refusal('sign_in.failed', reason);
    throw new ApiError('invalid_credentials', `The passkey after your password was refused: ${reason} Sign in with your password again.`);
  };
  const taken = await takeOwnChallenge(ports, req.credential.response.clientDataJSON, 'second_factor', account.id);
  if ('problem' in taken) return refuse(CHALLENGE_MESSAGES[taken.problem]);
  const passkey = await findPasskeyByCredentialId(ports.db, req.credential.id);
  if (!passkey || passkey.account_id !== account.id) return refuse('this is not one of your passkeys.');
  const problem = await verifyAssertion(ports, req.credential, taken.challenge, passkey);
  if (problem) return refuse(problem);
  await ports.signIn.succeeded(key);
  return startSignedInSession(
    ports, account.id, { organization_id: pending.organization_id ?? undefined, mode: pending.mode ?? undefined }, client, 'password_passkey',
  );
}

export interface AccountView {
  id: string;
  object: 'account';
  email: string;
  name: string | null;
  has_password: boolean;
  passkey_after_password: boolean;
}

/**
 * The person's own setting: a passkey after the password. Turning it on needs a password and at least one passkey
 * (409 `passkey_required`); the person's last passkey cannot be removed while it is on. Recorded as
 * `account.updated` with before and after, in the organization the session acts in.
 */
export async function updateOwnAccount(db: Db, caller: Principal, req: { passkey_after_password?: boolean | undefined }, origin: AuditOrigin): Promise<AccountView> {
  const { accountId } = requireSession(caller);
  return db.tx(async (q) => {
    const account = (await findAccountForUpdate(q, accountId))!;
    const on = req.passkey_after_password;
    if (on !== undefined && on !== account.passkey_after_password) {
      if (on && account.password_hash === null) {
        throw new ApiError('passkey_required', 'Your account has no password: a passkey after the password needs one (you sign in with a passkey or single sign-on already).', 'passkey_after_password');
      }
      if (on && (await listAccountPasskeys(q, accountId)).length === 0) {
        throw new ApiError('passkey_required', 'Add a passkey first (POST /v1/passkeys/options, then POST /v1/passkeys): it is what you will sign in with after your password.', 'passkey_after_password');
      }
      await setPasskeyAfterPassword(q, accountId, on);
      await recordAudit(q, {
        ...origin, organizationId: caller.organizationId, action: 'account.updated', target: { type: 'account', id: accountId },
        before: { passkey_after_password: account.passkey_after_password }, after: { passkey_after_password: on },
      });
      account.passkey_after_password = on;
    }
    return {
      id: account.id, object: 'account', email: account.email, name: account.name,
      has_password: account.password_hash !== null, passkey_after_password: account.passkey_after_password,
    };
  });
}
