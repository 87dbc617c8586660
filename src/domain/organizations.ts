import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import { inTransaction, type Db, type Queryable } from '../store/db.js';
import type { Wakeup } from '../wakeup.js';
import { openWallet } from '../billing/credits.js';
import {
  insertOrganizationRow,
  insertUser,
  type OrganizationRow,
  selectOrganization,
  updateOrganizationBudget,
  updateOrganizationPaused,
  updateOrganizationPlan,
} from '../store/organizations.js';
import type { Plan } from './access.js';
import { insertApiKey } from './api-keys.js';
import { creditsToUsd, recordedTopUp, type Wallet, getWallet } from '../billing/credits.js';
import { recordAudit, type AuditOrigin } from './audit.js';
import { organizationMonthSpend } from '../store/spending.js';
import { insertMember } from '../store/accounts.js';

/**
 * Organization glossary
 * - organization: the tenant. It owns one wallet, its users and their keys.
 * - plan: free, pro, studio or team; sets rate limits and comparison width.
 * - enterprise: a flag that unlocks per-key IP allowlists.
 * - paused: set by the spending anomaly detector (or an owner); credit-consuming
 *   requests are refused and queued work is not started until an operator or
 *   an owner key unpauses.
 */
export interface PauseReason {
  /** anomaly: the spending anomaly detector; owner: an owner key's PATCH. */
  kind: 'anomaly' | 'owner';
  window_minutes?: number;
  spent_usd?: number;
  baseline_usd?: number;
}

export interface OrganizationView {
  id: string;
  object: 'organization';
  name: string;
  plan: Plan;
  enterprise: boolean;
  paused: boolean;
  paused_at: string | null;
  pause_reason: PauseReason | null;
  /** Contract §7: null = no budget. */
  monthly_budget_usd: number | null;
  budget_action: 'notify' | 'block';
  /** Live credits charged this calendar month (UTC) plus those held now, in dollars. */
  spent_usd: number;
  created_at: string;
}

async function toView(q: Queryable, r: OrganizationRow | undefined, id: string): Promise<OrganizationView> {
  if (!r) throw new ApiError('resource_not_found', `No such organization: '${id}'`, 'id');
  return {
    id: r.id, object: 'organization', name: r.name, plan: r.plan, enterprise: r.enterprise,
    paused: r.paused, paused_at: r.paused_at?.toISOString() ?? null, pause_reason: r.paused ? ((r.pause_reason as PauseReason | null) ?? { kind: 'owner' }) : null,
    monthly_budget_usd: r.monthly_budget_usd === null ? null : Number(r.monthly_budget_usd), budget_action: r.budget_action,
    spent_usd: creditsToUsd(await organizationMonthSpend(q, r.id)), created_at: r.created_at.toISOString(),
  };
}

export async function getOrganization(q: Queryable, id: string): Promise<OrganizationView> {
  return toView(q, await selectOrganization(q, id), id);
}

async function loadOrganization(q: Queryable, id: string): Promise<OrganizationRow> {
  const row = await selectOrganization(q, id);
  if (!row) throw new ApiError('resource_not_found', `No such organization: '${id}'`, 'id');
  return row;
}

const budgetOf = (r: OrganizationRow) => ({ monthly_budget_usd: r.monthly_budget_usd === null ? null : Number(r.monthly_budget_usd), budget_action: r.budget_action });
const pauseOf = (r: OrganizationRow) => ({ paused: r.paused, pause_reason: r.paused ? (r.pause_reason ?? { kind: 'owner' }) : null });
const planOf = (r: OrganizationRow) => ({ plan: r.plan, enterprise: r.enterprise });

/**
 * Sets the organization's monthly budget and what passing it does (contract §7); undefined fields stay as they are.
 * Recorded as `organization.budget_updated`, in the same transaction.
 */
export async function setBudget(
  q: Queryable,
  id: string,
  b: { monthly_budget_usd?: number | null | undefined; budget_action?: 'notify' | 'block' | undefined },
  origin: AuditOrigin,
): Promise<OrganizationView> {
  return inTransaction(q, async (t) => {
    const before = await loadOrganization(t, id);
    const after = await updateOrganizationBudget(t, id, { monthlyBudgetUsd: b.monthly_budget_usd, budgetAction: b.budget_action });
    if (after) await recordAudit(t, { ...origin, organizationId: id, action: 'organization.budget_updated', target: { type: 'organization', id }, before: budgetOf(before), after: budgetOf(after) });
    return toView(t, after, id);
  });
}

export interface CreatedOrganization {
  organization: { id: string; name: string; plan: Plan; enterprise: boolean };
  user: { id: string; role: 'owner' };
  keys: { live: string; test: string };
  wallet: Wallet;
}

/** An organization with its owner, its wallet (with `credits` topped up) and one live and one test owner key. */
export async function createOrganization(
  db: Db,
  input: { name: string; plan: Plan; enterprise: boolean; credits: number },
  origin: AuditOrigin,
): Promise<CreatedOrganization> {
  return db.tx((q) => insertOrganization(q, input, origin));
}

/** createOrganization inside a transaction the caller holds; recorded as `organization.created` (and its initial credits as `wallet.topped_up`). */
export async function insertOrganization(
  q: Queryable,
  input: { name: string; plan: Plan; enterprise: boolean; credits: number },
  origin: AuditOrigin,
): Promise<CreatedOrganization> {
  const orgId = newId('org');
  const userId = newId('usr');
  await insertOrganizationRow(q, { id: orgId, name: input.name, plan: input.plan, enterprise: input.enterprise });
  await insertUser(q, { id: userId, organizationId: orgId, role: 'owner', name: 'owner' });
  const wallet = await openOrganization(q, orgId, userId, input, origin);
  const keyInput = { organizationId: orgId, userId, role: 'owner' as const, scopes: [], ipAllowlist: [], monthlyBudgetUsd: null };
  const live = await insertApiKey(q, { ...keyInput, name: 'Owner key (live)', mode: 'live' });
  const test = await insertApiKey(q, { ...keyInput, name: 'Owner key (test)', mode: 'test' });
  return {
    organization: { id: orgId, name: input.name, plan: input.plan, enterprise: input.enterprise },
    user: { id: userId, role: 'owner' },
    keys: { live: live.secret, test: test.secret },
    wallet,
  };
}

/**
 * An organization whose owner is a person from the start (self sign-up): the same organization, wallet and
 * `organization.created` entry as insertOrganization, but no owner keys, whose secrets nobody would ever see (the
 * owner signs in and makes keys). `originOf` is given the new owner membership, the actor of the entries.
 */
export async function insertOrganizationOwnedBy(
  q: Queryable,
  input: { name: string; plan: Plan; enterprise: boolean },
  accountId: string,
  originOf: (ownerMemberId: string) => AuditOrigin,
): Promise<{ organization: { id: string; name: string; plan: Plan; enterprise: boolean }; member: { id: string; role: 'owner' } }> {
  const orgId = newId('org');
  const memberId = newId('usr');
  await insertOrganizationRow(q, { id: orgId, name: input.name, plan: input.plan, enterprise: input.enterprise });
  await insertMember(q, { id: memberId, organizationId: orgId, accountId, role: 'owner', name: null });
  await openOrganization(q, orgId, memberId, { ...input, credits: 0 }, originOf(memberId));
  return { organization: { id: orgId, ...input }, member: { id: memberId, role: 'owner' } };
}

/** What every new organization gets: its wallet, its `organization.created` entry, and its initial credits if any. */
async function openOrganization(
  q: Queryable, orgId: string, ownerId: string, input: { name: string; plan: Plan; enterprise: boolean; credits: number }, origin: AuditOrigin,
): Promise<Wallet> {
  await openWallet(q, orgId);
  await recordAudit(q, {
    ...origin, organizationId: orgId, action: 'organization.created', target: { type: 'organization', id: orgId }, before: null,
    after: { name: input.name, plan: input.plan, enterprise: input.enterprise, owner_user_id: ownerId },
  });
  return input.credits > 0
    ? recordedTopUp(q, { organizationId: orgId, credits: input.credits, reference: `org-create:${orgId}`, note: 'initial credits' }, origin)
    : getWallet(q, orgId);
}

/** The operator's change of plan (and enterprise flag), recorded as `organization.plan_changed`. */
export async function setPlan(q: Queryable, id: string, plan: Plan, enterprise: boolean | undefined, origin: AuditOrigin): Promise<OrganizationView> {
  return inTransaction(q, async (t) => {
    const before = await loadOrganization(t, id);
    const after = await updateOrganizationPlan(t, id, plan, enterprise ?? null);
    if (after) await recordAudit(t, { ...origin, organizationId: id, action: 'organization.plan_changed', target: { type: 'organization', id }, before: planOf(before), after: planOf(after) });
    return toView(t, after, id);
  });
}

/** One statement, then (on unpause) a nudge for the worker to claim the jobs that waited. */
export interface PausePorts {
  db: Queryable;
  jobsAvailable: Wakeup;
}

/**
 * Pauses (an owner's pause) or unpauses. An unpause wakes this node's worker,
 * so the queued work that waited starts now; other nodes find it at their next
 * poll.
 */
export async function setPaused(deps: PausePorts, id: string, paused: boolean, origin: AuditOrigin): Promise<OrganizationView> {
  const view = await inTransaction(deps.db, async (t) => {
    const before = await loadOrganization(t, id);
    const after = await updateOrganizationPaused(t, id, paused, paused ? { kind: 'owner' } : null);
    if (after) {
      await recordAudit(t, {
        ...origin, organizationId: id, action: paused ? 'organization.paused' : 'organization.unpaused', target: { type: 'organization', id }, before: pauseOf(before), after: pauseOf(after),
      });
    }
    return toView(t, after, id);
  });
  if (!paused) deps.jobsAvailable.notify();
  return view;
}

export { countOrganizations } from '../store/organizations.js';
