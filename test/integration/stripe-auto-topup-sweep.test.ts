import { afterAll, beforeAll, expect, it } from 'vitest';
import { runAutoTopup, settleStaleAutoTopups } from '../../src/billing/stripe.js';
import { deferAutoTopupRecheck, insertPayment, selectStaleAutoTopups } from '../../src/store/billing.js';
import { CARD_DECLINED, CARD_OK, FakeStripe } from '../fakes/stripe.js';
import { expectWalletMatchesLedger } from '../helpers/money.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * An automatic top-up that got no answer and no event (issue 32: "at most one in flight" must not mean "stuck
 * forever"): the scheduler's sweep reads it back from Stripe's API once it is older than
 * MMGEN_STRIPE_AUTO_TOPUP_SETTLE_AFTER_S and settles it, once, even when its late event arrives at the same moment
 * on two nodes. Both nodes run without a worker (no scheduler): the test calls the top-up and the sweep itself, and
 * hands the sweep a time past the timeout instead of waiting for it.
 */
describeOnBackend('automatic top-ups that got no answer', 'postgres', (backend) => {
  let fake: FakeStripe;
  let a: TestServer;
  let b: TestServer;
  let api: ReturnType<typeof client>;
  const hook = (s: TestServer) => `${s.url}/v1/billing/stripe/webhook`;
  const later = () => new Date(Date.now() + 3_600_000);

  beforeAll(async () => {
    fake = await new FakeStripe().start();
    const env = { ...fake.env(), MMGEN_STRIPE_AUTO_TOPUP_MAX_FAILURES: '3' };
    a = await startTestServer(backend, env, { worker: false });
    b = await startTestServer(backend, env, { worker: false, sameDbAs: a });
    api = client(a.url);
    fake.endpoints = [hook(a), hook(b)];
  });
  afterAll(async () => {
    await fake?.close();
    await b?.close();
    await a?.close();
  });

  /** Saves `card` (the setup Checkout's event is delivered), turns auto top-up on, then stops sending events. */
  async function autoTopupOn(org: TestOrg, card: string): Promise<void> {
    fake.autoDeliver = true;
    const setup = await api('POST', '/v1/billing/payment-method', { key: org.live, body: {} });
    expect(setup.status, JSON.stringify(setup.body)).toBe(201);
    const done = await fetch(setup.body.url, { method: 'POST', body: new URLSearchParams({ card }), redirect: 'manual' });
    expect(done.status).toBe(303);
    await fake.settled();
    const on = await api('PUT', '/v1/billing/auto-topup', { key: org.live, body: { enabled: true, threshold_credits: 5_000, amount: 500, monthly_cap: 100_000 } });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    fake.autoDeliver = false;
  }

  async function payments(org: TestOrg): Promise<{ id: string; status: string; payment_intent_id: string | null }[]> {
    const r = await a.db.query<{ id: string; status: string; payment_intent_id: string | null }>(
      "SELECT id, status, payment_intent_id FROM billing_payments WHERE organization_id = $1 AND kind = 'auto_topup' ORDER BY seq", [org.id],
    );
    return r.rows;
  }

  async function stripeCredits(org: TestOrg): Promise<number> {
    const r = await a.db.query<{ n: number }>("SELECT count(*)::int AS n FROM ledger_entries WHERE organization_id = $1 AND reference LIKE 'stripe-payment:%'", [org.id]);
    return r.rows[0]!.n;
  }

  async function failureEvents(org: TestOrg): Promise<{ reason: string; consecutive_failures: number }[]> {
    const r = await a.db.query<{ data: { reason: string; consecutive_failures: number } }>(
      "SELECT data FROM events WHERE organization_id = $1 AND type = 'billing.auto_topup_failed' ORDER BY created_at", [org.id],
    );
    return r.rows.map((e) => ({ reason: e.data.reason, consecutive_failures: e.data.consecutive_failures }));
  }

  /** The PaymentIntent event the fake made for a payment but never sent. */
  function unsentEvent(type: string, paymentId: string): Record<string, unknown> {
    const e = fake.eventsOf(type).find((x) => ((x.data as { object: { metadata: Record<string, string> } }).object.metadata ?? {}).mmgen_payment_id === paymentId);
    expect(e, `${type} of ${paymentId}`).toBeDefined();
    return e!;
  }

  it('paid, but the answer was lost: it blocks the next top-up until the sweep reads it back, and with its late event on two nodes it is credited once', async () => {
    const org = await a.createOrg({ credits: 100 });
    await autoTopupOn(org, CARD_OK);
    // Stripe makes and confirms the payment; every answer (the client's retries too) is lost on the way back.
    fake.misbehave({ method: 'POST', path: '/v1/payment_intents' }, { lose: true }, 3);
    expect(await runAutoTopup(a.runtime.deps, org.id)).toBe('pending');
    fake.clearMisbehaviour();
    const [pending] = await payments(org);
    expect(pending).toMatchObject({ status: 'pending', payment_intent_id: null });
    const pi = [...fake.paymentIntents.values()].find((x) => (x.metadata as Record<string, string>).mmgen_payment_id === pending!.id)!;
    expect(pi.status).toBe('succeeded');

    // One in flight: neither node starts another, and before the timeout the sweep leaves it alone.
    expect(await runAutoTopup(b.runtime.deps, org.id)).toBe('none');
    expect(await settleStaleAutoTopups(a.runtime.deps)).toEqual([]);
    expect((await payments(org)).map((p) => p.status)).toEqual(['pending']);

    // Past the timeout, the sweep on both nodes and the late event to both nodes, all at once.
    const event = unsentEvent('payment_intent.succeeded', pending!.id);
    const [sa, sb, ...deliveries] = await Promise.all([
      settleStaleAutoTopups(a.runtime.deps, later()), settleStaleAutoTopups(b.runtime.deps, later()),
      fake.deliver(event, hook(a)), fake.deliver(event, hook(b)),
    ]);
    expect(deliveries).toEqual([200, 200]);
    expect([...sa, ...sb].filter((x) => x.outcome === 'credited').length).toBeLessThanOrEqual(1);
    expect(await payments(org)).toEqual([{ id: pending!.id, status: 'succeeded', payment_intent_id: pi.id }]);
    expect(await stripeCredits(org)).toBe(1);
    expect((await expectWalletMatchesLedger(a.db, org.id)).balance).toBe(100 + 5_000);
    // Settled: the sweep finds nothing more, and a second pass credits nothing.
    expect(await settleStaleAutoTopups(a.runtime.deps, later())).toEqual([]);
    expect(await stripeCredits(org)).toBe(1);
    expect(await failureEvents(org)).toEqual([]);
  }, 120_000);

  it('an answer of "processing" and no event: the sweep reads it by its id, leaves it while Stripe still processes (reading it less and less often), and credits it once it succeeded', async () => {
    const org = await a.createOrg({ credits: 100 });
    await autoTopupOn(org, CARD_OK);
    // Stripe's answer is a PaymentIntent still processing (as a bank's debit is for a while).
    fake.misbehave({ method: 'POST', path: '/v1/payment_intents' }, { rewrite: (body) => ({ ...body, status: 'processing', amount_received: 0, latest_charge: null }) });
    expect(await runAutoTopup(a.runtime.deps, org.id)).toBe('pending');
    const [pending] = await payments(org);
    expect(pending!.payment_intent_id).toMatch(/^pi_/);
    const pi = fake.paymentIntents.get(pending!.payment_intent_id!)!;
    const succeeded = { status: pi.status, amount_received: pi.amount_received, latest_charge: pi.latest_charge };
    Object.assign(pi, { status: 'processing', amount_received: 0, latest_charge: null });
    const lookups = () => fake.calls('GET', `/v1/payment_intents/${pi.id}`).length;
    const before = lookups();
    const t1 = later();
    const at = (ms: number) => new Date(t1.getTime() + ms);
    expect(await settleStaleAutoTopups(a.runtime.deps, t1)).toEqual([{ id: pending!.id, outcome: 'unpaid (processing)' }]);
    expect(lookups()).toBe(before + 1);
    expect((await payments(org)).map((p) => p.status)).toEqual(['pending']);
    expect(await runAutoTopup(a.runtime.deps, org.id)).toBe('none');
    // Still processing: read again a minute later, then two minutes after that, not on every pass.
    expect(await settleStaleAutoTopups(a.runtime.deps, at(30_000))).toEqual([]);
    expect(lookups()).toBe(before + 1);
    expect(await settleStaleAutoTopups(b.runtime.deps, at(61_000))).toEqual([{ id: pending!.id, outcome: 'unpaid (processing)' }]);
    expect(lookups()).toBe(before + 2);
    expect(await settleStaleAutoTopups(a.runtime.deps, at(61_000 + 90_000))).toEqual([]);
    expect(lookups()).toBe(before + 2);
    // Stripe finishes; its event never comes.
    Object.assign(pi, succeeded);
    const t3 = at(61_000 + 121_000);
    const outcomes = await Promise.all([settleStaleAutoTopups(a.runtime.deps, t3), settleStaleAutoTopups(b.runtime.deps, t3)]);
    expect(outcomes.flat().map((o) => o.outcome).sort()).toEqual(['already credited', 'credited']);
    expect((await payments(org)).map((p) => p.status)).toEqual(['succeeded']);
    expect(await stripeCredits(org)).toBe(1);
    expect((await expectWalletMatchesLedger(a.db, org.id)).balance).toBe(100 + 5_000);
  }, 120_000);

  it('declined, but the answer was lost: the sweep and the late event record one failure and free the slot', async () => {
    const org = await a.createOrg({ credits: 100 });
    await autoTopupOn(org, CARD_DECLINED);
    fake.misbehave({ method: 'POST', path: '/v1/payment_intents' }, { lose: true }, 3);
    expect(await runAutoTopup(a.runtime.deps, org.id)).toBe('pending');
    fake.clearMisbehaviour();
    const [pending] = await payments(org);
    expect(await runAutoTopup(a.runtime.deps, org.id)).toBe('none');
    const event = unsentEvent('payment_intent.payment_failed', pending!.id);
    await Promise.all([settleStaleAutoTopups(a.runtime.deps, later()), settleStaleAutoTopups(b.runtime.deps, later()), fake.deliver(event, hook(b))]);
    expect((await payments(org)).map((p) => p.status)).toEqual(['failed']);
    expect(await failureEvents(org)).toEqual([{ reason: 'card_declined', consecutive_failures: 1 }]);
    // The slot is free: the next top-up is tried (and declined, answered this time).
    expect(await runAutoTopup(a.runtime.deps, org.id)).toBe('failed');
    expect((await payments(org)).map((p) => p.status)).toEqual(['failed', 'failed']);
    expect(await failureEvents(org)).toEqual([{ reason: 'card_declined', consecutive_failures: 1 }, { reason: 'card_declined', consecutive_failures: 2 }]);
    expect((await expectWalletMatchesLedger(a.db, org.id)).balance).toBe(100);
  }, 120_000);

  it('a call that never reached Stripe: the sweep finds no PaymentIntent, cancels the claim as a failure, and the next top-up goes through', async () => {
    const org = await a.createOrg({ credits: 100 });
    await autoTopupOn(org, CARD_OK);
    const apiError = { status: 500, body: { error: { type: 'api_error', message: 'An unknown error occurred' } } };
    fake.misbehave({ method: 'POST', path: '/v1/payment_intents' }, { reply: apiError }, 3);
    expect(await runAutoTopup(a.runtime.deps, org.id)).toBe('pending');
    fake.clearMisbehaviour();
    const [pending] = await payments(org);
    expect([...fake.paymentIntents.values()].filter((x) => (x.metadata as Record<string, string>).mmgen_payment_id === pending!.id)).toEqual([]);
    expect(await settleStaleAutoTopups(a.runtime.deps, later())).toEqual([{ id: pending!.id, outcome: 'canceled' }]);
    expect(await failureEvents(org)).toEqual([{ reason: 'no_answer', consecutive_failures: 1 }]);
    expect(await runAutoTopup(a.runtime.deps, org.id)).toBe('credited');
    expect((await payments(org)).map((p) => p.status)).toEqual(['canceled', 'succeeded']);
    expect(await stripeCredits(org)).toBe(1);
    expect((await expectWalletMatchesLedger(a.db, org.id)).balance).toBe(100 + 5_000);
    const billing = (await api('GET', '/v1/billing', { key: org.live })).body;
    expect(billing.auto_topup).toMatchObject({ enabled: true, consecutive_failures: 0 });
  }, 120_000);
  it('the sweep reads the most due first: one never read back by its age, one read back by its next read-back time, none before it is due', async () => {
    // At most one automatic payment is in flight per organization: four organizations, one each.
    const orgs = await Promise.all([1, 2, 3, 4].map(() => a.createOrg({ credits: 100 })));
    const t0 = Date.now();
    const min = (n: number) => new Date(t0 + n * 60_000);
    const ids = ['pay_order_1', 'pay_order_2', 'pay_order_3', 'pay_order_4'].map((id) => `${id}_${backend}_${t0}`);
    const created = [-50, -40, -30, -20];
    for (const [n, id] of ids.entries()) {
      await insertPayment(a.db, { id, organizationId: orgs[n]!.id, kind: 'auto_topup', amount: 500, currency: 'usd', credits: 5_000, period: '2026-11' });
      await a.db.query('UPDATE billing_payments SET created_at = $2 WHERE id = $1', [id, min(created[n]!).toISOString()]);
    }
    // The first was read back at -45 minutes (next at -44), the second at -10 (next at -9); the others never.
    await deferAutoTopupRecheck(a.db, ids[0]!, min(-45));
    await deferAutoTopupRecheck(a.db, ids[1]!, min(-10));
    const due = async (before: Date, now: Date, limit: number) =>
      (await selectStaleAutoTopups(a.db, before, now, limit)).map((p) => p.id).filter((id) => ids.includes(id));
    // At -10 minutes the second is not due again; the fourth is older than the sweep's horizon (-15) only by then.
    expect(await due(min(-15), min(-10), 100)).toEqual([ids[0], ids[2], ids[3]]);
    expect(await due(min(-15), min(0), 100)).toEqual([ids[0], ids[2], ids[3], ids[1]]);
    // A sweep that takes fewer than are due takes the most overdue.
    expect(await due(min(-15), min(0), 2)).toEqual([ids[0], ids[2]]);
  });
});
