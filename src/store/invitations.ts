import type { Role } from '../domain/access.js';
import type { Queryable } from './db.js';

export interface InvitationRow {
  id: string;
  seq: number;
  organization_id: string;
  email: string | null;
  role: Role;
  invited_by: string | null;
  member_id: string | null;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  accepted_by: string | null;
  revoked_at: Date | null;
}

export async function insertInvitation(
  q: Queryable,
  i: { id: string; organizationId: string; email: string | null; role: Role; tokenSha256: string; invitedBy: string | null; memberId: string | null; ttlS: number },
): Promise<InvitationRow> {
  const r = await q.query<InvitationRow>(
    `INSERT INTO invitations (id, organization_id, email, role, token_sha256, invited_by, member_id, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8)) RETURNING *`,
    [i.id, i.organizationId, i.email, i.role, i.tokenSha256, i.invitedBy, i.memberId, i.ttlS],
  );
  return r.rows[0]!;
}

/** Invitations of the organization not yet accepted, revoked or expired, newest first. */
export async function listPendingInvitations(q: Queryable, organizationId: string): Promise<InvitationRow[]> {
  const r = await q.query<InvitationRow>(
    `SELECT * FROM invitations WHERE organization_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()
     AND invited_by IS NOT NULL ORDER BY seq DESC LIMIT 500`,
    [organizationId],
  );
  return r.rows;
}

export async function findPendingInvitation(q: Queryable, organizationId: string, id: string): Promise<InvitationRow | null> {
  const r = await q.query<InvitationRow>(
    `SELECT * FROM invitations WHERE id = $1 AND organization_id = $2 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()`,
    [id, organizationId],
  );
  return r.rows[0] ?? null;
}

export async function revokeInvitationRow(q: Queryable, id: string): Promise<void> {
  await q.query('UPDATE invitations SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL AND accepted_at IS NULL', [id]);
}

/** The usable invitation with this token hash, locked so that it is accepted once. */
export async function claimInvitationByToken(q: Queryable, tokenSha256: string): Promise<InvitationRow | null> {
  const r = await q.query<InvitationRow>(
    `SELECT * FROM invitations WHERE token_sha256 = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now() FOR UPDATE`,
    [tokenSha256],
  );
  return r.rows[0] ?? null;
}

export async function markInvitationAccepted(q: Queryable, id: string, memberId: string): Promise<void> {
  await q.query('UPDATE invitations SET accepted_at = now(), accepted_by = $2 WHERE id = $1', [id, memberId]);
}

/** The first-start owner link is the organization's only invitation with a member and no inviter. */
export async function revokeOwnerLinks(q: Queryable, organizationId: string): Promise<void> {
  await q.query(
    'UPDATE invitations SET revoked_at = now() WHERE organization_id = $1 AND invited_by IS NULL AND accepted_at IS NULL AND revoked_at IS NULL',
    [organizationId],
  );
}
