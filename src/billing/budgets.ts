import { Decimal } from 'decimal.js';
import type { Principal } from '../domain/access.js';
import { ApiError } from '../errors.js';
import type { Db, Queryable } from '../store/db.js';
import { lockOrganizationForBudget, selectBudgetState } from '../store/spending.js';
import { USD_PER_CREDIT } from './credits.js';

/**
 * Blocking budgets (contract §7). A month's spend is the live credits charged
 * this calendar month (UTC) plus those held now (store/spending.ts); a
 * reservation that would take the key's, its member's (all of the member's
 * keys) or the organization's spend past a `block` budget is refused with 402
 * budget_exceeded, nothing reserved.
 *
 * The check is made in the reservation's transaction, after locking the
 * organization's row: every budget-checked reservation of an organization
 * takes that lock first, so they run one after another, and each reads the
 * spend in a snapshot taken after the previous one committed. Two nodes racing
 * for a key's (or a member's, from two of their keys) last cents cannot both pass. Reservations of keys that no
 * blocking budget concerns (principal.budgetGated false) skip the lock and
 * keep their one-statement acceptance.
 */

/** A whole-cent dollar amount in credits (1 credit = US$0.001): exact. */
function budgetCredits(usd: string): number {
  return new Decimal(usd).div(USD_PER_CREDIT).toNumber();
}

function usd(credits: number): string {
  return new Decimal(credits).mul(USD_PER_CREDIT).toFixed(3).replace(/0$/, '');
}

/**
 * Inside a transaction: takes the organization's budget lock, then refuses
 * with budget_exceeded if `credits` more would pass a blocking budget of the
 * key, of the member it belongs to, or of the organization. Must run before the reservation, and before the
 * transaction takes the wallet's row (so locks are always taken in one order).
 */
export async function checkBlockingBudgets(q: Queryable, organizationId: string, apiKeyId: string, credits: number): Promise<void> {
  await lockOrganizationForBudget(q, organizationId);
  // A new statement, hence a snapshot taken once the lock was held.
  const s = await selectBudgetState(q, organizationId, apiKeyId);
  if (!s) return;
  if (s.key_action === 'block' && s.key_budget_usd !== null && s.key_spent + credits > budgetCredits(s.key_budget_usd)) {
    throw new ApiError(
      'budget_exceeded',
      `This request needs ${credits} credits, which would take this API key's spend this month ($${usd(s.key_spent)}) past its monthly budget of $${s.key_budget_usd}. Nothing was reserved.`,
    );
  }
  if (s.member_action === 'block' && s.member_budget_usd !== null && s.member_spent + credits > budgetCredits(s.member_budget_usd)) {
    throw new ApiError(
      'budget_exceeded',
      `This request needs ${credits} credits, which would take the spend this month of member ${s.member_id} (all of their keys, $${usd(s.member_spent)}) past the member's monthly budget of $${s.member_budget_usd}. Nothing was reserved.`,
    );
  }
  if (s.org_action === 'block' && s.org_budget_usd !== null && s.org_spent + credits > budgetCredits(s.org_budget_usd)) {
    throw new ApiError(
      'budget_exceeded',
      `This request needs ${credits} credits, which would take the organization's spend this month ($${usd(s.org_spent)}) past its monthly budget of $${s.org_budget_usd}. Nothing was reserved.`,
    );
  }
}

/** Whether a reservation of `credits` by this principal must be budget-checked. */
export function needsBudgetCheck(principal: Pick<Principal, 'budgetGated' | 'mode'>, credits: number): boolean {
  return credits > 0 && principal.mode === 'live' && principal.budgetGated === true;
}

/**
 * Inside a reservation's transaction, before it takes the wallet's row: the budget check when a blocking budget
 * concerns the principal (checkBlockingBudgets), nothing otherwise.
 */
export async function checkBudgetsOf(q: Queryable, principal: Principal, credits: number): Promise<void> {
  if (needsBudgetCheck(principal, credits)) await checkBlockingBudgets(q, principal.organizationId, principal.keyId, credits);
}

/**
 * Runs `reserve` (which reserves `credits` for the principal) on `db` as it is
 * when no blocking budget concerns the principal; otherwise in a transaction
 * that first checks the budgets (checkBlockingBudgets).
 */
export async function withinBudgets<T>(db: Db, principal: Principal, credits: number, reserve: (q: Queryable) => Promise<T>): Promise<T> {
  if (!needsBudgetCheck(principal, credits)) return reserve(db);
  return db.tx(async (q) => {
    await checkBlockingBudgets(q, principal.organizationId, principal.keyId, credits);
    return reserve(q);
  });
}
