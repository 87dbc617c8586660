import Stripe from 'stripe';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CARD_DECLINED, CARD_NEEDS_AUTHENTICATION, CARD_OK, FakeStripe, STRIPE_API_VERSION } from '../fakes/stripe.js';
import { expectWalletMatchesLedger, walletAndLedger } from '../helpers/money.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * Money in through Stripe (issue 32), against the strict loopback fake of Stripe's API (test/fakes/stripe.ts) and
 * two mmgen nodes on one database, each a webhook endpoint of the fake.
 */
describeOnBackend('buying credits through Stripe', 'postgres', (backend) => {
  let fake: FakeStripe;
  let a: TestServer;
  let b: TestServer;
  let api: ReturnType<typeof client>;
  let operator: Stripe;
  const hook = (s: TestServer) => `${s.url}/v1/billing/stripe/webhook`;

  beforeAll(async () => {
    fake = await new FakeStripe().start();
    const env = { ...fake.env(), MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_SCHEDULER_INTERVAL_MS: '50', MMGEN_STRIPE_AUTO_TOPUP_MAX_FAILURES: '3' };
    a = await startTestServer(backend, env);
    b = await startTestServer(backend, env, { sameDbAs: a });
    api = client(a.url);
    fake.endpoints = [hook(a), hook(b)];
    // The operator's own Stripe access (refunds are made in Stripe, not in mmgen).
    const u = new URL(fake.url);
    operator = new Stripe(fake.key, { apiVersion: STRIPE_API_VERSION, host: u.hostname, port: Number(u.port), protocol: 'http' });
  });
  afterAll(async () => {
    await fake?.close();
    await b?.close();
    await a?.close();
  });

  async function balance(org: TestOrg): Promise<number> {
    return (await api('GET', '/v1/wallet', { key: org.live })).body.balance_credits as number;
  }

  async function ledgerRows(org: TestOrg): Promise<{ kind: string; balance_delta: number; reference: string }[]> {
    const r = await a.db.query<{ kind: string; balance_delta: string; reference: string }>(
      'SELECT kind, balance_delta, reference FROM ledger_entries WHERE organization_id = $1 ORDER BY id', [org.id],
    );
    return r.rows.map((x) => ({ kind: x.kind, balance_delta: Number(x.balance_delta), reference: x.reference }));
  }

  /** Checkout of `amount` cents, paid on the fake's hosted page with `card`; returns the session id. */
  async function buy(org: TestOrg, amount: number, card = CARD_OK): Promise<string> {
    const r = await api('POST', '/v1/billing/checkout', { key: org.live, body: { amount } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.url).toMatch(new RegExp(`^${fake.url}/pay/cs_`));
    const page = await fetch(r.body.url);
    expect(page.status).toBe(200);
    const paid = await fetch(r.body.url, { method: 'POST', body: new URLSearchParams({ card }), redirect: 'manual' });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toContain(`checkout_session_id=${r.body.id}`);
    return r.body.id as string;
  }

  it('without Stripe configured nothing changes: billing says so and checkout is refused', async () => {
    const plain = await startTestServer(backend, {}, { worker: false, sameDbAs: a });
    try {
      const org = await plain.createOrg();
      const c = client(plain.url);
      expect((await c('GET', '/v1/billing', { key: org.live })).body).toMatchObject({ enabled: false, currency: null });
      const r = await c('POST', '/v1/billing/checkout', { key: org.live, body: { amount: 1000 } });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('feature_not_available');
    } finally {
      await plain.close();
    }
  });

  it('refuses amounts outside the operator\'s bounds, test keys and viewers', async () => {
    const org = await a.createOrg();
    expect((await api('POST', '/v1/billing/checkout', { key: org.live, body: { amount: 10 } })).body.error).toMatchObject({ code: 'parameter_invalid', param: 'amount' });
    expect((await api('POST', '/v1/billing/checkout', { key: org.live, body: { amount: 10_000_000 } })).body.error).toMatchObject({ code: 'parameter_invalid' });
    expect((await api('POST', '/v1/billing/checkout', { key: org.test, body: { amount: 1000 } })).body.error).toMatchObject({ code: 'live_mode_required' });
    expect((await api('POST', '/v1/billing/checkout', { key: org.live, body: { amount: 1000, return_url: 'https://evil.example/x' } })).body.error.param).toBe('return_url');
  });

  it('a paid Checkout credits once: the same event 5 times concurrently to two nodes, the return page, and the events as sent', async () => {
    const org = await a.createOrg();
    const sessionId = await buy(org, 1000);
    await fake.settled();
    const event = fake.eventsOf('checkout.session.completed').find((e) => (e.data as { object: { id: string } }).object.id === sessionId)!;
    const statuses = await Promise.all([a, b].flatMap((s) => Array.from({ length: 5 }, () => fake.deliver(event, hook(s)))));
    expect(statuses.every((s) => s === 200)).toBe(true);
    const back = await api('GET', `/v1/billing/checkout/${sessionId}`, { key: org.live });
    expect(back.status).toBe(200);
    expect(back.body.wallet.balance_credits).toBe(10_000);
    expect(back.body.payment).toMatchObject({ status: 'succeeded', credits: 10_000, amount: 1000, currency: 'usd' });
    expect(back.body.payment.receipt_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/receipts\/ch_/);
    expect(await balance(org)).toBe(10_000);
    expect((await ledgerRows(org)).filter((r) => r.kind === 'topup')).toHaveLength(1);
    await expectWalletMatchesLedger(a.db, org.id);
    const list = await api('GET', '/v1/billing/payments', { key: org.live });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ type: 'payment', status: 'succeeded', credits: 10_000 });
    // The Customer is the organization's, and the fake saw only well-formed calls (it refuses any other).
    expect([...fake.customers.values()].filter((c) => (c.metadata as Record<string, string>).organization_id === org.id)).toHaveLength(1);
    // The audit log records the money once, as the payment's: who (Stripe, through the system), how much, the balance after.
    const audit = (await api('GET', '/v1/audit-events?action=billing.payment_credited', { key: org.live })).body.data;
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor: { type: 'system', id: 'stripe' }, target: { type: 'payment' }, after: { credits: 10_000, amount: 1000, currency: 'usd', balance_credits: 10_000 } });
  });

  it('a forged, unsigned or stale event credits nothing; the genuine one then credits', async () => {
    const org = await a.createOrg();
    fake.autoDeliver = false;
    let event: Record<string, unknown>;
    try {
      const sessionId = await buy(org, 700);
      event = fake.eventsOf('checkout.session.completed').find((e) => (e.data as { object: { id: string } }).object.id === sessionId)!;
    } finally {
      fake.autoDeliver = true;
    }
    expect(await fake.deliver(event, hook(a), { secret: 'whsec_forged0000000000000000' })).toBe(403);
    expect(await fake.deliver(event, hook(a), { signature: null })).toBe(403);
    expect(await fake.deliver(event, hook(b), { timestamp: Math.floor(Date.now() / 1000) - 3600 })).toBe(403);
    expect(await fake.deliver(event, hook(b), { signature: 't=1,v1=deadbeef' })).toBe(403);
    expect(await balance(org)).toBe(0);
    expect(await fake.deliver(event, hook(b))).toBe(200);
    expect(await balance(org)).toBe(7_000);
    await expectWalletMatchesLedger(a.db, org.id);
  });

  it("another mode's or account's events are acknowledged, credit nothing and are not retried; the genuine payment then credits once", async () => {
    const org = await a.createOrg();
    fake.autoDeliver = false;
    try {
      const started = await api('POST', '/v1/billing/checkout', { key: org.live, body: { amount: 1000 } });
      // Each names this organization's pending payment, as a copy of its metadata would.
      const metadata = { mmgen_payment_id: started.body.payment_id as string, organization_id: org.id };
      const live = fake.paymentElsewhere({ livemode: true, metadata });
      const connected = fake.paymentElsewhere({ account: 'acct_connected0001', metadata });
      const unmarked = fake.paymentElsewhere({ account: 'acct_otherplatform', metadata });
      const read = (o: Record<string, unknown>) => fake.calls('GET', new RegExp(`/${String(o.id)}$`)).length;

      // Known foreign from the envelope (live mode under a test key; a connected account's): acknowledged unread.
      const marked = [
        fake.emit('payment_intent.succeeded', live.paymentIntent), fake.emit('charge.refunded', live.charge),
        fake.emit('payment_intent.succeeded', connected.paymentIntent, { account: 'acct_connected0001' }),
        fake.emit('charge.refunded', connected.charge, { account: 'acct_connected0001' }),
      ];
      for (const e of marked) expect(await Promise.all([fake.deliver(e, hook(a)), fake.deliver(e, hook(b))])).toEqual([200, 200]);
      for (const o of [live.paymentIntent, live.charge, connected.paymentIntent, connected.charge]) expect(read(o)).toBe(0);

      // Not marked, but Stripe says the object is not in this account (404 resource_missing): acknowledged too.
      expect(await fake.deliver(fake.emit('payment_intent.succeeded', unmarked.paymentIntent), hook(a))).toBe(200);
      expect(await fake.deliver(fake.emit('charge.refunded', unmarked.charge), hook(b))).toBe(200);
      expect(read(unmarked.paymentIntent) + read(unmarked.charge)).toBeGreaterThan(0);
      expect(await balance(org)).toBe(0);
      expect((await api('GET', '/v1/billing/payments', { key: org.live })).body.data[0]).toMatchObject({ status: 'pending', credits: 0 });

      // The genuine payment credits once, whatever foreign events come before or after it.
      fake.completeSession(started.body.id as string);
      const genuine = fake.eventsOf('checkout.session.completed').find((e) => (e.data as { object: { id: string } }).object.id === started.body.id)!;
      expect(await fake.deliver(genuine, hook(a))).toBe(200);
      for (const e of marked) expect(await fake.deliver(e, hook(b))).toBe(200);
      expect(await balance(org)).toBe(10_000);
      expect((await ledgerRows(org)).filter((r) => r.kind === 'topup')).toHaveLength(1);
      await expectWalletMatchesLedger(a.db, org.id);
    } finally {
      fake.autoDeliver = true;
    }
  });

  it('an event whose object the API says is unpaid credits nothing, however the event describes it', async () => {
    const org = await a.createOrg();
    const r = await api('POST', '/v1/billing/checkout', { key: org.live, body: { amount: 2000 } });
    const session = fake.sessions.get(r.body.id)!;
    // A correctly signed event (the secret leaked, or an event body edited in transit) that claims the session is paid.
    const lie = fake.emit('checkout.session.completed', { ...session, status: 'complete', payment_status: 'paid' });
    await fake.settled();
    expect(await fake.deliver(lie, hook(a))).toBe(200);
    expect(await balance(org)).toBe(0);
    expect((await api('GET', '/v1/billing/payments', { key: org.live })).body.data[0]).toMatchObject({ status: 'pending', credits: 0 });
  });

  it('a refund and a dispute move the ledger once each; the wallet equals the ledger; a wallet taken below zero pauses until paid', async () => {
    const org = await a.createOrg();
    const sessionId = await buy(org, 1000);
    await fake.settled();
    expect(await balance(org)).toBe(10_000);
    const pi = fake.sessions.get(sessionId)!.payment_intent as string;
    const charge = fake.paymentIntents.get(pi)!.latest_charge as string;

    await operator.refunds.create({ charge, amount: 300 });
    await fake.settled();
    const refunded = fake.eventsOf('charge.refunded').at(-1)!;
    await Promise.all([fake.deliver(refunded, hook(a)), fake.deliver(refunded, hook(b)), fake.deliver(refunded, hook(a))]);
    expect(await balance(org)).toBe(7_000);
    expect((await ledgerRows(org)).filter((r) => r.reference.startsWith('stripe-refund:'))).toEqual([expect.objectContaining({ kind: 'adjustment', balance_delta: -3000 })]);
    expect((await api('GET', '/v1/audit-events?action=billing.refunded', { key: org.live })).body.data).toEqual([
      expect.objectContaining({ actor: expect.objectContaining({ type: 'system', id: 'stripe' }), after: expect.objectContaining({ amount: 300, credits: -3000, balance_credits: 7_000 }) }),
    ]);
    await expectWalletMatchesLedger(a.db, org.id);

    // The dispute holds what is left of the payment's credits; replays and the closing event move nothing more.
    const dispute = fake.openDispute(charge, 700);
    await fake.settled();
    expect(await balance(org)).toBe(0);
    const opened = fake.eventsOf('charge.dispute.created').at(-1)!;
    await Promise.all([fake.deliver(opened, hook(a)), fake.deliver(opened, hook(b))]);
    expect(await balance(org)).toBe(0);
    fake.closeDispute(dispute.id as string, 'won');
    await fake.settled();
    const closed = fake.eventsOf('charge.dispute.closed').at(-1)!;
    await Promise.all([fake.deliver(closed, hook(a)), fake.deliver(closed, hook(b)), fake.deliver(opened, hook(b))]);
    expect(await balance(org)).toBe(7_000);
    const rows = await ledgerRows(org);
    expect(rows.filter((r) => r.reference.startsWith('stripe-dispute:'))).toEqual([expect.objectContaining({ balance_delta: -7000 })]);
    expect(rows.filter((r) => r.reference.startsWith('stripe-dispute-won:'))).toEqual([expect.objectContaining({ balance_delta: 7000 })]);
    await expectWalletMatchesLedger(a.db, org.id);
    const history = (await api('GET', '/v1/billing/payments', { key: org.live })).body.data as { type: string; status: string; credits: number }[];
    expect(history.map((h) => [h.type, h.status, h.credits]).sort()).toEqual([['dispute', 'won', 0], ['payment', 'succeeded', 10_000], ['refund', 'succeeded', -3000]].sort());

    // Spend some of it, then the rest of the payment is refunded: the wallet goes below zero and accepts no new work.
    const gen = await api('POST', '/v1/images', { key: org.live, body: { model: 'flux-schnell', prompt: 'spend before the refund', width: 256, height: 256 } });
    expect(gen.body.status, JSON.stringify(gen.body)).toBe('succeeded');
    await a.runtime.deps.settler.flush();
    const spent = 7_000 - (await balance(org));
    expect(spent).toBeGreaterThan(0);
    await operator.refunds.create({ charge, amount: 700 });
    await fake.settled();
    expect(await balance(org)).toBe(-spent);
    await expectWalletMatchesLedger(a.db, org.id);
    const refused = await api('POST', '/v1/images', { key: org.live, body: { model: 'flux-schnell', prompt: 'after the refund', width: 256, height: 256 } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('organization_paused');
    expect((await api('GET', '/v1/organization', { key: org.live })).body.pause_reason).toMatchObject({ kind: 'billing' });
    // A payment that brings it back to zero or more lifts the pause in the same transaction.
    await buy(org, 500);
    await fake.settled();
    expect(await balance(org)).toBe(5_000 - spent);
    expect((await api('GET', '/v1/organization', { key: org.live })).body.paused).toBe(false);
    await expectWalletMatchesLedger(a.db, org.id);
   }, 120_000);

  it("a refund's or a dispute's event that comes before the payment's: the payment is credited first, then the credits taken back, once each", async () => {
    const org = await a.createOrg();
    const late = await a.createOrg();
    fake.autoDeliver = false;
    try {
      // Paid in Stripe; its own events wait (a failed delivery Stripe retries later).
      const paid = async (o: TestOrg) => {
        const r = await api('POST', '/v1/billing/checkout', { key: o.live, body: { amount: 1000 } });
        expect(fake.completeSession(r.body.id as string)).toHaveProperty('session');
        const pi = fake.sessions.get(r.body.id as string)!.payment_intent as string;
        return { sessionId: r.body.id as string, charge: fake.paymentIntents.get(pi)!.latest_charge as string };
      };
      const first = await paid(org);
      await operator.refunds.create({ charge: first.charge, amount: 400 });
      const refunded = fake.eventsOf('charge.refunded').at(-1)!;
      expect(await Promise.all([fake.deliver(refunded, hook(a)), fake.deliver(refunded, hook(b))])).toEqual([200, 200]);
      expect(await balance(org)).toBe(10_000 - 4_000);

      const second = await paid(late);
      const dispute = fake.openDispute(second.charge, 1000);
      const opened = fake.eventsOf('charge.dispute.created').find((e) => (e.data as { object: { id: string } }).object.id === dispute.id)!;
      expect(await Promise.all([fake.deliver(opened, hook(b)), fake.deliver(opened, hook(a))])).toEqual([200, 200]);
      expect(await balance(late)).toBe(0);

      // The payments' own events, late, to both nodes: nothing more moves.
      for (const { sessionId } of [first, second]) {
        const mine = fake.events.filter((e) => {
          const o = (e.data as { object: { id: string; payment_intent?: string } }).object;
          return o.id === sessionId || o.id === fake.sessions.get(sessionId)!.payment_intent;
        });
        expect(mine.length).toBeGreaterThanOrEqual(2);
        for (const e of mine) expect(await Promise.all([fake.deliver(e, hook(a)), fake.deliver(e, hook(b))])).toEqual([200, 200]);
      }
    } finally {
      fake.autoDeliver = true;
    }
    expect(await balance(org)).toBe(6_000);
    expect(await balance(late)).toBe(0);
    expect((await ledgerRows(org)).filter((r) => r.reference.startsWith('stripe-')).map((r) => r.balance_delta)).toEqual([10_000, -4_000]);
    expect((await ledgerRows(late)).filter((r) => r.reference.startsWith('stripe-')).map((r) => r.balance_delta)).toEqual([10_000, -10_000]);
    await expectWalletMatchesLedger(a.db, org.id);
    await expectWalletMatchesLedger(a.db, late.id);
  });

  /** Saves `card` through a setup-mode Checkout and turns auto top-up on. */
  async function autoTopupOn(org: TestOrg, card: string, s: { threshold_credits: number; amount: number; monthly_cap: number }): Promise<void> {
    const setup = await api('POST', '/v1/billing/payment-method', { key: org.live, body: {} });
    expect(setup.status, JSON.stringify(setup.body)).toBe(201);
    const done = await fetch(setup.body.url, { method: 'POST', body: new URLSearchParams({ card }), redirect: 'manual' });
    expect(done.status).toBe(303);
    await fake.settled();
    expect((await api('GET', '/v1/billing', { key: org.live })).body.payment_method_saved).toBe(true);
    const on = await api('PUT', '/v1/billing/auto-topup', { key: org.live, body: { enabled: true, ...s } });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    // Both are in the organization's audit log: the card saved once (by Stripe's event, whatever redelivers it), the
    // settings by the owner's key, before and after.
    const audit = async (action: string) => (await api('GET', `/v1/audit-events?action=${action}&limit=10`, { key: org.live })).body.data as any[];
    expect((await audit('billing.payment_method_saved')).map((e) => [e.actor.type, e.after.payment_method_saved])).toEqual([['system', true]]);
    const [changed] = await audit('billing.auto_topup_changed');
    expect(changed).toMatchObject({ actor: { type: 'api_key' }, before: { enabled: false }, after: { enabled: true, ...s } });
  }

  async function autoPayments(org: TestOrg): Promise<{ status: string; amount: number }[]> {
    const r = await a.db.query<{ status: string; amount: string }>("SELECT status, amount FROM billing_payments WHERE organization_id = $1 AND kind = 'auto_topup' ORDER BY seq", [org.id]);
    return r.rows.map((x) => ({ status: x.status, amount: Number(x.amount) }));
  }

  it('auto top-up under 200 concurrent generations: one payment in flight at a time, the month\'s cap never exceeded', async () => {
    // A threshold always above the balance: only the cap stops the top-ups (3 of 500).
    const org = await a.createOrg({ credits: 2_000 });
    await autoTopupOn(org, CARD_OK, { threshold_credits: 1_000_000, amount: 500, monthly_cap: 1_500 });
    let maxPending = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const r = await a.db.query<{ n: number }>("SELECT count(*)::int AS n FROM billing_payments WHERE organization_id = $1 AND status = 'pending'", [org.id]);
        maxPending = Math.max(maxPending, r.rows[0]!.n);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const image = { model: 'flux-schnell', prompt: 'auto top-up burst', width: 256, height: 256 };
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => client(i % 2 ? b.url : a.url)('POST', '/v1/images', { key: org.live, body: image })));
    // The scheduler runs on both nodes every 50 ms: let it see the spend.
    await new Promise((r) => setTimeout(r, 1500));
    sampling = false;
    await sampler;
    await fake.settled();
    expect(answers.some((x) => x.body.status === 'succeeded')).toBe(true);
    const pays = await autoPayments(org);
    expect(maxPending).toBeLessThanOrEqual(1);
    expect(pays).toEqual([{ status: 'succeeded', amount: 500 }, { status: 'succeeded', amount: 500 }, { status: 'succeeded', amount: 500 }]);
    const customer = [...fake.customers.values()].find((c) => (c.metadata as Record<string, string>).organization_id === org.id)!.id;
    const confirms = fake.offSessionConfirms.filter((c) => c.customer === customer);
    expect(confirms.reduce((s, c) => s + c.amount, 0)).toBeLessThanOrEqual(1_500);
    await a.runtime.deps.settler.flush();
    await expectWalletMatchesLedger(a.db, org.id);
    const topups = (await ledgerRows(org)).filter((r) => r.reference.startsWith('stripe-payment:'));
    expect(topups).toHaveLength(pays.filter((p) => p.status === 'succeeded').length);
  }, 120_000);

  it('a failing card stops after the configured attempts, each told by billing.auto_topup_failed; a card needing 3-D Secure stops at once', async () => {
    const org = await a.createOrg({ credits: 100 });
    await autoTopupOn(org, CARD_DECLINED, { threshold_credits: 5_000, amount: 500, monthly_cap: 100_000 });
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && (await api('GET', '/v1/billing', { key: org.live })).body.auto_topup.enabled) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    const billing = (await api('GET', '/v1/billing', { key: org.live })).body;
    expect(billing.auto_topup).toMatchObject({ enabled: false, consecutive_failures: 3 });
    expect((await autoPayments(org)).map((p) => p.status)).toEqual(['failed', 'failed', 'failed']);
    const events = await a.db.query<{ data: { consecutive_failures: number; auto_topup_stopped: boolean; reason: string } }>(
      "SELECT data FROM events WHERE organization_id = $1 AND type = 'billing.auto_topup_failed' ORDER BY created_at", [org.id],
    );
    expect(events.rows.map((e) => [e.data.consecutive_failures, e.data.auto_topup_stopped, e.data.reason])).toEqual([[1, false, 'card_declined'], [2, false, 'card_declined'], [3, true, 'card_declined']]);
    // Each failure is in the audit log too, by Stripe's side of mmgen (newest first).
    const failures = (await api('GET', '/v1/audit-events?action=billing.auto_topup_failed&limit=10', { key: org.live })).body.data as any[];
    expect(failures.map((e) => [e.actor.type, e.after.consecutive_failures, e.after.auto_topup_stopped])).toEqual([['system', 3, true], ['system', 2, false], ['system', 1, false]]);
    expect(await balance(org)).toBe(100);

    const sca = await a.createOrg({ credits: 100 });
    await autoTopupOn(sca, CARD_NEEDS_AUTHENTICATION, { threshold_credits: 5_000, amount: 500, monthly_cap: 100_000 });
    await new Promise((r) => setTimeout(r, 1000));
    expect((await autoPayments(sca)).map((p) => p.status)).toEqual(['requires_action']);
    expect((await api('GET', '/v1/billing', { key: sca.live })).body.auto_topup).toMatchObject({ enabled: false, consecutive_failures: 1 });
    await expectWalletMatchesLedger(a.db, sca.id);
    const w = await walletAndLedger(a.db, sca.id);
    expect(w.balance).toBe(100);
   }, 120_000);
});
