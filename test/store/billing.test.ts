import { beforeEach, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import {
  addPaymentRefund,
  claimAutoTopup,
  closeDispute,
  deferAutoTopupRecheck,
  insertAdjustment,
  insertBillingAccount,
  insertPayment,
  isBillingPaused,
  lockBillingAccount,
  markPaymentCredited,
  markPaymentUnpaid,
  recordAutoTopupFailure,
  resetAutoTopupFailures,
  selectAutoTopupCandidates,
  selectBillingAccount,
  selectBillingHistory,
  selectPayment,
  selectPaymentByCharge,
  selectPaymentByCheckoutSession,
  selectPaymentForUpdate,
  selectStaleAutoTopups,
  sumAdjustmentCredits,
  updateAutoTopup,
  updatePaymentCheckoutSession,
  updatePaymentIntentId,
  updateSavedPaymentMethod,
} from '../../src/store/billing.js';
import { chargeAndFinish } from '../../src/store/finishing.js';
import { selectGeneration } from '../../src/store/generations.js';
import { applyPendingSettlements } from '../../src/store/ledger.js';
import { insertApiKeyRow } from '../../src/store/api-keys.js';
import { updateMemberBudget } from '../../src/store/accounts.js';
import { updateOrganizationBudget, updateOrganizationPaused } from '../../src/store/organizations.js';
import {
  budgetedSpends,
  chargedSinceByRunningOrganization,
  insertBudgetNotice,
  insertMemberBudgetNotice,
  insertOrganizationBudgetNotice,
  keysMonthSpend,
  liveChargedBetween,
  membersMonthSpend,
  organizationMonthSpend,
  selectBudgetState,
} from '../../src/store/spending.js';
import type { Db } from '../../src/store/db.js';
import { describeEachBackend } from '../helpers/server.js';
import { accept, makeOrg, row, useDb, type Org } from './fixtures.js';

/** A generation of `org` accepted at `price` and finished charging `charged`: a charge row and a pending settlement. */
async function charged(db: Db, org: Org, price: number, chargedCredits: number, over: { apiKeyId?: string } = {}): Promise<string> {
  const a = await accept(db, org, { price, ...over });
  const g = (await selectGeneration(db, a.id))!;
  await chargeAndFinish(db, [{ g, end: { status: 'succeeded', charged: chargedCredits, result: null, error: null, upstreamId: null, outputs: [] } }]);
  return a.id;
}

const today = () => new Date().toISOString().slice(0, 10);
const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

/**
 * What spending reads (spending.ts: budgets, month spends, the anomaly window, notices) and Stripe's side of the
 * wallet (billing.ts: customers, payments, refunds, disputes, auto top-up) on each backend.
 */
describeEachBackend('store: spending', (backend) => {
  const t = useDb(backend);

  it('a notice is recorded once per key, member or organization, period and threshold', async () => {
    const org = await makeOrg(t.db);
    expect(await insertBudgetNotice(t.db, org.liveKeyId, '2030-01', 80)).toBe(true);
    expect(await insertBudgetNotice(t.db, org.liveKeyId, '2030-01', 80)).toBe(false);
    expect(await insertBudgetNotice(t.db, org.liveKeyId, '2030-01', 100)).toBe(true);
    expect(await insertMemberBudgetNotice(t.db, org.ownerId, '2030-01', 80)).toBe(true);
    expect(await insertMemberBudgetNotice(t.db, org.ownerId, '2030-01', 80)).toBe(false);
    expect(await insertOrganizationBudgetNotice(t.db, org.id, '2030-01', 80)).toBe(true);
    expect(await insertOrganizationBudgetNotice(t.db, org.id, '2030-01', 80)).toBe(false);
  });

  it("the month's spend is what was charged (settled or pending) plus what is held now, per key, member and organization", async () => {
    const org = await makeOrg(t.db, { credits: 1_000 });
    const second = await insertApiKeyRow(t.db, {
      id: newId('key'), organizationId: org.id, userId: org.ownerId, name: 'second', mode: 'live', role: 'owner', scopes: [], ipAllowlist: [],
      monthlyBudgetUsd: null, prefix: 'sk_live_x', secretSha256: newId('req'),
    });
    await charged(t.db, org, 50, 30);
    await applyPendingSettlements(t.db, org.id);
    await charged(t.db, org, 50, 20);
    await accept(t.db, org, { price: 40 });
    await accept(t.db, org, { price: 7, apiKeyId: second.id });
    // Test mode never counts.
    await accept(t.db, org, { price: 0, mode: 'test', apiKeyId: org.testKeyId });
    expect(await organizationMonthSpend(t.db, org.id)).toBe(97);
    const keys = await keysMonthSpend(t.db, org.id, [org.liveKeyId, second.id, newId('key')]);
    expect([...keys.values()]).toEqual([90, 7, 0]);
    expect(await keysMonthSpend(t.db, org.id, [])).toEqual(new Map());
    expect(await membersMonthSpend(t.db, org.id, [org.ownerId])).toEqual(new Map([[org.ownerId, 97]]));
    expect(await liveChargedBetween(t.db, org.id, today(), tomorrow())).toBe('30');
    expect(await liveChargedBetween(t.db, org.id, tomorrow(), tomorrow())).toBeNull();
  });

  it('the budget state reads each budget and spend; a member’s spend is summed only under a blocking member budget', async () => {
    const org = await makeOrg(t.db, { credits: 1_000 });
    await charged(t.db, org, 10, 10);
    await accept(t.db, org, { price: 5 });
    await t.db.query('UPDATE api_keys SET monthly_budget_usd = 3, budget_action = $2 WHERE id = $1', [org.liveKeyId, 'block']);
    await updateOrganizationBudget(t.db, org.id, { monthlyBudgetUsd: 50, budgetAction: 'notify' });
    expect(await selectBudgetState(t.db, org.id, org.liveKeyId)).toEqual({
      key_budget_usd: '3.00', key_action: 'block', key_spent: 15, member_id: org.ownerId, member_budget_usd: null, member_action: 'notify',
      member_spent: 0, org_budget_usd: '50.00', org_action: 'notify', org_spent: 15,
    });
    await updateMemberBudget(t.db, org.ownerId, 9, 'block');
    expect(await selectBudgetState(t.db, org.id, org.liveKeyId)).toMatchObject({ member_budget_usd: '9.00', member_action: 'block', member_spent: 15 });
    expect(await selectBudgetState(t.db, newId('org'), org.liveKeyId)).toBeUndefined();
    const spends = (await budgetedSpends(t.db)).filter((s) => s.organization_id === org.id);
    expect(spends.map((s) => [s.kind, s.id, Number(s.budget), Number(s.spent)]).sort()).toEqual([
      ['api_key', org.liveKeyId, 3, 15],
      ['member', org.ownerId, 9, 15],
      ['organization', org.id, 50, 15],
    ]);
  });

  it('the anomaly window counts charges since a time of organizations that run, and after an unpause only work accepted since', async () => {
    const since = new Date(Date.now() - 60_000);
    const running = await makeOrg(t.db, { credits: 1_000 });
    const paused = await makeOrg(t.db, { credits: 1_000 });
    const unpaused = await makeOrg(t.db, { credits: 1_000 });
    await charged(t.db, running, 10, 10);
    await charged(t.db, running, 10, 5);
    await charged(t.db, paused, 10, 10);
    await updateOrganizationPaused(t.db, paused.id, true, { kind: 'owner' });
    // Accepted before the pause, charged after the unpause: not counted; accepted after it: counted.
    const waited = await accept(t.db, unpaused, { price: 10 });
    await updateOrganizationPaused(t.db, unpaused.id, true, { kind: 'owner' });
    await updateOrganizationPaused(t.db, unpaused.id, false, null);
    await chargeAndFinish(t.db, [{ g: (await selectGeneration(t.db, waited.id))!, end: { status: 'succeeded', charged: 10, result: null, error: null, upstreamId: null, outputs: [] } }]);
    await charged(t.db, unpaused, 3, 3);
    const spent = new Map((await chargedSinceByRunningOrganization(t.db, since)).map((r) => [r.organization_id, Number(r.spent)]));
    expect(spent.get(running.id)).toBe(15);
    expect(spent.has(paused.id)).toBe(false);
    expect(spent.get(unpaused.id)).toBe(3);
    expect((await chargedSinceByRunningOrganization(t.db, new Date(Date.now() + 60_000))).filter((r) => r.organization_id === running.id)).toEqual([]);
  });
});

describeEachBackend('store: billing', (backend) => {
  const t = useDb(backend);
  let org: Org;
  beforeEach(async () => {
    org = await makeOrg(t.db, { credits: 100 });
  });

  const payment = async (over: Partial<Parameters<typeof insertPayment>[1]> = {}) => {
    const id = newId('pay');
    await insertPayment(t.db, { id, organizationId: org.id, kind: 'checkout', amount: 1_000, currency: 'usd', credits: 10_000, ...over });
    return id;
  };

  it('a billing account is recorded once: a second customer leaves the first', async () => {
    expect(await selectBillingAccount(t.db, org.id)).toBeUndefined();
    expect(await lockBillingAccount(t.db, org.id)).toBe(false);
    const first = await insertBillingAccount(t.db, org.id, `cus_${org.id}`);
    expect(first).toMatchObject({ stripe_customer_id: `cus_${org.id}`, auto_topup_enabled: false, auto_topup_failures: 0, payment_method_id: null });
    expect(await insertBillingAccount(t.db, org.id, `cus_other_${org.id}`)).toEqual(first);
    expect(await t.db.tx((q) => lockBillingAccount(q, org.id))).toBe(true);
  });

  it('a saved card replaces the last and clears failures; auto top-up settings are written, failures cleared when turned on', async () => {
    await insertBillingAccount(t.db, org.id, `cus_${org.id}`);
    expect(await updateSavedPaymentMethod(t.db, org.id, 'pm_1')).toBe(true);
    expect(await updateSavedPaymentMethod(t.db, org.id, 'pm_1')).toBe(false);
    expect(await recordAutoTopupFailure(t.db, org.id, 'declined', 3, false)).toEqual({ failures: 1, stopped: true });
    expect(await updateSavedPaymentMethod(t.db, org.id, 'pm_2')).toBe(true);
    expect(await selectBillingAccount(t.db, org.id)).toMatchObject({ payment_method_id: 'pm_2', auto_topup_failures: 0, auto_topup_last_error: null });
    const on = await updateAutoTopup(t.db, org.id, { enabled: true, thresholdCredits: 500, amount: 1_000, monthlyCap: 2_500 });
    expect(on).toMatchObject({ auto_topup_enabled: true, auto_topup_threshold_credits: 500, auto_topup_amount: 1_000, auto_topup_monthly_cap: 2_500 });
    expect(await recordAutoTopupFailure(t.db, org.id, 'declined', 3, false)).toEqual({ failures: 1, stopped: false });
    expect(await recordAutoTopupFailure(t.db, org.id, 'declined', 3, false)).toEqual({ failures: 2, stopped: false });
    const off = await updateAutoTopup(t.db, org.id, { enabled: false, thresholdCredits: null, amount: null, monthlyCap: null });
    expect(off).toMatchObject({ auto_topup_enabled: false, auto_topup_failures: 2, auto_topup_last_error: 'declined' });
    await updateAutoTopup(t.db, org.id, { enabled: true, thresholdCredits: 500, amount: 1_000, monthlyCap: 2_500 });
    expect(await selectBillingAccount(t.db, org.id)).toMatchObject({ auto_topup_failures: 0, auto_topup_last_error: null });
    expect(await updateAutoTopup(t.db, newId('org'), { enabled: true, thresholdCredits: 1, amount: 1, monthlyCap: 1 })).toBeUndefined();
  });

  it('failures stop auto top-up at the limit, or at once for one that needs the customer; a success resets the count', async () => {
    await insertBillingAccount(t.db, org.id, `cus_${org.id}`);
    await updateSavedPaymentMethod(t.db, org.id, 'pm_1');
    await updateAutoTopup(t.db, org.id, { enabled: true, thresholdCredits: 500, amount: 1_000, monthlyCap: 5_000 });
    expect(await recordAutoTopupFailure(t.db, org.id, 'e1', 2, false)).toEqual({ failures: 1, stopped: false });
    await resetAutoTopupFailures(t.db, org.id);
    expect(await selectBillingAccount(t.db, org.id)).toMatchObject({ auto_topup_failures: 0, auto_topup_enabled: true });
    expect(await recordAutoTopupFailure(t.db, org.id, 'e1', 2, false)).toEqual({ failures: 1, stopped: false });
    expect(await recordAutoTopupFailure(t.db, org.id, 'e2', 2, false)).toEqual({ failures: 2, stopped: true });
    await updateAutoTopup(t.db, org.id, { enabled: true, thresholdCredits: 500, amount: 1_000, monthlyCap: 5_000 });
    expect(await recordAutoTopupFailure(t.db, org.id, 'authentication_required', 9, true)).toEqual({ failures: 1, stopped: true });
    expect(await recordAutoTopupFailure(t.db, newId('org'), 'x', 1, false)).toBeUndefined();
  });

  it('a payment is read by id, checkout session and charge; credited once; its intent recorded once', async () => {
    const id = await payment();
    expect(await selectPayment(t.db, id)).toMatchObject({ status: 'pending', amount: 1_000, credits: 10_000, currency: 'usd', credited_at: null, refunded_credits: 0 });
    await updatePaymentCheckoutSession(t.db, id, `cs_${id}`);
    expect(await selectPaymentByCheckoutSession(t.db, org.id, `cs_${id}`)).toMatchObject({ id });
    expect(await selectPaymentByCheckoutSession(t.db, newId('org'), `cs_${id}`)).toBeUndefined();
    await updatePaymentIntentId(t.db, id, `pi_${id}`);
    await updatePaymentIntentId(t.db, id, 'pi_other');
    expect(await selectPaymentByCharge(t.db, 'ch_unknown', `pi_${id}`)).toMatchObject({ id, payment_intent_id: `pi_${id}` });
    expect(await selectPaymentByCharge(t.db, 'ch_unknown', null)).toBeUndefined();
    const credited = await markPaymentCredited(t.db, id, { paymentIntentId: `pi_${id}`, chargeId: `ch_${id}`, receiptUrl: 'https://r.test' });
    expect(credited).toMatchObject({ status: 'succeeded', charge_id: `ch_${id}`, receipt_url: 'https://r.test' });
    expect(credited!.credited_at).toBeInstanceOf(Date);
    expect(await markPaymentCredited(t.db, id, { paymentIntentId: `pi_${id}`, chargeId: `ch_${id}`, receiptUrl: null })).toBeUndefined();
    expect(await selectPaymentByCharge(t.db, `ch_${id}`, null)).toMatchObject({ id });
    // Credited: it never becomes unpaid.
    expect(await markPaymentUnpaid(t.db, id, 'failed', { paymentIntentId: null, message: 'late' })).toBeUndefined();
    expect(await t.db.tx((q) => selectPaymentForUpdate(q, id))).toMatchObject({ id, status: 'succeeded' });
    expect(await selectPayment(t.db, newId('pay'))).toBeUndefined();
  });

  it('two webhooks crediting one payment at once: one credits it', async () => {
    const id = await payment();
    const creditOnce = () => markPaymentCredited(t.db, id, { paymentIntentId: `pi_${id}`, chargeId: null, receiptUrl: null });
    expect((await Promise.all([creditOnce(), creditOnce()])).filter((r) => r !== undefined)).toHaveLength(1);
  });

  it('an unpaid payment keeps its first intent unless told another, and records its failure', async () => {
    const id = await payment();
    await updatePaymentIntentId(t.db, id, `pi_${id}`);
    expect(await markPaymentUnpaid(t.db, id, 'requires_action', { paymentIntentId: null, message: 'needs 3DS' })).toMatchObject({
      status: 'requires_action', payment_intent_id: `pi_${id}`, failure_message: 'needs 3DS',
    });
    expect(await markPaymentUnpaid(t.db, id, 'failed', { paymentIntentId: null, message: 'again' })).toBeUndefined();
  });

  it('refunds and disputes: recorded once per Stripe object, summed per kind, a dispute closed once, the history newest first', async () => {
    const id = await payment();
    const adj = (kind: 'refund' | 'dispute', stripeId: string, credits: number) =>
      insertAdjustment(t.db, { id: newId('adj'), organizationId: org.id, paymentId: id, kind, stripeId, amount: credits / 10, credits, status: kind === 'dispute' ? 'needs_response' : 'succeeded' });
    expect(await adj('refund', `re_1_${id}`, 1_000)).toMatchObject({ kind: 'refund', credits: 1_000, amount: 100 });
    expect(await adj('refund', `re_1_${id}`, 1_000)).toBeUndefined();
    await adj('refund', `re_2_${id}`, 500);
    await addPaymentRefund(t.db, id, 150, 1_500);
    expect(await selectPayment(t.db, id)).toMatchObject({ refunded_amount: 150, refunded_credits: 1_500 });
    expect(await sumAdjustmentCredits(t.db, id, 'refund')).toBe(1_500);
    expect(await sumAdjustmentCredits(t.db, id, 'dispute')).toBe(0);
    await adj('dispute', `dp_${id}`, 2_000);
    const closed = await closeDispute(t.db, `dp_${id}`, 'won');
    expect(closed).toMatchObject({ status: 'won', kind: 'dispute' });
    expect(closed!.closed_at).toBeInstanceOf(Date);
    expect(await closeDispute(t.db, `dp_${id}`, 'lost')).toBeUndefined();
    expect(await closeDispute(t.db, `re_2_${id}`, 'lost')).toBeUndefined();
    const second = await payment({ amount: 500, credits: 5_000 });
    const history = await selectBillingHistory(t.db, org.id, 10);
    expect(history.payments.map((p) => p.id)).toEqual([second, id]);
    expect(history.adjustments.map((a) => a.stripe_id)).toEqual([`dp_${id}`, `re_2_${id}`, `re_1_${id}`]);
    expect(history.adjustments[0]).toMatchObject({ currency: 'usd', receipt_url: null });
    expect((await selectBillingHistory(t.db, org.id, 1)).payments).toHaveLength(1);
  });

  it('an auto top-up is claimed only when on, with a card, below the threshold, within the cap, and not in flight', async () => {
    const claim = () => claimAutoTopup(t.db, { id: newId('pay'), organizationId: org.id, period: '2030-01', currency: 'usd', creditsPerUnit: 10 });
    expect(await claim()).toBeUndefined();
    await insertBillingAccount(t.db, org.id, `cus_${org.id}`);
    await updateAutoTopup(t.db, org.id, { enabled: true, thresholdCredits: 50, amount: 1_000, monthlyCap: 2_000 });
    expect(await claim()).toBeUndefined();
    await updateSavedPaymentMethod(t.db, org.id, 'pm_1');
    // 100 credits available: not below the threshold of 50.
    expect(await claim()).toBeUndefined();
    expect(await selectAutoTopupCandidates(t.db)).toContain(org.id);
    await updateAutoTopup(t.db, org.id, { enabled: true, thresholdCredits: 150, amount: 1_000, monthlyCap: 2_000 });
    const first = await claim();
    expect(first).toEqual({ amount: 1_000, credits: 10_000, customer: `cus_${org.id}`, paymentMethod: 'pm_1' });
    // One in flight: no second.
    expect(await claim()).toBeUndefined();
    const pending = (await t.db.query<{ id: string }>(`SELECT id FROM billing_payments WHERE organization_id = $1 AND kind = 'auto_topup'`, [org.id])).rows[0]!.id;
    await markPaymentCredited(t.db, pending, { paymentIntentId: `pi_${pending}`, chargeId: null, receiptUrl: null });
    expect(await claim()).toMatchObject({ amount: 1_000 });
    const second = (await t.db.query<{ id: string }>(`SELECT id FROM billing_payments WHERE organization_id = $1 AND kind = 'auto_topup' AND status = 'pending'`, [org.id])).rows[0]!.id;
    await markPaymentCredited(t.db, second, { paymentIntentId: `pi_${second}`, chargeId: null, receiptUrl: null });
    // 2,000 of the month's cap spent.
    expect(await claim()).toBeUndefined();
    await updateOrganizationPaused(t.db, org.id, true, { kind: 'billing' });
    expect(await isBillingPaused(t.db, org.id)).toBe(true);
    expect(await selectAutoTopupCandidates(t.db)).not.toContain(org.id);
    await updateOrganizationPaused(t.db, org.id, false, null);
    await updateOrganizationPaused(t.db, org.id, true, { kind: 'owner' });
    expect(await isBillingPaused(t.db, org.id)).toBe(false);
    expect(await isBillingPaused(t.db, newId('org'))).toBe(false);
  });

  it('claims of one auto top-up racing: one claims it', async () => {
    await insertBillingAccount(t.db, org.id, `cus_${org.id}`);
    await updateSavedPaymentMethod(t.db, org.id, 'pm_1');
    await updateAutoTopup(t.db, org.id, { enabled: true, thresholdCredits: 1_000, amount: 100, monthlyCap: 10_000 });
    const claimed = await Promise.all([1, 2, 3].map(() => claimAutoTopup(t.db, { id: newId('pay'), organizationId: org.id, period: '2030-02', currency: 'usd', creditsPerUnit: 10 })));
    expect(claimed.filter((c) => c !== undefined)).toHaveLength(1);
  });

  it('stale pending auto top-ups are read back most due first, each deferred 1, 2, 4 … minutes, at most an hour', async () => {
    const id = await payment({ kind: 'auto_topup', period: '2030-03' });
    const checkout = await payment();
    const later = new Date(Date.now() + 60_000);
    expect((await selectStaleAutoTopups(t.db, later, later, 10)).map((p) => p.id)).toContain(id);
    expect((await selectStaleAutoTopups(t.db, later, later, 10)).map((p) => p.id)).not.toContain(checkout);
    expect((await selectStaleAutoTopups(t.db, new Date(Date.now() - 3_600_000), later, 10)).map((p) => p.id)).not.toContain(id);
    const now = new Date('2030-03-01T00:00:00Z');
    const recheckAt = async () => (await row<{ recheck_at: Date; rechecks: number }>(t.db, 'billing_payments', 'id = $1', [id]))!;
    await deferAutoTopupRecheck(t.db, id, now);
    expect(await recheckAt()).toMatchObject({ rechecks: 1, recheck_at: new Date('2030-03-01T00:01:00Z') });
    await deferAutoTopupRecheck(t.db, id, now);
    expect((await recheckAt()).recheck_at).toEqual(new Date('2030-03-01T00:02:00Z'));
    await t.db.query('UPDATE billing_payments SET rechecks = 9 WHERE id = $1', [id]);
    await deferAutoTopupRecheck(t.db, id, now);
    expect((await recheckAt()).recheck_at).toEqual(new Date('2030-03-01T01:00:00Z'));
    // Not due before its recheck time.
    expect((await selectStaleAutoTopups(t.db, later, new Date('2030-03-01T00:59:00Z'), 10)).map((p) => p.id)).not.toContain(id);
    expect((await selectStaleAutoTopups(t.db, later, new Date('2030-03-01T01:00:00Z'), 10)).map((p) => p.id)).toContain(id);
  });
});
