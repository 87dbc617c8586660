import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/domain/organizations.js';
import { operatorOrigin } from '../../src/domain/audit.js';
import type { Db } from '../../src/store/db.js';
import { FakeStripe, STRIPE_API_VERSION } from '../fakes/stripe.js';
import { expectWalletMatchesLedger } from '../helpers/money.js';
import { spawnMmgen, until, type MmgenProcess } from '../helpers/processes.js';
import { freshDb } from '../helpers/server.js';

/**
 * A node killed with SIGKILL while it handles a Stripe event (the chaos test's harness: real `mmgen serve`
 * processes on one PostgreSQL): Stripe sends the event again, to this node restarted or to another, and the
 * payment is credited exactly once, whether the kill came before the credit or right after its commit; and a
 * refund's or a dispute's event, killed the same two ways, moves the ledger exactly once.
 */
describe('chaos: the node handling a Stripe event killed with SIGKILL', { tags: ['postgres'] }, () => {
  let fake: FakeStripe;
  let db: Db;
  let drop: () => Promise<void>;
  let env: Record<string, string>;
  const dirs: string[] = [];
  const procs: MmgenProcess[] = [];

  const node = async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmgen-stripe-chaos-'));
    dirs.push(dir);
    const p = await spawnMmgen(['serve', '--no-worker'], { ...env, MMGEN_DATA_DIR: dir });
    procs.push(p);
    return p;
  };

  beforeAll(async () => {
    fake = await new FakeStripe().start();
    fake.autoDeliver = false;
    const fresh = await freshDb('postgres');
    db = fresh.db;
    drop = fresh.drop;
    env = { DATABASE_URL: fresh.url!, ...fake.env(), MMGEN_DB_POOL_SIZE: '5', MMGEN_SHUTDOWN_GRACE_MS: '1000' };
  });

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop()));
    await fake?.close();
    await db?.close();
    await drop?.();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  async function paidEvent(url: string, key: string): Promise<{ event: Record<string, unknown>; sessionId: string }> {
    const r = await fetch(`${url}/v1/billing/checkout`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ amount: 1500 }) });
    expect(r.status).toBe(201);
    const { id } = (await r.json()) as { id: string };
    expect(fake.completeSession(id)).toHaveProperty('session');
    const event = fake.eventsOf('checkout.session.completed').find((e) => (e.data as { object: { id: string } }).object.id === id)!;
    return { event, sessionId: id };
  }

  async function credits(orgId: string): Promise<{ balance: number; topups: number }> {
    const w = await expectWalletMatchesLedger(db, orgId);
    const t = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM ledger_entries WHERE organization_id = $1 AND kind = 'topup' AND reference LIKE 'stripe-payment:%'", [orgId]);
    return { balance: w.balance, topups: t.rows[0]!.n };
  }

  it('killed while it reads the event\'s object from Stripe: the redelivery to another node credits once', async () => {
    const [a, b] = [await node(), await node()];
    const org = await createOrganization(db, { name: 'chaos billing', plan: 'team', enterprise: false, credits: 0 }, operatorOrigin('test'));
    const { event } = await paidEvent(b.url, org.keys.live);
    // Stripe's answer to A's read never comes: A is mid-event when it dies.
    fake.misbehave({ method: 'GET', path: /^\/v1\/checkout\/sessions\// }, { hang: true });
    const arrivedBefore = fake.calls('GET', /^\/v1\/checkout\/sessions\//).length;
    const delivery = fake.deliver(event, `${a.url}/v1/billing/stripe/webhook`);
    await until('A reads the session', async () => fake.calls('GET', /^\/v1\/checkout\/sessions\//).length > arrivedBefore, 20_000, 20);
    a.proc.kill('SIGKILL');
    expect(await delivery).toBe(0);
    fake.clearMisbehaviour();
    expect(await credits(org.organization.id)).toEqual({ balance: 0, topups: 0 });
    // Stripe retries: to B, and again to B, all at once.
    const statuses = await Promise.all([1, 2, 3].map(() => fake.deliver(event, `${b.url}/v1/billing/stripe/webhook`)));
    expect(statuses).toEqual([200, 200, 200]);
    expect(await credits(org.organization.id)).toEqual({ balance: 15_000, topups: 1 });
  }, 300_000);

  it('killed right after the credit committed: redeliveries to it restarted and to another node credit nothing more', async () => {
    const [a, b] = [await node(), procs[1]!];
    const org = await createOrganization(db, { name: 'chaos billing 2', plan: 'team', enterprise: false, credits: 0 }, operatorOrigin('test'));
    const { event } = await paidEvent(b.url, org.keys.live);
    const delivery = fake.deliver(event, `${a.url}/v1/billing/stripe/webhook`);
    await until('the payment is credited', async () => {
      const r = await db.query('SELECT 1 FROM billing_payments WHERE organization_id = $1 AND credited_at IS NOT NULL', [org.organization.id]);
      return r.rowCount === 1;
    }, 30_000, 5);
    a.proc.kill('SIGKILL');
    await delivery;
    const restarted = await node();
    const statuses = await Promise.all([
      fake.deliver(event, `${restarted.url}/v1/billing/stripe/webhook`),
      fake.deliver(event, `${b.url}/v1/billing/stripe/webhook`),
      fake.deliver(event, `${restarted.url}/v1/billing/stripe/webhook`),
    ]);
    expect(statuses).toEqual([200, 200, 200]);
    expect(await credits(org.organization.id)).toEqual({ balance: 15_000, topups: 1 });
  }, 300_000);

  /** The ledger rows a refund or dispute wrote (reference stripe-refund:… or stripe-dispute:…), with the wallet checked against the ledger. */
  async function removals(orgId: string, prefix: string): Promise<{ balance: number; rows: number[] }> {
    const w = await expectWalletMatchesLedger(db, orgId);
    const r = await db.query<{ d: string }>('SELECT balance_delta AS d FROM ledger_entries WHERE organization_id = $1 AND reference LIKE $2 ORDER BY id', [orgId, `${prefix}%`]);
    return { balance: w.balance, rows: r.rows.map((x) => Number(x.d)) };
  }

  // A refund of 500 of the 1500 cents removes 5,000 credits; a dispute of 600 holds 6,000.
  const cases = [
    { kind: 'refund', prefix: 'stripe-refund:', read: /^\/v1\/refunds$/, moved: -5_000 },
    { kind: 'dispute', prefix: 'stripe-dispute:', read: /^\/v1\/disputes\//, moved: -6_000 },
  ] as const;

  for (const c of cases) {
    for (const when of ['while it reads the object from Stripe', 'right after its ledger row committed'] as const) {
      it(`a ${c.kind} event, the node killed ${when}: redeliveries to another node and to it restarted move the ledger once`, async () => {
        const b = procs[1]!;
        const a = await node();
        const org = await createOrganization(db, { name: `chaos ${c.kind}`, plan: 'team', enterprise: false, credits: 0 }, operatorOrigin('test'));
        const orgId = org.organization.id;
        const { event: paid, sessionId } = await paidEvent(b.url, org.keys.live);
        expect(await fake.deliver(paid, `${b.url}/v1/billing/stripe/webhook`)).toBe(200);
        expect(await credits(orgId)).toEqual({ balance: 15_000, topups: 1 });
        const charge = fake.paymentIntents.get(fake.sessions.get(sessionId)!.payment_intent as string)!.latest_charge as string;
        let event: Record<string, unknown>;
        if (c.kind === 'refund') {
          const u = new URL(fake.url);
          const operator = new Stripe(fake.key, { apiVersion: STRIPE_API_VERSION, host: u.hostname, port: Number(u.port), protocol: 'http' });
          await operator.refunds.create({ charge, amount: 500 });
          event = fake.eventsOf('charge.refunded').findLast((e) => (e.data as { object: { id: string } }).object.id === charge)!;
        } else {
          const dispute = fake.openDispute(charge, 600);
          event = fake.eventsOf('charge.dispute.created').findLast((e) => (e.data as { object: { id: string } }).object.id === dispute.id)!;
        }
        expect(event).toBeDefined();

        const hang = when === 'while it reads the object from Stripe';
        // Stripe's answer to A's read never comes: A is mid-event when it dies.
        if (hang) fake.misbehave({ method: 'GET', path: c.read }, { hang: true });
        const before = fake.calls('GET', c.read).length;
        const delivery = fake.deliver(event, `${a.url}/v1/billing/stripe/webhook`);
        if (hang) {
          await until(`A reads the ${c.kind}`, async () => fake.calls('GET', c.read).length > before, 20_000, 20);
          a.proc.kill('SIGKILL');
          expect(await delivery).toBe(0);
          fake.clearMisbehaviour();
          expect(await removals(orgId, c.prefix)).toEqual({ balance: 15_000, rows: [] });
        } else {
          await until(`the ${c.kind} is in the ledger`, async () => (await removals(orgId, c.prefix)).rows.length === 1, 30_000, 5);
          a.proc.kill('SIGKILL');
          await delivery;
        }
        const restarted = await node();
        const statuses = await Promise.all([
          fake.deliver(event, `${b.url}/v1/billing/stripe/webhook`),
          fake.deliver(event, `${restarted.url}/v1/billing/stripe/webhook`),
          fake.deliver(event, `${b.url}/v1/billing/stripe/webhook`),
        ]);
        expect(statuses).toEqual([200, 200, 200]);
        expect(await removals(orgId, c.prefix)).toEqual({ balance: 15_000 + c.moved, rows: [c.moved] });
        const adjustments = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM billing_adjustments WHERE organization_id = $1 AND kind = $2', [orgId, c.kind]);
        expect(adjustments.rows[0]!.n).toBe(1);
        await restarted.stop();
      }, 300_000);
    }
  }
});
