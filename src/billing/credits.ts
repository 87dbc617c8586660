import { Decimal } from 'decimal.js';
import { ApiError } from '../errors.js';
import { inTransaction, type Queryable } from '../store/db.js';
import { recordAudit, type AuditOrigin } from '../domain/audit.js';
import { addToWalletBalance, applyPendingSettlements, holdIfAvailable, insertLedgerEntry, type LedgerEntry, selectWalletWithPending, type WalletRow } from '../store/ledger.js';

// The wallet's reads and settling are single statements, used as the store has them.
export {
  insertWallet as openWallet,
  applyPendingSettlements as settlePending,
  selectOrganizationsWithPending as organizationsWithPending,
  sumLedger as ledgerSums,
} from '../store/ledger.js';

/**
 * Credits glossary
 * - credit: the unit of the wallet; 1 credit = US$0.001. Always an integer.
 * - balance: credits the organization owns. held: credits reserved for work in
 *   flight. available = balance − held; a request is accepted only if its
 *   reservation fits in available.
 * - reserve: move credits from available to held (a hold).
 * - charge: take held credits out of the balance (the hold becomes spending).
 * - release: return held credits to available (a refund of a reservation).
 * - ledger: the append-only list of movements; the wallet is always their sum.
 *   Each movement has a `reference` unique per kind, so a step that is retried
 *   (a worker restarted mid-job) can never move money twice.
 * - pending settlement: finished generations' effect on the wallet row and
 *   the usage rollups (one row per organization, key and model of the
 *   generations one statement finished), written (table wallet_pending) by
 *   the statement that writes their ledger rows and applied later, in
 *   batches, by `settlePending`.
 *   The wallet as read is its row plus its pending settlements. The credit
 *   gate reads the row alone: a pending settlement only ever frees credits,
 *   so the gate is conservative, and a refused reservation settles and tries
 *   once more (`retryAfterSettling`) before answering 402.
 */
export const USD_PER_CREDIT = new Decimal('0.001');

/** ceil(units × unit_cost_usd / 0.001), exactly (contract §4). */
export function costInCredits(unitCostUsd: string, units: Decimal.Value): number {
  const credits = new Decimal(units).mul(new Decimal(unitCostUsd)).div(USD_PER_CREDIT).ceil();
  if (credits.isNegative() || !credits.isFinite()) throw new Error(`invalid cost: ${unitCostUsd} × ${String(units)}`);
  return credits.toNumber();
}

export function creditsToUsd(credits: number): number {
  return new Decimal(credits).mul(USD_PER_CREDIT).toNumber();
}

export interface Wallet {
  object: 'wallet';
  balance_credits: number;
  held_credits: number;
  available_credits: number;
}

function toWallet(r: WalletRow): Wallet {
  return {
    object: 'wallet',
    balance_credits: r.balance_credits,
    held_credits: r.held_credits,
    available_credits: r.balance_credits - r.held_credits,
  };
}

/** The wallet row plus its pending settlements, from one snapshot: always equal to the ledger sums. */
export async function getWallet(q: Queryable, organizationId: string): Promise<Wallet> {
  return toWallet((await selectWalletWithPending(q, organizationId)) ?? { balance_credits: 0, held_credits: 0 });
}

/**
 * Runs a reservation; if it is refused for want of credits, settles the
 * organization's pending settlements (which may free credits) and runs it once
 * more. So a 402 always reflects the settled wallet.
 */
export async function retryAfterSettling<T>(q: Queryable, organizationId: string, reserveOnce: () => Promise<T>): Promise<T> {
  try {
    return await reserveOnce();
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== 'insufficient_credits') throw err;
    // Settled here or, a moment ago, by another settler: either way the wallet row may now have room.
    await applyPendingSettlements(q, organizationId);
    return reserveOnce();
  }
}

export type Movement = LedgerEntry;

function assertCredits(credits: number): void {
  if (!Number.isSafeInteger(credits) || credits < 0) throw new Error(`credits must be a non-negative integer, got ${credits}`);
}

/** Adds credits to the balance. Returns the wallet after; a repeated reference changes nothing. */
export async function topUp(q: Queryable, m: Movement & { credits: number }): Promise<Wallet> {
  await credit(q, m);
  return getWallet(q, m.organizationId);
}

/** Whether the movement was made (false: its reference was already used). */
async function credit(q: Queryable, m: Movement & { credits: number }): Promise<boolean> {
  assertCredits(m.credits);
  if (!(await insertLedgerEntry(q, 'topup', m.credits, 0, m))) return false;
  await addToWalletBalance(q, m.organizationId, m.credits);
  return true;
}

/**
 * A top-up someone made (the operator's `mmgen wallet topup`, an organization's initial credits): the ledger entry
 * and its audit entry (`wallet.topped_up`: the balance before and after, the credits and reference) commit together,
 * in the caller's transaction if `q` is one. A repeated reference moves nothing and records nothing.
 */
export async function recordedTopUp(q: Queryable, m: Movement & { credits: number }, origin: AuditOrigin): Promise<Wallet> {
  return inTransaction(q, async (t) => {
    const before = await getWallet(t, m.organizationId);
    if (!(await credit(t, m))) return before;
    const after = await getWallet(t, m.organizationId);
    await recordAudit(t, {
      ...origin,
      organizationId: m.organizationId,
      action: 'wallet.topped_up',
      target: { type: 'wallet', id: m.organizationId },
      before: { balance_credits: before.balance_credits },
      after: { balance_credits: after.balance_credits, credits: m.credits, reference: m.reference, note: m.note ?? null },
    });
    return after;
  });
}

/**
 * Holds `credits` if they fit in the available credits, else throws 402
 * insufficient_credits. The conditional UPDATE is atomic per row, so
 * concurrent reservations can never overdraw the wallet.
 */
export async function reserve(q: Queryable, m: Movement & { credits: number }): Promise<void> {
  assertCredits(m.credits);
  if (m.credits === 0) return;
  const inserted = await insertLedgerEntry(q, 'reserve', 0, m.credits, m);
  if (!inserted) throw new Error(`reservation ${m.reference} already exists`);
  if (!(await holdIfAvailable(q, m.organizationId, m.credits))) {
    // The caller's transaction rolls back, taking the ledger row with it.
    throw new ApiError('insufficient_credits', `Insufficient credits: this request needs ${m.credits} credits.`);
  }
}

/**
 * Moves the balance by `credits` (signed) for a payment's refund or dispute: one 'adjustment' ledger row, once per
 * reference. A removal may take the balance below the held credits, even below zero (docs/contract-addenda.md,
 * "Refunds and disputes"); it never touches held credits. Returns the wallet after, or undefined for a repeat.
 */
export async function adjust(q: Queryable, m: Movement & { credits: number }): Promise<Wallet | undefined> {
  if (!Number.isSafeInteger(m.credits) || m.credits === 0) throw new Error(`an adjustment must be a non-zero integer, got ${m.credits}`);
  if (!(await insertLedgerEntry(q, 'adjustment', m.credits, 0, m))) return undefined;
  await addToWalletBalance(q, m.organizationId, m.credits);
  return getWallet(q, m.organizationId);
}
