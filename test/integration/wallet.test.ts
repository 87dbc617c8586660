import { afterAll, beforeAll, expect, it } from 'vitest';
import { getWallet, ledgerSums, reserve, settlePending, topUp } from '../../src/billing/credits.js';
import { actualCredits } from '../../src/billing/pricing.js';
import { selectGeneration } from '../../src/store/generations.js';
import { demandOf } from '../../src/generations/upstream-request.js';
import { chargeAndFinish } from '../../src/store/finishing.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';
import { SHIPPED_RECORDS } from '../../src/providers/upstream-models.js';

describeOnBackend('wallet and ledger', 'postgres', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1' });
    api = client(s.url);
  });
  afterAll(async () => s?.close());

  async function expectConsistent(org: TestOrg) {
    const wallet = await getWallet(s.db, org.id);
    const sums = await ledgerSums(s.db, org.id);
    expect(sums).toEqual({ balance_credits: wallet.balance_credits, held_credits: wallet.held_credits });
    expect(wallet.available_credits).toBeGreaterThanOrEqual(0);
    return wallet;
  }

  it('GET /v1/wallet shows balance, held and available; test keys read the same wallet', async () => {
    const org = await s.createOrg({ credits: 1234 });
    const live = await api('GET', '/v1/wallet', { key: org.live });
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ object: 'wallet', balance_credits: 1234, held_credits: 0, available_credits: 1234 });
    expect((await api('GET', '/v1/wallet', { key: org.test })).body).toEqual(live.body);
  });

  it('200 concurrent reservations against a wallet that covers exactly 50: exactly 50 succeed', async () => {
    const org = await s.createOrg({ credits: 50 * 7 });
    const results = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) =>
        s.db.tx((q) => reserve(q, { organizationId: org.id, credits: 7, reference: `race:${i}` })),
      ),
    );
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    const refused = results.filter((r) => r.status === 'rejected');
    expect(ok).toBe(50);
    expect(refused).toHaveLength(150);
    for (const r of refused) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'insufficient_credits', status: 402 });
    const wallet = await expectConsistent(org);
    expect(wallet).toMatchObject({ balance_credits: 350, held_credits: 350, available_credits: 0 });
    const reserves = await s.db.query<{ n: number }>("SELECT count(*)::int AS n FROM ledger_entries WHERE organization_id = $1 AND kind = 'reserve'", [org.id]);
    expect(reserves.rows[0]!.n).toBe(50);
  });

  it('concurrent generations (reserved, charged, settled) and top-ups never lose an update', async () => {
    const org = await s.createOrg({ credits: 100_000 });
    const image = { model: 'flux-schnell', prompt: 'wallet race', width: 256, height: 256 };
    const [answers] = await Promise.all([
      Promise.all(Array.from({ length: 20 }, () => api('POST', '/v1/images', { key: org.live, body: image }))),
      Promise.all(Array.from({ length: 20 }, (_, i) => s.db.tx((q) => topUp(q, { organizationId: org.id, credits: 10, reference: `t:${i}` })))),
    ]);
    for (const a of answers) expect(a.body.status, JSON.stringify(a.body)).toBe('succeeded');
    const charged = answers.reduce((sum, a) => sum + (a.body.charged_credits as number), 0);
    expect(charged).toBeGreaterThan(0);
    // The settler applies the finished generations' pending settlements; the wallet equals the ledger before and after.
    await expectConsistent(org);
    await settlePending(s.db, org.id);
    expect(await expectConsistent(org)).toMatchObject({ balance_credits: 100_000 + 200 - charged, held_credits: 0 });
  });

  it('an attempt finished twice moves money once, and a charge never exceeds its reservation', async () => {
    const w = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1' }, { worker: false });
    try {
      const org = await w.createOrg({ credits: 10_000 });
      const queued = await client(w.url)('POST', '/v1/music', { key: org.live, body: { model: 'musicgen', prompt: 'charged once', duration_s: 5 } });
      expect(queued.status).toBe(202);
      const g = (await selectGeneration(w.db, queued.body.id as string))!;
      const end = { status: 'succeeded' as const, charged: g.price_credits - 1, result: null, error: null, upstreamId: null, outputs: [] };
      const [first] = await chargeAndFinish(w.db, [{ g, end }]);
      const [second] = await chargeAndFinish(w.db, [{ g, end }]);
      expect(first?.status).toBe('succeeded');
      expect(second).toBeNull();
      await settlePending(w.db, org.id);
      const wallet = await getWallet(w.db, org.id);
      expect(await ledgerSums(w.db, org.id)).toEqual({ balance_credits: wallet.balance_credits, held_credits: wallet.held_credits });
      expect(wallet).toMatchObject({ balance_credits: 10_000 - (g.price_credits - 1), held_credits: 0 });
      // What an attempt is charged is the produced units' price capped by the reservation (billing/pricing.ts).
      const model = w.runtime.deps.catalog.find('musicgen')!;
      expect(actualCredits(SHIPPED_RECORDS, model, { ...g, price_credits: 3 }, { outputs: [{ type: 'audio', duration_s: '500' }] }, demandOf(g))).toBe(3);
    } finally {
      await w.close();
    }
  });

  it('the ledger is append-only and the database refuses an overdraft', async () => {
    const org = await s.createOrg({ credits: 10 });
    await expect(s.db.query('UPDATE ledger_entries SET balance_delta = 1000000 WHERE organization_id = $1', [org.id])).rejects.toThrow(/append-only/);
    await expect(s.db.query('DELETE FROM ledger_entries WHERE organization_id = $1', [org.id])).rejects.toThrow(/append-only/);
    await expect(s.db.query('UPDATE wallets SET held_credits = 11 WHERE organization_id = $1', [org.id])).rejects.toThrow(/wallet overdraft/);
    await expectConsistent(org);
  });
});
