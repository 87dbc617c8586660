import { Decimal } from 'decimal.js';
import { ApiError } from '../errors.js';
import type { Queryable } from '../store/db.js';

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

interface WalletRow {
  balance_credits: number;
  held_credits: number;
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
  const r = await q.query<WalletRow>(
    `SELECT w.balance_credits + coalesce(p.b, 0)::bigint AS balance_credits, w.held_credits + coalesce(p.h, 0)::bigint AS held_credits
     FROM wallets w,
       LATERAL (SELECT sum(balance_delta) AS b, sum(held_delta) AS h FROM wallet_pending WHERE organization_id = w.organization_id) p
     WHERE w.organization_id = $1`,
    [organizationId],
  );
  return toWallet(r.rows[0] ?? { balance_credits: 0, held_credits: 0 });
}

/**
 * Applies an organization's pending settlements to its wallet row and usage
 * rollups, in one statement; returns how many it applied. Settlers may run
 * concurrently on any node: each pending row is deleted, hence applied, once
 * (a second settler waits on the rows the first holds, then skips them).
 */
export async function settlePending(q: Queryable, organizationId: string): Promise<number> {
  const r = await q.query<{ n: number }>(
    // Rows are locked in id order, so two settlers of one organization can never wait on each other in a cycle.
    `WITH p AS (
       DELETE FROM wallet_pending WHERE id IN (SELECT id FROM wallet_pending WHERE organization_id = $1 ORDER BY id FOR UPDATE)
       RETURNING *),
     s AS (SELECT sum(balance_delta) AS b, sum(held_delta) AS h FROM p),
     w AS (
       UPDATE wallets SET balance_credits = balance_credits + s.b, held_credits = held_credits + s.h, updated_at = now()
       FROM s WHERE wallets.organization_id = $1 AND (s.b <> 0 OR s.h <> 0)),
     u AS (
       INSERT INTO usage_rollups AS ur (organization_id, mode, day, model, modality, api_key_id, generations, charged_credits, refunded_credits)
       SELECT organization_id, mode, day, model, max(modality), api_key_id, sum(generations), sum(charged_credits), sum(refunded_credits)
       FROM p GROUP BY organization_id, mode, day, model, api_key_id
       ON CONFLICT (organization_id, mode, day, model, api_key_id) DO UPDATE SET
         generations = ur.generations + EXCLUDED.generations,
         charged_credits = ur.charged_credits + EXCLUDED.charged_credits,
         refunded_credits = ur.refunded_credits + EXCLUDED.refunded_credits)
     SELECT count(*)::int AS n FROM p`,
    [organizationId],
  );
  return r.rows[0]?.n ?? 0;
}

/** The organizations with pending settlements (for the periodic sweep that covers a process lost before it settled). */
export async function organizationsWithPending(q: Queryable): Promise<string[]> {
  const r = await q.query<{ organization_id: string }>('SELECT DISTINCT organization_id FROM wallet_pending');
  return r.rows.map((x) => x.organization_id);
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
    await settlePending(q, organizationId);
    return reserveOnce();
  }
}

export interface Movement {
  organizationId: string;
  reference: string;
  generationId?: string | null;
  apiKeyId?: string | null;
  model?: string | null;
  modality?: string | null;
  note?: string | null;
}

async function appendLedger(
  q: Queryable,
  kind: 'topup' | 'reserve' | 'charge' | 'release' | 'adjustment',
  balanceDelta: number,
  heldDelta: number,
  m: Movement,
): Promise<boolean> {
  const r = await q.query(
    `INSERT INTO ledger_entries (organization_id, kind, balance_delta, held_delta, reference, generation_id, api_key_id, model, modality, note)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (kind, reference) DO NOTHING RETURNING id`,
    [m.organizationId, kind, balanceDelta, heldDelta, m.reference, m.generationId ?? null, m.apiKeyId ?? null, m.model ?? null, m.modality ?? null, m.note ?? null],
  );
  return r.rowCount === 1;
}

function assertCredits(credits: number): void {
  if (!Number.isSafeInteger(credits) || credits < 0) throw new Error(`credits must be a non-negative integer, got ${credits}`);
}

/** Adds credits to the balance. Returns the wallet after; a repeated reference changes nothing. */
export async function topUp(q: Queryable, m: Movement & { credits: number }): Promise<Wallet> {
  assertCredits(m.credits);
  if (await appendLedger(q, 'topup', m.credits, 0, m)) {
    await q.query(
      `INSERT INTO wallets (organization_id, balance_credits) VALUES ($1, $2)
       ON CONFLICT (organization_id) DO UPDATE SET balance_credits = wallets.balance_credits + $2, updated_at = now()`,
      [m.organizationId, m.credits],
    );
  }
  return getWallet(q, m.organizationId);
}

/**
 * Holds `credits` if they fit in the available credits, else throws 402
 * insufficient_credits. The conditional UPDATE is atomic per row, so
 * concurrent reservations can never overdraw the wallet.
 */
export async function reserve(q: Queryable, m: Movement & { credits: number }): Promise<void> {
  assertCredits(m.credits);
  if (m.credits === 0) return;
  const inserted = await appendLedger(q, 'reserve', 0, m.credits, m);
  if (!inserted) throw new Error(`reservation ${m.reference} already exists`);
  const r = await q.query(
    `UPDATE wallets SET held_credits = held_credits + $2, updated_at = now()
     WHERE organization_id = $1 AND balance_credits - held_credits >= $2`,
    [m.organizationId, m.credits],
  );
  if (r.rowCount !== 1) {
    // The caller's transaction rolls back, taking the ledger row with it.
    throw new ApiError('insufficient_credits', `Insufficient credits: this request needs ${m.credits} credits.`);
  }
}

/**
 * Settles a reservation: `charged` leaves the balance, the rest of `reserved`
 * is released. Never charges more than was reserved. Idempotent per reference.
 */
export async function settle(q: Queryable, m: Movement & { reserved: number; charged: number }): Promise<void> {
  assertCredits(m.reserved);
  assertCredits(m.charged);
  if (m.charged > m.reserved) throw new Error(`charge ${m.charged} exceeds reservation ${m.reserved}`);
  const released = m.reserved - m.charged;
  let balanceDelta = 0;
  let heldDelta = 0;
  if (m.charged > 0 && (await appendLedger(q, 'charge', -m.charged, -m.charged, m))) {
    balanceDelta -= m.charged;
    heldDelta -= m.charged;
  }
  if (released > 0 && (await appendLedger(q, 'release', 0, -released, m))) heldDelta -= released;
  if (balanceDelta !== 0 || heldDelta !== 0) {
    await q.query(
      `UPDATE wallets SET balance_credits = balance_credits + $2, held_credits = held_credits + $3, updated_at = now()
       WHERE organization_id = $1`,
      [m.organizationId, balanceDelta, heldDelta],
    );
  }
}

/** The wallet recomputed from the ledger; equal at all times to the wallet as getWallet reads it (its row plus pending settlements). */
export async function ledgerSums(q: Queryable, organizationId: string): Promise<WalletRow> {
  const r = await q.query<{ balance: string | null; held: string | null }>(
    'SELECT sum(balance_delta) AS balance, sum(held_delta) AS held FROM ledger_entries WHERE organization_id = $1',
    [organizationId],
  );
  return { balance_credits: Number(r.rows[0]?.balance ?? 0), held_credits: Number(r.rows[0]?.held ?? 0) };
}
