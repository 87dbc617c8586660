import { ApiError } from '../../errors.js';
import { newId, randomBase62 } from '../../ids.js';
import type { Mailer } from '../../mail.js';
import {
  attachAccountToMember,
  findAccount,
  findAccountByEmailKey,
  findMembership,
  insertAccount,
  insertMember,
  listMembers,
} from '../../store/accounts.js';
import type { Db, Queryable } from '../../store/db.js';
import {
  claimInvitationByToken,
  findPendingInvitation,
  insertInvitation,
  listPendingInvitations,
  markInvitationAccepted,
  revokeInvitationRow,
  type InvitationRow,
} from '../../store/invitations.js';
import { roleAllows, type Principal, type Role } from '../access.js';
import { recordAudit, type AuditOrigin } from '../audit.js';
import { hashSecret } from '../api-keys.js';
import { assertEmail, assertPasswordAcceptable, emailKey, hashPassword } from './passwords.js';
import { startSession, type SessionTimeouts, type StartedSession } from './sessions.js';

/**
 * Invitation glossary
 * - invitation: an owner or admin asks a person (by email) to join at a role no higher than their own. The link
 *   carries a secret token (only its SHA-256 is kept); it is mailed when SMTP is configured and always returned
 *   to the inviter, to copy. Accepting it once makes the person a member (creating their account when they have
 *   none) and signs them in.
 * - the first-start owner link: an invitation mmgen makes for the default organization's owner membership (the
 *   one its first keys belong to), for any email; accepting it gives that membership a person.
 */
export interface InvitationView {
  id: string;
  object: 'invitation';
  email: string | null;
  role: Role;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
}

export interface CreatedInvitation extends InvitationView {
  /** The link to accept it; returned only here. */
  url: string;
  /** sent: mailed; not_configured: no SMTP server (copy the link); failed: the SMTP server refused it (copy the link). */
  mail: 'sent' | 'not_configured' | 'failed';
}

export interface InvitationPorts {
  db: Db;
  mailer: Mailer | null;
  publicUrl: string;
  ttlS: number;
}

const TOKEN_LENGTH = 43;

const toView = (i: InvitationRow): InvitationView => ({
  id: i.id, object: 'invitation', email: i.email, role: i.role, invited_by: i.invited_by,
  created_at: i.created_at.toISOString(), expires_at: i.expires_at.toISOString(),
});

/** Where an invitation's token is redeemed: the dashboard's page, with the token in the fragment (never sent to a server log). */
export function invitationUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/dashboard/accept-invitation#token=${token}`;
}

export async function createInvitation(
  ports: InvitationPorts, caller: Principal, req: { email: string; role: Role },
  log: { warn: (obj: object, msg: string) => void },
  origin: AuditOrigin,
): Promise<CreatedInvitation> {
  const email = assertEmail(req.email);
  if (!roleAllows(caller.role, req.role)) {
    throw new ApiError('insufficient_role', `Your role '${caller.role}' cannot invite at the role '${req.role}'.`, 'role');
  }
  const members = await listMembers(ports.db, caller.organizationId);
  if (members.some((m) => m.email !== null && emailKey(m.email) === emailKey(email))) {
    throw new ApiError('email_taken', `${email} is already a member of this organization.`, 'email');
  }
  const token = randomBase62(TOKEN_LENGTH);
  const row = await ports.db.tx(async (q) => {
    const inserted = await insertInvitation(q, {
      id: newId('inv'), organizationId: caller.organizationId, email, role: req.role, tokenSha256: hashSecret(token),
      invitedBy: caller.userId, memberId: null, ttlS: ports.ttlS,
    });
    await recordAudit(q, { ...origin, organizationId: caller.organizationId, action: 'invitation.created', target: { type: 'invitation', id: inserted.id }, before: null, after: toView(inserted) });
    return inserted;
  });
  const url = invitationUrl(ports.publicUrl, token);
  let mail: CreatedInvitation['mail'] = 'not_configured';
  if (ports.mailer) {
    try {
      await ports.mailer.send({
        to: email,
        subject: 'You are invited to an organization on mmgen',
        text: [
          `You are invited to join an organization on mmgen as ${req.role}.`,
          '',
          `Accept the invitation here (the link works once, until ${row.expires_at.toISOString()}):`,
          url,
          '',
          'If you did not expect this, ignore this mail.',
        ].join('\n'),
      });
      mail = 'sent';
    } catch (err) {
      log.warn({ err: (err as Error).message, invitation: row.id }, 'the invitation mail could not be sent');
      mail = 'failed';
    }
  }
  return { ...toView(row), url, mail };
}

export async function listInvitations(q: Queryable, caller: Principal): Promise<{ object: 'list'; data: InvitationView[]; has_more: false }> {
  return { object: 'list', data: (await listPendingInvitations(q, caller.organizationId)).map(toView), has_more: false };
}

export async function revokeInvitation(db: Db, caller: Principal, id: string, origin: AuditOrigin): Promise<{ id: string; object: 'invitation'; deleted: true }> {
  return db.tx(async (q) => {
  const row = await findPendingInvitation(q, caller.organizationId, id);
  if (!row || row.invited_by === null) throw new ApiError('resource_not_found', `No such invitation: '${id}'`, 'id');
  if (!roleAllows(caller.role, row.role)) throw new ApiError('insufficient_role', `Your role '${caller.role}' cannot revoke an invitation at the role '${row.role}'.`);
  await revokeInvitationRow(q, id);
  await recordAudit(q, { ...origin, organizationId: caller.organizationId, action: 'invitation.revoked', target: { type: 'invitation', id }, before: toView(row), after: null });
  return { id, object: 'invitation', deleted: true };
  });
}

export interface AcceptRequest {
  token: string;
  email?: string | undefined;
  password?: string | undefined;
  name?: string | undefined;
}

const invalid = () => new ApiError('invitation_invalid', 'This invitation link is unknown, used, revoked or expired. Ask for a new one.');

/**
 * Accepts an invitation, once. A signed-in person (`signedIn`) joins with their account; anyone else gets a new
 * account with the invitation's email (or, for the owner link, the one they give) and a password. An email that
 * already has an account must sign in first: a link never opens someone else's account.
 */
export async function acceptInvitation(
  ports: { db: Db; timeouts: SessionTimeouts },
  req: AcceptRequest,
  signedIn: { accountId: string } | null,
  client: { ip: string; userAgent: string | null; requestId: string | null },
): Promise<StartedSession & { organization_id: string; member_id: string }> {
  // Hashed before the transaction: argon2 takes tens of milliseconds that no lock should wait on.
  const passwordHash = signedIn === null && req.password !== undefined ? (assertPasswordAcceptable(req.password), await hashPassword(req.password)) : null;
  return ports.db.tx(async (q) => {
    const inv = await claimInvitationByToken(q, hashSecret(req.token));
    if (!inv) throw invalid();
    let accountId: string;
    let created = false;
    if (signedIn) {
      const account = (await findAccount(q, signedIn.accountId))!;
      if (inv.email !== null && emailKey(account.email) !== emailKey(inv.email)) {
        throw new ApiError('invitation_invalid', `This invitation is for ${inv.email}; you are signed in as ${account.email}.`);
      }
      accountId = account.id;
    } else {
      const email = assertEmail(inv.email ?? req.email ?? '', 'email');
      if (passwordHash === null) throw new ApiError('parameter_missing', 'Choose a password: password is required to create your account.', 'password');
      if (await findAccountByEmailKey(q, emailKey(email))) {
        throw new ApiError('email_taken', `An account with ${email} exists: sign in, then accept the invitation.`, 'email');
      }
      const account = await insertAccount(q, { id: newId('acc'), email, emailKey: emailKey(email), name: req.name ?? null, passwordHash });
      if (!account) throw new ApiError('email_taken', `An account with ${email} exists: sign in, then accept the invitation.`, 'email');
      accountId = account.id;
      created = true;
    }
    if (await findMembership(q, accountId, inv.organization_id)) {
      throw new ApiError('email_taken', 'You are already a member of this organization.');
    }
    let memberId: string;
    if (inv.member_id !== null) {
      if (!(await attachAccountToMember(q, inv.member_id, accountId))) throw invalid();
      memberId = inv.member_id;
    } else {
      memberId = newId('usr');
      await insertMember(q, { id: memberId, organizationId: inv.organization_id, accountId, role: inv.role, name: req.name ?? null });
    }
    await markInvitationAccepted(q, inv.id, memberId);
    // The new member is the actor: the invitation's token is their credential here. Entries of a person are read in both modes.
    const origin: AuditOrigin = { actor: { type: 'member', id: memberId }, address: client.ip, requestId: client.requestId, mode: null };
    const entry = { ...origin, organizationId: inv.organization_id };
    if (created) await recordAudit(q, { ...entry, action: 'account.created', target: { type: 'account', id: accountId }, before: null, after: { via: 'invitation' } });
    await recordAudit(q, { ...entry, action: 'invitation.accepted', target: { type: 'invitation', id: inv.id }, before: null, after: { member_id: memberId } });
    await recordAudit(q, {
      ...entry, action: 'member.added', target: { type: 'member', id: memberId }, before: null,
      after: { role: inv.member_id !== null ? 'owner' : inv.role, account_id: accountId, via: inv.member_id !== null ? 'owner_link' : 'invitation' },
    });
    const started = await startSession(q, ports.timeouts, {
      accountId, member: { member_id: memberId, organization_id: inv.organization_id }, method: 'invitation', ip: client.ip, userAgent: client.userAgent,
    });
    return { ...started, organization_id: inv.organization_id, member_id: memberId };
  });
}

/** The first-start owner link: an invitation for the organization's owner membership, made once by mmgen itself. */
export async function createOwnerLink(q: Queryable, publicUrl: string, organizationId: string, ownerMemberId: string, ttlS: number): Promise<string> {
  const token = randomBase62(TOKEN_LENGTH);
  await insertInvitation(q, {
    id: newId('inv'), organizationId, email: null, role: 'owner', tokenSha256: hashSecret(token), invitedBy: null, memberId: ownerMemberId, ttlS,
  });
  return invitationUrl(publicUrl, token);
}
