import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import type { Db, Queryable } from '../store/db.js';
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
import { creditsToUsd, topUp, type Wallet, getWallet } from '../billing/credits.js';
import { organizationMonthSpend } from '../store/spending.js';

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

/** Sets the organization's monthly budget and what passing it does (contract §7); undefined fields stay as they are. */
export async function setBudget(
  q: Queryable,
  id: string,
  b: { monthly_budget_usd?: number | null | undefined; budget_action?: 'notify' | 'block' | undefined },
): Promise<OrganizationView> {
  return toView(q, await updateOrganizationBudget(q, id, { monthlyBudgetUsd: b.monthly_budget_usd, budgetAction: b.budget_action }), id);
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
): Promise<CreatedOrganization> {
  return db.tx((q) => insertOrganization(q, input));
}

/** createOrganization inside a transaction the caller holds. */
export async function insertOrganization(
  q: Queryable,
  input: { name: string; plan: Plan; enterprise: boolean; credits: number },
): Promise<CreatedOrganization> {
  const orgId = newId('org');
  const userId = newId('usr');
  await insertOrganizationRow(q, { id: orgId, name: input.name, plan: input.plan, enterprise: input.enterprise });
  await insertUser(q, { id: userId, organizationId: orgId, role: 'owner', name: 'owner' });
  await openWallet(q, orgId);
  const keyInput = { organizationId: orgId, userId, role: 'owner' as const, scopes: [], ipAllowlist: [], monthlyBudgetUsd: null };
  const live = await insertApiKey(q, { ...keyInput, name: 'Owner key (live)', mode: 'live' });
  const test = await insertApiKey(q, { ...keyInput, name: 'Owner key (test)', mode: 'test' });
  const wallet = input.credits > 0
    ? await topUp(q, { organizationId: orgId, credits: input.credits, reference: `org-create:${orgId}`, note: 'initial credits' })
    : await getWallet(q, orgId);
  return {
    organization: { id: orgId, name: input.name, plan: input.plan, enterprise: input.enterprise },
    user: { id: userId, role: 'owner' },
    keys: { live: live.secret, test: test.secret },
    wallet,
  };
}

export async function setPlan(q: Queryable, id: string, plan: Plan, enterprise?: boolean): Promise<OrganizationView> {
  return toView(q, await updateOrganizationPlan(q, id, plan, enterprise ?? null), id);
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
export async function setPaused(deps: PausePorts, id: string, paused: boolean): Promise<OrganizationView> {
  const view = await toView(deps.db, await updateOrganizationPaused(deps.db, id, paused, paused ? { kind: 'owner' } : null), id);
  if (!paused) deps.jobsAvailable.notify();
  return view;
}

export { countOrganizations } from '../store/organizations.js';
