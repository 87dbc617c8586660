import { ApiError } from '../../errors.js';
import { findMember, listMembers, lockOwners, markMemberRemoved, updateMemberRole, type MemberRow } from '../../store/accounts.js';
import { revokeMemberKeys } from '../../store/api-keys.js';
import type { Db, Queryable } from '../../store/db.js';
import { roleAllows, type Principal, type Role } from '../access.js';
import { recordAudit, type AuditOrigin } from '../audit.js';

/**
 * Member glossary
 * - member: a person's place in one organization, with a role (owner, admin, developer, viewer). The keys a member
 *   makes belong to them and act with the lesser of the key's role and the member's: lowering a member's role
 *   lowers their keys', removing a member revokes their keys (both from the next request, on every node, since
 *   the member's role and removal are part of every key's fingerprint).
 * - the last owner: an organization always keeps one; it can be neither demoted nor removed.
 */
export interface MemberView {
  id: string;
  object: 'member';
  email: string | null;
  name: string | null;
  role: Role;
  created_at: string;
  last_signed_in_at: string | null;
}

export function toMemberView(m: MemberRow): MemberView {
  return { id: m.id, object: 'member', email: m.email, name: m.account_name ?? m.name, role: m.role, created_at: m.created_at.toISOString(), last_signed_in_at: m.last_signed_in_at?.toISOString() ?? null };
}

export async function listOrganizationMembers(q: Queryable, caller: Principal): Promise<{ object: 'list'; data: MemberView[]; has_more: false }> {
  return { object: 'list', data: (await listMembers(q, caller.organizationId)).map(toMemberView), has_more: false };
}

export async function getMember(q: Queryable, caller: Principal, id: string): Promise<MemberView> {
  const m = await findMember(q, caller.organizationId, id);
  if (!m) throw notFound(id);
  return toMemberView(m);
}

const notFound = (id: string) => new ApiError('resource_not_found', `No such member: '${id}'`, 'id');

/** A caller manages a member only up to its own role, and grants at most its own role. */
function assertCanManage(caller: Principal, target: MemberRow, newRole?: Role): void {
  if (!roleAllows(caller.role, target.role)) {
    throw new ApiError('insufficient_role', `Your role '${caller.role}' cannot manage a member with role '${target.role}'.`);
  }
  if (newRole !== undefined && !roleAllows(caller.role, newRole)) {
    throw new ApiError('insufficient_role', `Your role '${caller.role}' cannot grant the role '${newRole}'.`, 'role');
  }
}

function assertNotLastOwner(owners: string[], target: MemberRow): void {
  if (target.role === 'owner' && owners.length === 1 && owners[0] === target.id) {
    throw new ApiError('last_owner', 'This is the organization\'s last owner: make another member owner first.');
  }
}

export interface MemberChange {
  before: MemberView;
  after: MemberView;
}

/** Changes a member's role; their keys act with the new role (if lower) from their next request, on every node. */
export async function changeMemberRole(db: Db, caller: Principal, id: string, role: Role, origin: AuditOrigin): Promise<MemberChange> {
  return db.tx(async (q) => {
    const owners = await lockOwners(q, caller.organizationId);
    const target = await findMember(q, caller.organizationId, id, true);
    if (!target) throw notFound(id);
    assertCanManage(caller, target, role);
    if (role !== 'owner') assertNotLastOwner(owners, target);
    await updateMemberRole(q, id, role);
    const change = { before: toMemberView(target), after: toMemberView({ ...target, role }) };
    await recordAudit(q, { ...origin, organizationId: caller.organizationId, action: 'member.role_changed', target: { type: 'member', id }, before: change.before, after: change.after });
    return change;
  });
}

/** Removes a member: their keys are revoked and their sessions in this organization end, at once, on every node. */
export async function removeMember(db: Db, caller: Principal, id: string, origin: AuditOrigin): Promise<{ id: string; object: 'member'; deleted: true; revoked_keys: number }> {
  return db.tx(async (q) => {
    const owners = await lockOwners(q, caller.organizationId);
    const target = await findMember(q, caller.organizationId, id, true);
    if (!target) throw notFound(id);
    assertCanManage(caller, target);
    assertNotLastOwner(owners, target);
    await markMemberRemoved(q, id);
    const revoked = await revokeMemberKeys(q, id);
    await recordAudit(q, { ...origin, organizationId: caller.organizationId, action: 'member.removed', target: { type: 'member', id }, before: toMemberView(target), after: { removed: true, revoked_keys: revoked } });
    return { id, object: 'member', deleted: true, revoked_keys: revoked };
  });
}
