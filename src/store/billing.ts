import type { Queryable } from './db.js';

/** An organization's Stripe Customer, saved card and auto top-up (table billing_accounts). */
export interface BillingAccountRow {
  organization_id: string;
  stripe_customer_id: string;
  payment_method_id: string | null;
  auto_topup_enabled: boolean;
  auto_topup_threshold_credits: number | null;
  auto_topup_amount: number | null;
  auto_topup_monthly_cap: number | null;
  auto_topup_failures: number;
  auto_topup_last_error: string | null;
}

export type PaymentStatus = 'pending' | 'succeeded' | 'failed' | 'requires_action' | 'canceled';

export interface PaymentRow {
  id: string;
  organization_id: string;
  kind: 'checkout' | 'auto_topup';
  checkout_session_id: string | null;
  payment_intent_id: string | null;
  charge_id: string | null;
  amount: number;
  currency: string;
  credits: number;
  status: PaymentStatus;
  period: string | null;
  receipt_url: string | null;
  failure_message: string | null;
  refunded_amount: number;
  refunded_credits: number;
  created_at: Date;
  credited_at: Date | null;
}

export interface AdjustmentRow {
  id: string;
  organization_id: string;
  payment_id: string;
  kind: 'refund' | 'dispute';
  stripe_id: string;
  amount: number;
  credits: number;
  status: string;
  created_at: Date;
  closed_at: Date | null;
}

const ACCOUNT_COLUMNS = `organization_id, stripe_customer_id, payment_method_id, auto_topup_enabled, auto_topup_threshold_credits::float8 AS auto_topup_threshold_credits,
  auto_topup_amount::float8 AS auto_topup_amount, auto_topup_monthly_cap::float8 AS auto_topup_monthly_cap, auto_topup_failures, auto_topup_last_error`;
const PAYMENT_COLUMNS = `id, organization_id, kind, checkout_session_id, payment_intent_id, charge_id, amount::float8 AS amount, currency, credits::float8 AS credits, status,
  period, receipt_url, failure_message, refunded_amount::float8 AS refunded_amount, refunded_credits::float8 AS refunded_credits, created_at, credited_at`;
const ADJUSTMENT_COLUMNS = 'id, organization_id, payment_id, kind, stripe_id, amount::float8 AS amount, credits::float8 AS credits, status, created_at, closed_at';

export async function selectBillingAccount(q: Queryable, organizationId: string): Promise<BillingAccountRow | undefined> {
  const r = await q.query<BillingAccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM billing_accounts WHERE organization_id = $1`, [organizationId]);
  return r.rows[0];
}

/**
 * Locks the organization's billing account until the transaction ends. Every transaction that starts, credits or
 * fails an automatic top-up takes it first (then the payment row), so a claim's checks are read after the last of
 * them committed: a claim never acts on a balance or an on/off switch that changed while it waited.
 */
export async function lockBillingAccount(q: Queryable, organizationId: string): Promise<boolean> {
  const r = await q.query('SELECT 1 FROM billing_accounts WHERE organization_id = $1 FOR UPDATE', [organizationId]);
  return r.rowCount === 1;
}

/** Records the organization's Customer; if another request recorded one first, that one stays and is returned. */
export async function insertBillingAccount(q: Queryable, organizationId: string, customerId: string): Promise<BillingAccountRow> {
  await q.query('INSERT INTO billing_accounts (organization_id, stripe_customer_id) VALUES ($1, $2) ON CONFLICT (organization_id) DO NOTHING', [organizationId, customerId]);
  return (await selectBillingAccount(q, organizationId))!;
}

/** A saved card from a setup-mode Checkout: it replaces the one before, and a fresh card starts with no failures. */
export async function updateSavedPaymentMethod(q: Queryable, organizationId: string, paymentMethodId: string): Promise<boolean> {
  const r = await q.query(
    `UPDATE billing_accounts SET payment_method_id = $2, auto_topup_failures = 0, auto_topup_last_error = NULL
     WHERE organization_id = $1 AND payment_method_id IS DISTINCT FROM $2`,
    [organizationId, paymentMethodId],
  );
  return (r.rowCount ?? 0) > 0;
}

export async function updateAutoTopup(
  q: Queryable,
  organizationId: string,
  s: { enabled: boolean; thresholdCredits: number | null; amount: number | null; monthlyCap: number | null },
): Promise<BillingAccountRow | undefined> {
  const r = await q.query<BillingAccountRow>(
    `UPDATE billing_accounts SET auto_topup_enabled = $2, auto_topup_threshold_credits = $3, auto_topup_amount = $4, auto_topup_monthly_cap = $5,
       -- Turning it on again is the owner's answer to the failures that stopped it.
       auto_topup_failures = CASE WHEN $2 THEN 0 ELSE auto_topup_failures END,
       auto_topup_last_error = CASE WHEN $2 THEN NULL ELSE auto_topup_last_error END
     WHERE organization_id = $1 RETURNING ${ACCOUNT_COLUMNS}`,
    [organizationId, s.enabled, s.thresholdCredits, s.amount, s.monthlyCap],
  );
  return r.rows[0];
}

export async function insertPayment(
  q: Queryable,
  p: { id: string; organizationId: string; kind: 'checkout' | 'auto_topup'; amount: number; currency: string; credits: number; period?: string | null },
): Promise<void> {
  await q.query(
    'INSERT INTO billing_payments (id, organization_id, kind, amount, currency, credits, status, period) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
    [p.id, p.organizationId, p.kind, p.amount, p.currency, p.credits, 'pending', p.period ?? null],
  );
}

export async function updatePaymentCheckoutSession(q: Queryable, id: string, sessionId: string): Promise<void> {
  await q.query('UPDATE billing_payments SET checkout_session_id = $2 WHERE id = $1', [id, sessionId]);
}

export async function selectPayment(q: Queryable, id: string): Promise<PaymentRow | undefined> {
  const r = await q.query<PaymentRow>(`SELECT ${PAYMENT_COLUMNS} FROM billing_payments WHERE id = $1`, [id]);
  return r.rows[0];
}

/** The payment, its row locked until the transaction ends (refunds and disputes of one payment are counted one after another). */
export async function selectPaymentForUpdate(q: Queryable, id: string): Promise<PaymentRow | undefined> {
  const r = await q.query<PaymentRow>(`SELECT ${PAYMENT_COLUMNS} FROM billing_payments WHERE id = $1 FOR UPDATE`, [id]);
  return r.rows[0];
}

export async function selectPaymentByCharge(q: Queryable, chargeId: string, paymentIntentId: string | null): Promise<PaymentRow | undefined> {
  const r = await q.query<PaymentRow>(
    `SELECT ${PAYMENT_COLUMNS} FROM billing_payments WHERE charge_id = $1 OR ($2::text IS NOT NULL AND payment_intent_id = $2) LIMIT 1`,
    [chargeId, paymentIntentId],
  );
  return r.rows[0];
}

export async function selectPaymentByCheckoutSession(q: Queryable, organizationId: string, sessionId: string): Promise<PaymentRow | undefined> {
  const r = await q.query<PaymentRow>(`SELECT ${PAYMENT_COLUMNS} FROM billing_payments WHERE organization_id = $1 AND checkout_session_id = $2`, [organizationId, sessionId]);
  return r.rows[0];
}

/**
 * Marks a payment paid, once: the row's lock makes a concurrent second caller wait, and it then finds credited_at
 * set and gets nothing back. The caller credits the wallet in the same transaction only when a row is returned.
 */
export async function markPaymentCredited(
  q: Queryable,
  id: string,
  s: { paymentIntentId: string; chargeId: string | null; receiptUrl: string | null },
): Promise<PaymentRow | undefined> {
  const r = await q.query<PaymentRow>(
    `UPDATE billing_payments SET status = 'succeeded', credited_at = now(), payment_intent_id = $2, charge_id = $3, receipt_url = $4, failure_message = NULL
     WHERE id = $1 AND credited_at IS NULL RETURNING ${PAYMENT_COLUMNS}`,
    [id, s.paymentIntentId, s.chargeId, s.receiptUrl],
  );
  return r.rows[0];
}

/** Records the PaymentIntent of an automatic payment still in flight, so that it can be read back by its id. */
export async function updatePaymentIntentId(q: Queryable, id: string, paymentIntentId: string): Promise<void> {
  await q.query('UPDATE billing_payments SET payment_intent_id = $2 WHERE id = $1 AND payment_intent_id IS NULL', [id, paymentIntentId]);
}

/** Pending automatic payments created before `before` whose next read-back is due at `now`, the most due first. */
export async function selectStaleAutoTopups(q: Queryable, before: Date, now: Date, limit: number): Promise<PaymentRow[]> {
  const r = await q.query<PaymentRow>(
    `SELECT ${PAYMENT_COLUMNS} FROM billing_payments
     WHERE kind = 'auto_topup' AND status = 'pending' AND created_at < $1::timestamptz AND (recheck_at IS NULL OR recheck_at <= $2::timestamptz)
     ORDER BY coalesce(recheck_at, created_at), seq LIMIT $3`,
    [before.toISOString(), now.toISOString(), limit],
  );
  return r.rows;
}

/**
 * A pending automatic payment read back and still unsettled: its next read-back waits 1, 2, 4, … minutes after `now`,
 * at most an hour (a bank debit Stripe processes for days is read some 24 times a day, not 5,760).
 */
export async function deferAutoTopupRecheck(q: Queryable, id: string, now: Date): Promise<void> {
  await q.query(
    `UPDATE billing_payments SET rechecks = rechecks + 1,
       recheck_at = $2::timestamptz + least(interval '1 hour', interval '1 minute' * power(2, least(rechecks, 10)))
     WHERE id = $1 AND status = 'pending' AND credited_at IS NULL`,
    [id, now.toISOString()],
  );
}

/** A payment that did not go through (never one already credited). */
export async function markPaymentUnpaid(q: Queryable, id: string, status: 'failed' | 'requires_action' | 'canceled', s: { paymentIntentId: string | null; message: string | null }): Promise<PaymentRow | undefined> {
  const r = await q.query<PaymentRow>(
    `UPDATE billing_payments SET status = $2, payment_intent_id = coalesce($3, payment_intent_id), failure_message = $4
     WHERE id = $1 AND credited_at IS NULL AND status = 'pending' RETURNING ${PAYMENT_COLUMNS}`,
    [id, status, s.paymentIntentId, s.message],
  );
  return r.rows[0];
}

export async function addPaymentRefund(q: Queryable, id: string, amount: number, credits: number): Promise<void> {
  await q.query('UPDATE billing_payments SET refunded_amount = refunded_amount + $2, refunded_credits = refunded_credits + $3 WHERE id = $1', [id, amount, credits]);
}

/** Records a refund or a dispute; undefined if its Stripe object was recorded before (a repeated event). */
export async function insertAdjustment(
  q: Queryable,
  a: { id: string; organizationId: string; paymentId: string; kind: 'refund' | 'dispute'; stripeId: string; amount: number; credits: number; status: string },
): Promise<AdjustmentRow | undefined> {
  const r = await q.query<AdjustmentRow>(
    `INSERT INTO billing_adjustments (id, organization_id, payment_id, kind, stripe_id, amount, credits, status) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (stripe_id) DO NOTHING RETURNING ${ADJUSTMENT_COLUMNS}`,
    [a.id, a.organizationId, a.paymentId, a.kind, a.stripeId, a.amount, a.credits, a.status],
  );
  return r.rows[0];
}

/** Closes an open dispute, once; undefined if it was closed before (or is unknown). */
export async function closeDispute(q: Queryable, stripeId: string, status: string): Promise<AdjustmentRow | undefined> {
  const r = await q.query<AdjustmentRow>(
    `UPDATE billing_adjustments SET status = $2, closed_at = now() WHERE stripe_id = $1 AND kind = 'dispute' AND closed_at IS NULL RETURNING ${ADJUSTMENT_COLUMNS}`,
    [stripeId, status],
  );
  return r.rows[0];
}

/** The sum of a payment's adjustments of a kind (refunded credits so far), to keep refunds within what was bought. */
export async function sumAdjustmentCredits(q: Queryable, paymentId: string, kind: 'refund' | 'dispute'): Promise<number> {
  const r = await q.query<{ n: number }>('SELECT coalesce(sum(credits), 0)::float8 AS n FROM billing_adjustments WHERE payment_id = $1 AND kind = $2', [paymentId, kind]);
  return r.rows[0]?.n ?? 0;
}

/** Payments and adjustments of an organization, newest first, as one history. */
export async function selectBillingHistory(
  q: Queryable, organizationId: string, limit: number,
): Promise<{ payments: PaymentRow[]; adjustments: (AdjustmentRow & { currency: string; receipt_url: string | null })[] }> {
  const payments = await q.query<PaymentRow>(`SELECT ${PAYMENT_COLUMNS} FROM billing_payments WHERE organization_id = $1 ORDER BY seq DESC LIMIT $2`, [organizationId, limit]);
  const adjustments = await q.query<AdjustmentRow & { currency: string; receipt_url: string | null }>(
    `SELECT a.id, a.organization_id, a.payment_id, a.kind, a.stripe_id, a.amount::float8 AS amount, a.credits::float8 AS credits, a.status, a.created_at, a.closed_at,
       p.currency, p.receipt_url
     FROM billing_adjustments a JOIN billing_payments p ON p.id = a.payment_id WHERE a.organization_id = $1 ORDER BY a.seq DESC LIMIT $2`,
    [organizationId, limit],
  );
  return { payments: payments.rows, adjustments: adjustments.rows };
}

/**
 * Claims the right to start one automatic top-up: inserts its pending payment row if the organization has auto
 * top-up on, a saved card, no automatic payment in flight (the partial unique index refuses a second one, on any
 * node), available credits below the threshold, is not paused, and the month's automatic top-ups (pending or
 * paid) plus this one stay within the cap. Run after lockBillingAccount in the same transaction: the checks are
 * then read after any crediting or failing of the payment before (a bare unique-index wait would let a claim
 * proceed on what it read before that payment ended).
 */
export async function claimAutoTopup(
  q: Queryable,
  p: { id: string; organizationId: string; period: string; currency: string; creditsPerUnit: number },
): Promise<{ amount: number; credits: number; customer: string; paymentMethod: string } | undefined> {
  const r = await q.query<{ amount: number; credits: number; customer: string; payment_method: string }>(
    `INSERT INTO billing_payments (id, organization_id, kind, amount, currency, credits, status, period)
     SELECT $1, a.organization_id, 'auto_topup', a.auto_topup_amount, $3, a.auto_topup_amount * $4, 'pending', $2
     FROM billing_accounts a JOIN organizations o ON o.id = a.organization_id JOIN wallets w ON w.organization_id = a.organization_id
     WHERE a.organization_id = $5 AND a.auto_topup_enabled AND a.payment_method_id IS NOT NULL AND NOT o.paused
       AND w.balance_credits + coalesce((SELECT sum(balance_delta) FROM wallet_pending WHERE organization_id = $5), 0)
         - w.held_credits - coalesce((SELECT sum(held_delta) FROM wallet_pending WHERE organization_id = $5), 0) < a.auto_topup_threshold_credits
       AND (SELECT coalesce(sum(amount), 0) FROM billing_payments WHERE organization_id = $5 AND kind = 'auto_topup' AND period = $2 AND status IN ('pending', 'succeeded'))
         + a.auto_topup_amount <= a.auto_topup_monthly_cap
     ON CONFLICT DO NOTHING
     RETURNING amount::float8 AS amount, credits::float8 AS credits,
       (SELECT stripe_customer_id FROM billing_accounts WHERE organization_id = $5) AS customer,
       (SELECT payment_method_id FROM billing_accounts WHERE organization_id = $5) AS payment_method`,
    [p.id, p.period, p.currency, p.creditsPerUnit, p.organizationId],
  );
  const row = r.rows[0];
  return row ? { amount: row.amount, credits: row.credits, customer: row.customer, paymentMethod: row.payment_method } : undefined;
}

/** Organizations whose auto top-up might be due (on, with a card, not paused): the scheduler's candidates. */
export async function selectAutoTopupCandidates(q: Queryable): Promise<string[]> {
  const r = await q.query<{ organization_id: string }>(
    `SELECT a.organization_id FROM billing_accounts a JOIN organizations o ON o.id = a.organization_id
     WHERE a.auto_topup_enabled AND a.payment_method_id IS NOT NULL AND NOT o.paused`,
  );
  return r.rows.map((x) => x.organization_id);
}

/**
 * Counts a failed automatic payment; at `maxFailures` in a row, or at once for one that needs the customer's
 * action, auto top-up turns off. Returns the account after, and whether this failure turned it off.
 */
export async function recordAutoTopupFailure(
  q: Queryable,
  organizationId: string,
  message: string,
  maxFailures: number,
  stopNow: boolean,
): Promise<{ failures: number; stopped: boolean } | undefined> {
  const r = await q.query<{ auto_topup_failures: number; stopped: boolean }>(
    `UPDATE billing_accounts SET auto_topup_failures = auto_topup_failures + 1, auto_topup_last_error = $2,
       auto_topup_enabled = auto_topup_enabled AND NOT ($4 OR auto_topup_failures + 1 >= $3)
     WHERE organization_id = $1
     RETURNING auto_topup_failures, (auto_topup_enabled = false) AS stopped`,
    [organizationId, message, maxFailures, stopNow],
  );
  const row = r.rows[0];
  return row ? { failures: row.auto_topup_failures, stopped: row.stopped } : undefined;
}

export async function resetAutoTopupFailures(q: Queryable, organizationId: string): Promise<void> {
  await q.query('UPDATE billing_accounts SET auto_topup_failures = 0, auto_topup_last_error = NULL WHERE organization_id = $1 AND auto_topup_failures > 0', [organizationId]);
}

/** Unpauses an organization paused for a negative wallet (kind 'billing'), never one the anomaly detector or its owner paused. */
export async function isBillingPaused(q: Queryable, organizationId: string): Promise<boolean> {
  const r = await q.query<{ b: boolean }>(`SELECT paused AND pause_reason->>'kind' = 'billing' AS b FROM organizations WHERE id = $1`, [organizationId]);
  return r.rows[0]?.b === true;
}
