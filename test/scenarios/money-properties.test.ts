import fc from 'fast-check';
import Stripe from 'stripe';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { settlePending, topUp } from '../../src/billing/credits.js';
import type { Db } from '../../src/store/db.js';
import { CARD_DECLINED, CARD_OK, FakeStripe, STRIPE_API_VERSION } from '../fakes/stripe.js';
import { walletAndLedger } from '../helpers/money.js';
import { client, describeOnBackend, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Money under random interleavings (issue 9): fast-check draws sequences of
 * steps (sync and async generations that succeed, fail upstream or lose their
 * answer; cancels; retries; top-ups; bursts of concurrent requests; bursts
 * of idempotent duplicates) against a real server with live keys, starting
 * from a small wallet so that 402s happen. After every step, and again once
 * everything is terminal: no wallet below zero, wallet = ledger, reserved =
 * charged + refunded on every terminal generation, no attempt charged twice,
 * and what the wallet lost is exactly what the generations were charged.
 *
 * Money in is in the mix (issue 32), through the strict Stripe fake and the real webhook route on two nodes, its
 * events signed: Checkout purchases paid on the fake's hosted page, events delivered again many times at once to
 * both nodes, full and partial refunds, disputes opened and then won or lost, and auto top-up turned on with a card
 * that pays or is declined (the scheduler then pays while the generations run). Its invariants: each payment
 * credited once (one ledger row, exactly its credits), each refund and dispute moving the ledger once, a won
 * dispute returning once, a payment's refunded credits the sum of its refunds, at most one automatic payment in
 * flight, the month's automatic top-ups within the highest cap set, available credits below zero only after
 * Stripe took credits back, and at the end the wallet equal to what Stripe says was paid, refunded and disputed,
 * plus the operator's top-ups, less the charges. A cent buys 1 credit here, so that refunds of spent credits take
 * wallets below zero (spendThenRefund does so on purpose; a run left below zero is paid back through Checkout at
 * its end, which must lift the billing pause).
 */
vi.setConfig({ testTimeout: 240_000 });

type Outcome = 'success' | 'failure' | 'lost';
type Step =
  | { kind: 'image'; outcome: Outcome }
  | { kind: 'chat'; tokens: number }
  | { kind: 'music'; outcome: Outcome; delayMs: number }
  | { kind: 'cancel'; pick: number }
  | { kind: 'retry'; pick: number }
  | { kind: 'topup'; credits: number }
  | { kind: 'burst'; size: number; outcome: Outcome }
  | { kind: 'duplicates'; size: number; outcome: Outcome }
  | { kind: 'buy'; amount: number }
  | { kind: 'redeliver'; pick: number; copies: number }
  | { kind: 'refund'; pick: number; part: number | 'rest' }
  | { kind: 'dispute'; pick: number; outcome: 'open' | 'won' | 'lost' }
  | { kind: 'closeDispute'; pick: number; outcome: 'won' | 'lost' }
  | { kind: 'spendThenRefund'; amount: number }
  | { kind: 'autoTopup'; threshold: number; amount: number; cap: number; card: 'ok' | 'declined' };

const outcome = fc.constantFrom<Outcome>('success', 'success', 'failure', 'lost');
// Money in is drawn often enough that each run buys, refunds and disputes while generations run.
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('image' as const), outcome }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('chat' as const), tokens: fc.integer({ min: 1, max: 40 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('music' as const), outcome, delayMs: fc.integer({ min: 0, max: 400 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('retry' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('topup' as const), credits: fc.integer({ min: 1, max: 60 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('burst' as const), size: fc.integer({ min: 2, max: 12 }), outcome }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('duplicates' as const), size: fc.integer({ min: 2, max: 8 }), outcome }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('buy' as const), amount: fc.integer({ min: 50, max: 200 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('redeliver' as const), pick: fc.nat(), copies: fc.integer({ min: 2, max: 6 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('refund' as const), pick: fc.nat(), part: fc.oneof(fc.constant('rest' as const), fc.integer({ min: 1, max: 120 })) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('dispute' as const), pick: fc.nat(), outcome: fc.constantFrom('open' as const, 'won' as const, 'lost' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('closeDispute' as const), pick: fc.nat(), outcome: fc.constantFrom('won' as const, 'lost' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('spendThenRefund' as const), amount: fc.integer({ min: 50, max: 80 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('autoTopup' as const), threshold: fc.integer({ min: 0, max: 400 }), amount: fc.integer({ min: 50, max: 100 }),
      cap: fc.integer({ min: 100, max: 300 }), card: fc.constantFrom('ok' as const, 'ok' as const, 'declined' as const),
    }),
  },
);

/**
 * Money in, read from the database: every Stripe ledger row (stripe-payment:, stripe-refund:, stripe-dispute:,
 * stripe-dispute-won:) once and of its record's credits, a payment's refunds summed on it, one automatic payment
 * in flight, and the month's automatic top-ups within `highestCap` (the highest monthly cap the run set; 0: none).
 */
interface Payment { id: string; credits: number; credited: boolean; refunded_credits: number; kind: string; status: string; amount: number; period: string | null }
interface Adjustment { payment_id: string; kind: string; stripe_id: string; credits: number; status: string }

async function checkPaymentInvariants(db: Db, orgId: string, highestCap: number): Promise<void> {
  // One statement, so one snapshot: an event committing between two reads would show a record without its ledger row.
  const snapshot = await db.query<{ payments: Payment[] | null; adjustments: Adjustment[] | null; ledger: { reference: string; n: number; delta: number }[] | null }>(
    `SELECT
       (SELECT json_agg(json_build_object('id', id, 'credits', credits, 'credited', credited_at IS NOT NULL, 'refunded_credits', refunded_credits, 'kind', kind,
          'status', status, 'amount', amount, 'period', period)) FROM billing_payments WHERE organization_id = $1) AS payments,
       (SELECT json_agg(json_build_object('payment_id', payment_id, 'kind', kind, 'stripe_id', stripe_id, 'credits', credits, 'status', status))
          FROM billing_adjustments WHERE organization_id = $1) AS adjustments,
       (SELECT json_agg(json_build_object('reference', reference, 'n', n, 'delta', delta)) FROM (
          SELECT reference, count(*) AS n, sum(balance_delta) AS delta FROM ledger_entries WHERE organization_id = $1 AND reference LIKE 'stripe-%' GROUP BY reference) l) AS ledger`,
    [orgId],
  );
  const payments = { rows: (snapshot.rows[0]!.payments ?? []).map((p) => ({ ...p, credits: Number(p.credits), refunded_credits: Number(p.refunded_credits), amount: Number(p.amount) })) };
  const adjustments = { rows: (snapshot.rows[0]!.adjustments ?? []).map((a) => ({ ...a, credits: Number(a.credits) })) };
  const ledger = { rows: (snapshot.rows[0]!.ledger ?? []).map((r) => ({ ...r, n: Number(r.n), delta: Number(r.delta) })) };
  const rows = new Map(ledger.rows.map((r) => [r.reference, r]));
  expect(ledger.rows.filter((r) => r.n !== 1), 'each Stripe object moves the ledger once').toEqual([]);
  for (const p of payments.rows) {
    const row = rows.get(`stripe-payment:${p.id}`);
    if (p.credited) {
      expect(row?.delta, `payment ${p.id} credited its credits once`).toBe(p.credits);
      expect(p.status).toBe('succeeded');
    } else {
      expect(row, `payment ${p.id} not credited`).toBeUndefined();
    }
  }
  for (const a of adjustments.rows) {
    const taken = rows.get(`stripe-${a.kind}:${a.stripe_id}`);
    if (a.credits > 0) expect(taken?.delta, `${a.kind} ${a.stripe_id} removed its credits once`).toBe(-a.credits);
    else expect(taken).toBeUndefined();
    const returned = rows.get(`stripe-dispute-won:${a.stripe_id}`);
    if (a.kind === 'dispute' && a.status === 'won' && a.credits > 0) expect(returned?.delta, `dispute ${a.stripe_id} won, returned once`).toBe(a.credits);
    else expect(returned).toBeUndefined();
  }
  const known = new Set([
    ...payments.rows.map((p) => `stripe-payment:${p.id}`),
    ...adjustments.rows.map((a) => `stripe-${a.kind}:${a.stripe_id}`),
    ...adjustments.rows.map((a) => `stripe-dispute-won:${a.stripe_id}`),
  ]);
  expect(ledger.rows.map((r) => r.reference).filter((r) => !known.has(r)), 'no Stripe ledger row without its record').toEqual([]);
  for (const p of payments.rows) {
    const refunds = adjustments.rows.filter((a) => a.payment_id === p.id && a.kind === 'refund').reduce((n, a) => n + a.credits, 0);
    expect(p.refunded_credits, `payment ${p.id}'s refunded credits`).toBe(refunds);
    const held = adjustments.rows.filter((a) => a.payment_id === p.id && a.kind === 'dispute' && a.status !== 'won').reduce((n, a) => n + a.credits, 0);
    expect(refunds + held, `payment ${p.id}: never more taken back than it credited`).toBeLessThanOrEqual(p.credited ? p.credits : 0);
  }
  const auto = payments.rows.filter((p) => p.kind === 'auto_topup');
  expect(auto.filter((p) => p.status === 'pending').length, 'one automatic payment in flight').toBeLessThanOrEqual(1);
  const month = new Date().toISOString().slice(0, 7);
  const paidThisMonth = auto.filter((p) => p.period === month && (p.status === 'pending' || p.status === 'succeeded')).reduce((n, p) => n + p.amount, 0);
  expect(paidThisMonth, "the month's automatic top-ups within the cap").toBeLessThanOrEqual(highestCap);
}

async function checkInvariants(db: Db, orgId: string, highestCap = 0): Promise<void> {
  const w = await walletAndLedger(db, orgId);
  expect(w.held).toBeGreaterThanOrEqual(0);
  // Only a refund or a dispute of credits already held or spent takes available credits below zero.
  const removals = await db.query("SELECT 1 FROM ledger_entries WHERE organization_id = $1 AND (reference LIKE 'stripe-refund:%' OR reference LIKE 'stripe-dispute:%') LIMIT 1", [orgId]);
  if (removals.rowCount === 0) expect(w.balance - w.held, 'available credits').toBeGreaterThanOrEqual(0);
  expect({ balance: w.balance, held: w.held }, 'wallet = ledger').toEqual({ balance: w.ledgerBalance, held: w.ledgerHeld });
  const bad = await db.query<{ id: string }>(
    `SELECT id FROM generations WHERE organization_id = $1 AND status IN ('succeeded', 'failed', 'canceled')
       AND reserved_credits <> charged_credits + refunded_credits`,
    [orgId],
  );
  expect(bad.rows, 'reserved = charged + refunded').toEqual([]);
  const doubles = await db.query(
    `SELECT reference FROM ledger_entries WHERE organization_id = $1 AND kind IN ('charge', 'reserve', 'release') GROUP BY kind, reference HAVING count(*) > 1`,
    [orgId],
  );
  expect(doubles.rows, 'one ledger row per kind and attempt').toEqual([]);
  const mismatch = await db.query(
    `SELECT g.id FROM generations g LEFT JOIN ledger_entries l ON l.generation_id = g.id AND l.kind = 'charge'
     WHERE g.organization_id = $1 GROUP BY g.id, g.charged_credits HAVING coalesce(-sum(l.balance_delta), 0) <> g.charged_credits`,
    [orgId],
  );
  expect(mismatch.rows, 'charged = the charge rows').toEqual([]);
  await checkPaymentInvariants(db, orgId, highestCap);
}

describeOnBackend('money under random interleavings', 'postgres', (backend) => {
  let s: TestServer;
  let b: TestServer;
  let api: ReturnType<typeof client>;
  let fake: FakeStripe;
  let operator: Stripe;
  const hook = (t: TestServer) => `${t.url}/v1/billing/stripe/webhook`;

  beforeAll(async () => {
    fake = await new FakeStripe().start();
    const stripe = { ...fake.env(), MMGEN_STRIPE_MIN_AMOUNT: '50', MMGEN_STRIPE_MAX_AMOUNT: '500', MMGEN_STRIPE_CREDITS_PER_UNIT: '1' };
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_WORKER_POLL_MS: '20', MMGEN_SCHEDULER_INTERVAL_MS: '100', ...stripe });
    // A second node on the same database, only for Stripe's events (each is sent to both).
    b = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1', ...stripe }, { worker: false, sameDbAs: s });
    fake.endpoints = [hook(s), hook(b)];
    api = client(s.url);
    // The operator's own Stripe access: refunds are made in Stripe, not in mmgen.
    const u = new URL(fake.url);
    operator = new Stripe(fake.key, { apiVersion: STRIPE_API_VERSION, host: u.hostname, port: Number(u.port), protocol: 'http' });
  });
  afterAll(async () => {
    await fake?.close();
    await b?.close();
    await s?.close();
  });

  type Obj = Record<string, unknown>;
  const customerOf = (orgId: string) => [...fake.customers.values()].find((c) => (c.metadata as Record<string, string>).organization_id === orgId)?.id as string | undefined;
  /** The organization's charges as Stripe has them, oldest first. */
  const chargesOf = (orgId: string): Obj[] => {
    const customer = customerOf(orgId);
    return customer ? [...fake.charges.values()].filter((c) => c.customer === customer && c.paid === true) : [];
  };
  /** The events Stripe made about the organization's objects, for redelivery. */
  const eventsOf = (orgId: string): Obj[] => {
    const customer = customerOf(orgId);
    if (!customer) return [];
    const types = new Set(['checkout.session.completed', 'payment_intent.succeeded', 'payment_intent.payment_failed', 'charge.refunded', 'charge.dispute.created', 'charge.dispute.closed']);
    return fake.events.filter((e) => {
      if (!types.has(e.type as string)) return false;
      const o = (e.data as { object: Obj }).object;
      const owner = o.object === 'dispute' ? fake.charges.get(o.charge as string)?.customer : o.customer;
      return owner === customer;
    });
  };

  it('keeps every invariant after every step and once all is terminal', async () => {
    let run = 0;
    let redelivered = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 120 }), fc.array(step, { minLength: 3, maxLength: 12 }), async (initial, steps) => {
        run++;
        const org = await s.createOrg({ plan: 'team', credits: initial });
        const key = org.live;
        const ids: string[] = [];
        let toppedUp = 0;
        let highestCap = 0;
        let cardSaved = false;
        const gen = (path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
          api('POST', path, { key, body, headers }).then((res) => {
            // A failed or lost upstream answer is a 502 upstream_error naming the (refunded) generation; nothing else is 5xx.
            if (res.status === 502) {
              expect(res.body.error.code).toBe('upstream_error');
              const named = /gen_[0-9A-Za-z]+/.exec(res.body.error.message)?.[0];
              if (named) ids.push(named);
            } else {
              expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
            }
            // A refund or dispute of spent credits pauses the organization: its new work is refused.
            if (res.status === 403) expect(res.body.error.code).toBe('organization_paused');
            if ((res.status === 200 || res.status === 202) && typeof res.body?.id === 'string') ids.push(res.body.id);
            return res;
          });
        const image = (o: Outcome, headers?: Record<string, string>) =>
          gen('/v1/images', { model: 'flux-schnell', prompt: 'money', width: 256, height: 256, seed: 1, cache: false, simulate: { outcome: o } }, headers);
        /** A Checkout of `amount` cents, paid on the fake's hosted page (its events go to both nodes as Stripe sends them). */
        const buy = async (amount: number) => {
          const r = await api('POST', '/v1/billing/checkout', { key, body: { amount } });
          expect(r.status, JSON.stringify(r.body)).toBe(201);
          const paid = await fetch(r.body.url, { method: 'POST', body: new URLSearchParams({ card: CARD_OK }), redirect: 'manual' });
          expect(paid.status).toBe(303);
        };

        for (const st of steps) {
          switch (st.kind) {
            case 'image':
              await image(st.outcome);
              break;
            case 'chat':
              await gen('/v1/chat', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'money' }], max_tokens: 64, simulate: { output_tokens: st.tokens } });
              break;
            case 'music':
              await gen('/v1/music', { model: 'musicgen', prompt: 'money', duration_s: 5, cache: false, simulate: { outcome: st.outcome, delay_ms: st.delayMs } });
              break;
            case 'cancel': {
              const id = ids[st.pick % Math.max(ids.length, 1)];
              if (id) expect([200, 409]).toContain((await api('POST', `/v1/generations/${id}/cancel`, { key })).status);
              break;
            }
            case 'retry': {
              const id = ids[st.pick % Math.max(ids.length, 1)];
              if (id) {
                const res = await api('POST', `/v1/generations/${id}/retry`, { key });
                expect([200, 202, 402, 403, 409]).toContain(res.status);
              }
              break;
            }
            case 'topup':
              await topUp(s.db, { organizationId: org.id, reference: `prop-${run}-${toppedUp}-${st.credits}`, credits: st.credits });
              toppedUp += st.credits;
              break;
            case 'burst':
              await Promise.all(Array.from({ length: st.size }, () => image(st.outcome)));
              break;
            case 'duplicates': {
              const idem = `dup-${run}-${ids.length}-${Math.random()}`;
              const answers = await Promise.all(Array.from({ length: st.size }, () => image(st.outcome, { 'idempotency-key': idem })));
              // One request ran; the others replayed it or were told it is in flight.
              const ran = new Set(answers.filter((a) => a.status === 200 || a.status === 502).map((a) => a.body.id));
              expect(ran.size).toBeLessThanOrEqual(1);
              for (const a of answers) expect([200, 402, 403, 409, 502]).toContain(a.status);
              break;
            }
            case 'buy':
              await buy(st.amount);
              break;
            case 'redeliver': {
              // Stripe sends an event again, many times at once, to both nodes.
              const events = eventsOf(org.id);
              const event = events[st.pick % Math.max(events.length, 1)];
              if (event) {
                const statuses = await Promise.all(Array.from({ length: st.copies }, (_, i) => fake.deliver(event, hook(i % 2 ? b : s))));
                expect(statuses.every((x) => x === 200), JSON.stringify(statuses)).toBe(true);
                redelivered++;
              }
              break;
            }
            case 'refund': {
              // Stripe refuses a refund of a charge with a dispute open or lost (charged back). With nothing to
              // refund, a purchase is made and refunded at once: its events race each other to the two nodes.
              const refundable = () => chargesOf(org.id).filter((c) => !c.disputed && (c.amount_refunded as number) < (c.amount as number));
              if (refundable().length === 0) await buy(50 + (st.pick % 151));
              const charges = refundable();
              const charge = charges[st.pick % Math.max(charges.length, 1)];
              if (charge) {
                const left = (charge.amount as number) - (charge.amount_refunded as number);
                await operator.refunds.create({ charge: charge.id as string, amount: st.part === 'rest' ? left : Math.min(st.part, left) });
              }
              break;
            }
            case 'dispute': {
              // One dispute a charge, of what was not refunded.
              const disputed = new Set([...fake.disputes.values()].map((d) => d.charge));
              const disputable = () => chargesOf(org.id).filter((c) => !disputed.has(c.id) && (c.amount_refunded as number) < (c.amount as number));
              if (disputable().length === 0) await buy(50 + (st.pick % 151));
              const charges = disputable();
              const charge = charges[st.pick % Math.max(charges.length, 1)];
              if (charge) {
                const d = fake.openDispute(charge.id as string, (charge.amount as number) - (charge.amount_refunded as number));
                // Closed at once: its two events race each other to the two nodes.
                if (st.outcome !== 'open') fake.closeDispute(d.id as string, st.outcome);
              }
              break;
            }
            case 'closeDispute': {
              const charges = new Set(chargesOf(org.id).map((c) => c.id));
              const open = [...fake.disputes.values()].filter((d) => charges.has(d.charge) && d.status === 'needs_response');
              const d = open[st.pick % Math.max(open.length, 1)];
              if (d) fake.closeDispute(d.id as string, st.outcome);
              break;
            }
            case 'spendThenRefund': {
              // Bought, spent (images until the wallet refuses), then refunded in full: the wallet goes below zero
              // and the organization is paused until a payment brings it back.
              await buy(st.amount);
              await fake.settled();
              const charge = chargesOf(org.id).at(-1)!;
              for (let round = 0; round < 6; round++) {
                const answers = await Promise.all(Array.from({ length: 10 }, () => image('success')));
                if (answers.some((a) => a.status === 402 || a.status === 403)) break;
              }
              await s.runtime.deps.settler.flush();
              if (!charge.disputed && (charge.amount_refunded as number) < (charge.amount as number)) {
                await operator.refunds.create({ charge: charge.id as string });
              }
              break;
            }
            case 'autoTopup': {
              if (!cardSaved) {
                const setup = await api('POST', '/v1/billing/payment-method', { key, body: {} });
                expect(setup.status, JSON.stringify(setup.body)).toBe(201);
                const done = await fetch(setup.body.url, { method: 'POST', body: new URLSearchParams({ card: st.card === 'ok' ? CARD_OK : CARD_DECLINED }), redirect: 'manual' });
                expect(done.status).toBe(303);
                await fake.settled();
                cardSaved = true;
              }
              const on = await api('PUT', '/v1/billing/auto-topup', { key, body: { enabled: true, threshold_credits: st.threshold, amount: st.amount, monthly_cap: st.cap } });
              expect(on.status, JSON.stringify(on.body)).toBe(200);
              highestCap = Math.max(highestCap, st.cap);
              break;
            }
          }
          await checkInvariants(s.db, org.id, highestCap);
        }

        // Stripe's events all sent; no more automatic top-ups; a wallet a refund left below zero paid back (which lifts the pause).
        await fake.settled();
        if (cardSaved) expect((await api('PUT', '/v1/billing/auto-topup', { key, body: { enabled: false, threshold_credits: null, amount: null, monthly_cap: null } })).status).toBe(200);
        // A top-up claimed just before may still be on its way; the scheduler's pass that made it ends before another starts.
        const settledDeadline = Date.now() + 60_000;
        while ((await s.db.query("SELECT 1 FROM billing_payments WHERE organization_id = $1 AND status = 'pending' AND kind = 'auto_topup'", [org.id])).rowCount! > 0) {
          if (Date.now() > settledDeadline) throw new Error('an automatic top-up never settled');
          await new Promise((r) => setTimeout(r, 50));
        }
        await fake.settled();
        const paused = (await api('GET', '/v1/organization', { key })).body;
        if (paused.paused) {
          expect(paused.pause_reason).toMatchObject({ kind: 'billing' });
          await buy(Math.min(500, Math.max(50, -(await walletAndLedger(s.db, org.id)).balance)));
          await fake.settled();
          expect((await api('GET', '/v1/organization', { key })).body.paused).toBe(false);
        }

        // Let every async generation end, then the books must close exactly.
        const deadline = Date.now() + 60_000;
        for (;;) {
          const open = await s.db.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM generations WHERE organization_id = $1 AND status NOT IN ('succeeded', 'failed', 'canceled')",
            [org.id],
          );
          if (open.rows[0]!.n === 0) break;
          if (Date.now() > deadline) throw new Error('generations never ended');
          await new Promise((r) => setTimeout(r, 50));
        }
        await checkInvariants(s.db, org.id, highestCap);
        // Once its pending settlements are applied, the wallet row alone is the settled wallet.
        await settlePending(s.db, org.id);
        expect((await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM wallet_pending WHERE organization_id = $1', [org.id])).rows[0]!.n).toBe(0);
        const w = (await s.db.query<{ balance_credits: number; held_credits: number }>('SELECT balance_credits, held_credits FROM wallets WHERE organization_id = $1', [org.id])).rows[0]!;
        const charged = (await s.db.query<{ c: number }>('SELECT coalesce(sum(charged_credits), 0)::bigint AS c FROM generations WHERE organization_id = $1', [org.id])).rows[0]!;
        expect(w.held_credits).toBe(0);

        // What Stripe says, independently of mmgen's records: paid (every succeeded PaymentIntent of the
        // organization's Customer that names an mmgen payment), refunded, and held by disputes not won (each opened
        // for what was left of its charge). A cent is a credit here.
        const customer = customerOf(org.id);
        const intents = [...fake.paymentIntents.values()].filter((pi) => customer && pi.customer === customer && pi.status === 'succeeded');
        for (const pi of intents) expect((pi.metadata as Record<string, string>).mmgen_payment_id).toMatch(/^pay_/);
        const paidIn = intents.reduce((n, pi) => n + (pi.amount_received as number), 0);
        const charges = new Set(chargesOf(org.id).map((c) => c.id));
        const refunded = [...fake.refunds.values()].filter((r) => charges.has(r.charge) && r.status === 'succeeded').reduce((n, r) => n + (r.amount as number), 0);
        const held = [...fake.disputes.values()].filter((d) => charges.has(d.charge) && d.status !== 'won').reduce((n, d) => n + (d.amount as number), 0);
        const credited = await s.db.query<{ n: number }>("SELECT count(*)::int AS n FROM billing_payments WHERE organization_id = $1 AND credited_at IS NOT NULL", [org.id]);
        expect(credited.rows[0]!.n, 'every payment Stripe took is credited').toBe(intents.length);
        expect(Number(w.balance_credits)).toBe(initial + toppedUp + paidIn - refunded - held - Number(charged.c));
      }),
      {
        numRuns: backend === 'pglite' ? 20 : 25, seed: 20261121, endOnFailure: true,
        // Two runs drawn by hand, before the random ones, so that every kind of money in is met whatever is drawn.
        examples: [
          [10, [
            { kind: 'autoTopup', threshold: 400, amount: 100, cap: 300, card: 'ok' }, { kind: 'image', outcome: 'success' }, { kind: 'buy', amount: 120 },
            { kind: 'redeliver', pick: 0, copies: 4 }, { kind: 'refund', pick: 0, part: 30 }, { kind: 'music', outcome: 'success', delayMs: 200 },
            { kind: 'dispute', pick: 0, outcome: 'lost' }, { kind: 'buy', amount: 90 }, { kind: 'dispute', pick: 1, outcome: 'open' },
            { kind: 'closeDispute', pick: 0, outcome: 'won' }, { kind: 'burst', size: 5, outcome: 'success' }, { kind: 'spendThenRefund', amount: 60 },
            { kind: 'redeliver', pick: 5, copies: 3 }, { kind: 'refund', pick: 0, part: 'rest' }, { kind: 'cancel', pick: 1 },
          ]],
          [0, [
            { kind: 'autoTopup', threshold: 100, amount: 50, cap: 100, card: 'declined' }, { kind: 'image', outcome: 'failure' }, { kind: 'buy', amount: 60 },
            { kind: 'duplicates', size: 3, outcome: 'success' }, { kind: 'spendThenRefund', amount: 50 }, { kind: 'redeliver', pick: 1, copies: 2 },
          ]],
        ],
      },
    );
    // The runs did bring money in every way the mix draws: otherwise the invariants above were checked on nothing.
    const mix = await s.db.query<Record<string, number>>(
      `SELECT
         (SELECT count(*) FROM billing_payments WHERE kind = 'checkout' AND credited_at IS NOT NULL)::int AS bought,
         (SELECT count(*) FROM billing_payments WHERE kind = 'auto_topup' AND credited_at IS NOT NULL)::int AS auto_paid,
         (SELECT count(*) FROM billing_payments WHERE kind = 'auto_topup' AND status = 'failed')::int AS auto_failed,
         (SELECT count(*) FROM billing_adjustments WHERE kind = 'refund')::int AS refunds,
         (SELECT count(*) FROM billing_adjustments WHERE kind = 'dispute')::int AS disputes,
         (SELECT count(*) FROM billing_adjustments WHERE kind = 'dispute' AND status = 'won')::int AS won,
         (SELECT count(*) FROM billing_adjustments WHERE kind = 'dispute' AND status = 'lost')::int AS lost,
         (SELECT count(*) FROM audit_events WHERE action = 'organization.unpaused')::int AS unpaid_back`,
    );
    // Logged, not required: a wallet below zero at the end of a run (then paid back) needs a spendThenRefund step
    // that spent into its purchase and no payment after it; test/integration/stripe-billing.test.ts drives it on purpose.
    const { unpaid_back: unpaidBack, ...counts } = mix.rows[0]!;
    const seen: Record<string, number> = { ...counts, redelivered };
    console.log(`money property mix (${backend}): ${JSON.stringify({ ...seen, unpaid_back: unpaidBack })}`);
    for (const [what, n] of Object.entries(seen)) expect(n, what).toBeGreaterThan(0);
  });
});
