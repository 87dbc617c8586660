import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import { newId, randomBase62 } from '../../ids.js';
import type { Mailer } from '../../mail.js';
import { findAccountByEmailKey, insertAccount } from '../../store/accounts.js';
import type { Db } from '../../store/db.js';
import { claimSignUp, insertSignUp, markSignUpVerified } from '../../store/sign-ups.js';
import type { SignInGuard } from '../../rate-limit.js';
import type { Plan } from '../access.js';
import { recordAudit, type AuditOrigin } from '../audit.js';
import { hashSecret } from '../api-keys.js';
import { insertOrganizationOwnedBy } from '../organizations.js';
import { assertEmail, assertPasswordAcceptable, emailKey, hashPassword } from './passwords.js';
import { startSession, type SessionTimeouts, type StartedSession } from './sessions.js';
import { applySignInBrake } from './sign-in.js';

/**
 * Self sign-up (docs/contract-addenda.md, "Self sign-up"), when the operator opened it (MMGEN_SIGNUP=on, which
 * needs SMTP). A person sends an email and a password; mmgen keeps them (the password as argon2id) under a random
 * token that only the mail to that email carries. Following the link creates the account and a new organization
 * the person owns (its wallet empty), and signs them in. The answer to a sign-up never says whether the email has
 * an account: when it has one, its owner is mailed a notice instead of a link, and the answer is the same.
 */
export interface SignUpPorts {
  db: Db;
  clock: Clock;
  mailer: Mailer;
  publicUrl: string;
  signIn: SignInGuard;
  slowAfter: number;
  timeouts: SessionTimeouts;
  plan: Plan;
  ttlS: number;
}

const TOKEN_LENGTH = 43;

export interface SignUpAccepted {
  object: 'sign_up';
  email: string;
  status: 'verification_sent';
  expires_at: string;
}

/** Where a sign-up's token is redeemed: the dashboard's page, with the token in the fragment (never in a server log). */
export function signUpUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/dashboard/sign-up#token=${token}`;
}

export async function requestSignUp(
  ports: SignUpPorts,
  req: { email: string; password: string },
  client: { ip: string; requestId?: string | null },
  log: { warn: (obj: object, msg: string) => void },
): Promise<SignUpAccepted> {
  const email = assertEmail(req.email);
  assertPasswordAcceptable(req.password);
  const key = emailKey(email);
  // The installation's entries (the operator's log): the email may be anyone's, and no organization exists yet.
  const entry = (action: string, after: Record<string, unknown> | null) =>
    recordAudit(ports.db, {
      actor: { type: 'system', id: 'sign-up' }, address: client.ip, requestId: client.requestId ?? null, organizationId: null,
      action, target: { type: 'email', id: email.slice(0, 320) }, before: null, after,
    });
  // Every sign-up is counted, as a failed sign-in is, per email (under its own name) and per address: the same
  // slowing and lock, so nobody mails one address without end, nor probes many from one address.
  const counted = `sign-up:${key}`;
  await applySignInBrake(ports, counted, client.ip, () => entry('sign_up.locked', null));
  await ports.signIn.failed(counted, client.ip);
  // Hashed whether or not the email has an account, so both answers cost the same.
  const passwordHash = await hashPassword(req.password);
  const now = ports.clock.now();
  const expiresAt = new Date(now + ports.ttlS * 1000);
  const existing = await findAccountByEmailKey(ports.db, key);
  let message: { subject: string; text: string };
  if (existing) {
    message = {
      subject: 'Someone tried to create an mmgen account with your email',
      text:
        `Someone (perhaps you) asked to create an account on ${ports.publicUrl} with ${email}, which already has one.\n\n` +
        `Nothing was changed. To sign in, open ${ports.publicUrl}/dashboard/ .\n` +
        'If it was not you, you can ignore this mail; nobody can use it to get into your account.\n',
    };
  } else {
    const token = randomBase62(TOKEN_LENGTH);
    await insertSignUp(ports.db, { id: newId('sgu'), email, emailKey: key, passwordHash, tokenSha256: hashSecret(token), expiresAt, now: new Date(now) });
    message = {
      subject: 'Confirm your email to create your mmgen account',
      text:
        `Someone (we hope you) asked to create an account on ${ports.publicUrl} with ${email}.\n\n` +
        `Open this link to confirm your email; your account and your organization are created then:\n\n${signUpUrl(ports.publicUrl, token)}\n\n` +
        `The link works once, until ${expiresAt.toISOString()}. If it was not you, ignore this mail: no account is created.\n`,
    };
  }
  await entry('sign_up.requested', { existing_account: existing !== null });
  try {
    await ports.mailer.send({ to: email, ...message });
  } catch (err) {
    // Either mail failing answers the same: the asker learns nothing about the email but that mail did not go out.
    log.warn({ err: err instanceof Error ? err.message : String(err) }, 'sign-up mail could not be sent');
    throw new ApiError('service_unavailable', 'The confirmation mail could not be sent. Try again later.');
  }
  return { object: 'sign_up', email, status: 'verification_sent', expires_at: expiresAt.toISOString() };
}

/** The organization's name: the email's local part, so the person recognizes it among others later. */
const organizationName = (email: string) => `${email.split('@')[0]!.slice(0, 80)}'s organization`;

/**
 * Following the link: verifies the email, creates the account (the password given at sign-up), a new organization
 * the person owns (the operator's sign-up plan, an empty wallet, no keys), and a session. The token works once;
 * an unknown, used or expired one is 410 `sign_up_invalid`; an email that got an account meanwhile (an invitation)
 * is 409 `email_taken`.
 */
export async function verifySignUp(
  ports: Pick<SignUpPorts, 'db' | 'clock' | 'timeouts' | 'plan'>,
  token: string,
  client: { ip: string; userAgent: string | null; requestId?: string | null },
): Promise<StartedSession & { organization_id: string; member_id: string }> {
  return ports.db.tx(async (q) => {
    const pending = await claimSignUp(q, hashSecret(token));
    if (!pending || pending.expires_at.getTime() <= ports.clock.now()) {
      throw new ApiError('sign_up_invalid', 'This sign-up link is unknown, used or expired. Sign up again.');
    }
    const account = (await findAccountByEmailKey(q, pending.email_key))
      ? null
      : await insertAccount(q, { id: newId('acc'), email: pending.email, emailKey: pending.email_key, name: null, passwordHash: pending.password_hash });
    if (!account) throw new ApiError('email_taken', `An account with ${pending.email} exists now: sign in instead.`, 'email');
    // The new owner is the actor: the link's token is their credential here, as an invitation's is.
    const originOf = (memberId: string): AuditOrigin => ({ actor: { type: 'member', id: memberId }, address: client.ip, requestId: client.requestId ?? null, mode: null });
    const created = await insertOrganizationOwnedBy(q, { name: organizationName(pending.email), plan: ports.plan, enterprise: false }, account.id, originOf);
    const entry = { ...originOf(created.member.id), organizationId: created.organization.id };
    await recordAudit(q, { ...entry, action: 'account.created', target: { type: 'account', id: account.id }, before: null, after: { via: 'sign_up', email: account.email } });
    await recordAudit(q, {
      ...entry, action: 'member.added', target: { type: 'member', id: created.member.id }, before: null, after: { role: 'owner', account_id: account.id, via: 'sign_up' },
    });
    await markSignUpVerified(q, pending.id, account.id);
    const started = await startSession(q, ports.timeouts, {
      accountId: account.id, member: { member_id: created.member.id, organization_id: created.organization.id }, method: 'sign_up', ip: client.ip, userAgent: client.userAgent,
    });
    return { ...started, organization_id: created.organization.id, member_id: created.member.id };
  });
}
