import { creditsToUsd } from '../../billing/credits.js';
import { ApiError } from '../../errors.js';
import { findMember, listMembers, lockOwners, markMemberRemoved, updateMemberBudget, updateMemberRole, type MemberRow } from '../../store/accounts.js';
import { revokeMemberKeys } from '../../store/api-keys.js';
import type { Db, Queryable } from '../../store/db.js';
import { membersMonthSpend } from '../../store/spending.js';
import { roleAllows, type Principal, type Role } from '../access.js';
import { recordAudit, type AuditOrigin } from '../audit.js';

/**
 * Member glossary
 * - member: a person's place in one organization, with a role (owner, admin, developer, viewer). The keys a member
 *   makes belong to them and act with the lesser of the key's role and the member's: lowering a member's role
 *   lowers their keys', removing a member revokes their keys (both from the next request, on every node, since
 *   the member's role and removal are part of every key's fingerprint).
 * - the last owner: an organization always keeps one; it can be neither demoted nor removed.
 * - a member's budget: a monthly budget over the live spend of all of the member's keys, their dashboard session
 *   keys included (what they generate signed in), with a key's budget actions: `notify` (threshold events) or
 *   `block` (billing/budgets.ts). Whether it blocks is part of every one of their keys' fingerprints.
 */
export interface MemberSettingsView {
  id: string;
  object: 'member';
  email: string | null;
  name: string | null;
  role: Role;
  monthly_budget_usd: number | null;
  budget_action: 'notify' | 'block';
  created_at: string;
}

export interface MemberView extends MemberSettingsView {
  /** This calendar month's live spend of all of the member's keys (charged + held), in dollars: the server's, never the dashboard's sum. */
  spent_usd: number;
  last_signed_in_at: string | null;
}

/** What a member's audit entries compare: their settings, not their spend or last sign-in, which change without anyone's act. */
function settingsOf(m: MemberRow): MemberSettingsView {
  return {
    id: m.id, object: 'member', email: m.email, name: m.account_name ?? m.name, role: m.role,
    monthly_budget_usd: m.monthly_budget_usd === null ? null : Number(m.monthly_budget_usd), budget_action: m.budget_action,
    created_at: m.created_at.toISOString(),
  };
}

export function toMemberView(m: MemberRow, spentCredits = 0): MemberView {
  return { ...settingsOf(m), spent_usd: creditsToUsd(spentCredits), last_signed_in_at: m.last_signed_in_at?.toISOString() ?? null };
}

async function withSpend(q: Queryable, rows: MemberRow[]): Promise<MemberView[]> {
  const spent = rows.length === 0 ? new Map<string, number>() : await membersMonthSpend(q, rows[0]!.organization_id, rows.map((m) => m.id));
  return rows.map((m) => toMemberView(m, spent.get(m.id) ?? 0));
}

export async function listOrganizationMembers(q: Queryable, caller: Principal): Promise<{ object: 'list'; data: MemberView[]; has_more: false }> {
  return { object: 'list', data: await withSpend(q, await listMembers(q, caller.organizationId)), has_more: false };
}

export async function getMember(q: Queryable, caller: Principal, id: string): Promise<MemberView> {
  const m = await findMember(q, caller.organizationId, id);
  if (!m) throw notFound(id);
  return (await withSpend(q, [m]))[0]!;
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

export interface MemberUpdate {
  role?: Role | undefined;
  /** Dollars in whole cents (the route's schema), or null for none; left out: unchanged. */
  monthly_budget_usd?: number | null | undefined;
  budget_action?: 'notify' | 'block' | undefined;
}

/**
 * Changes a member's role and/or budget, in one transaction, each recorded (`member.role_changed`,
 * `member.budget_updated`). A lower role applies to their keys from their next request, on every node; so does a
 * budget that starts or stops blocking (it is part of their keys' fingerprints), while a blocking budget's amount is
 * read by the check itself.
 */
export async function updateMember(db: Db, caller: Principal, id: string, change: MemberUpdate, origin: AuditOrigin): Promise<MemberView> {
  return db.tx(async (q) => {
    // Only a role change can leave the organization without an owner: only it takes the owners' lock.
    const owners = change.role !== undefined ? await lockOwners(q, caller.organizationId) : null;
    const target = await findMember(q, caller.organizationId, id, true);
    if (!target) throw notFound(id);
    assertCanManage(caller, target, change.role);
    let current = target;
    const audit = (action: string, before: MemberRow, after: MemberRow, pick: (v: MemberSettingsView) => unknown) =>
      recordAudit(q, { ...origin, organizationId: caller.organizationId, action, target: { type: 'member', id }, before: pick(settingsOf(before)), after: pick(settingsOf(after)) });
    if (change.role !== undefined && owners) {
      if (change.role !== 'owner') assertNotLastOwner(owners, target);
      await updateMemberRole(q, id, change.role);
      const after = { ...current, role: change.role };
      await audit('member.role_changed', current, after, (v) => v);
      current = after;
    }
    if (change.monthly_budget_usd !== undefined || change.budget_action !== undefined) {
      // Clearing the budget (null) keeps the action, as for keys and the organization.
      const budget = change.monthly_budget_usd !== undefined ? change.monthly_budget_usd : current.monthly_budget_usd;
      const action = change.budget_action ?? current.budget_action;
      await updateMemberBudget(q, id, budget, action);
      const after = { ...current, monthly_budget_usd: budget === null ? null : String(budget), budget_action: action };
      await audit('member.budget_updated', current, after, (v) => ({ monthly_budget_usd: v.monthly_budget_usd, budget_action: v.budget_action }));
      current = after;
    }
    return (await withSpend(q, [current]))[0]!;
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
    await recordAudit(q, { ...origin, organizationId: caller.organizationId, action: 'member.removed', target: { type: 'member', id }, before: settingsOf(target), after: { removed: true, revoked_keys: revoked } });
    return { id, object: 'member', deleted: true, revoked_keys: revoked };
  });
}
