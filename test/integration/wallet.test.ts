import { afterAll, beforeAll, expect, it } from 'vitest';
import { getWallet, ledgerSums, reserve, settle, topUp } from '../../src/domain/credits.js';
import { client, describeEachBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

describeEachBackend('wallet and ledger', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    s = await startTestServer(backend);
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

  it('concurrent top-ups and settlements never lose an update', async () => {
    const org = await s.createOrg({ credits: 1000 });
    for (let i = 0; i < 20; i++) await s.db.tx((q) => reserve(q, { organizationId: org.id, credits: 50, reference: `r:${i}` }));
    await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => s.db.tx((q) => settle(q, { organizationId: org.id, reserved: 50, charged: i % 2 ? 50 : 20, reference: `r:${i}` }))),
      ...Array.from({ length: 20 }, (_, i) => s.db.tx((q) => topUp(q, { organizationId: org.id, credits: 10, reference: `t:${i}` }))),
    ]);
    const wallet = await expectConsistent(org);
    // 10 settlements charged 50, 10 charged 20; 20 top-ups of 10.
    expect(wallet).toMatchObject({ balance_credits: 1000 - 10 * 50 - 10 * 20 + 200, held_credits: 0 });
  });

  it('settling twice with the same reference moves money once', async () => {
    const org = await s.createOrg({ credits: 100 });
    await s.db.tx((q) => reserve(q, { organizationId: org.id, credits: 40, reference: 'gen_x#1' }));
    await s.db.tx((q) => settle(q, { organizationId: org.id, reserved: 40, charged: 30, reference: 'gen_x#1' }));
    await s.db.tx((q) => settle(q, { organizationId: org.id, reserved: 40, charged: 30, reference: 'gen_x#1' }));
    expect(await expectConsistent(org)).toMatchObject({ balance_credits: 70, held_credits: 0 });
    await expect(s.db.tx((q) => settle(q, { organizationId: org.id, reserved: 10, charged: 11, reference: 'over' }))).rejects.toThrow(/exceeds/);
  });

  it('the ledger is append-only and the database refuses an overdraft', async () => {
    const org = await s.createOrg({ credits: 10 });
    await expect(s.db.query('UPDATE ledger_entries SET balance_delta = 1000000 WHERE organization_id = $1', [org.id])).rejects.toThrow(/append-only/);
    await expect(s.db.query('DELETE FROM ledger_entries WHERE organization_id = $1', [org.id])).rejects.toThrow(/append-only/);
    await expect(s.db.query('UPDATE wallets SET held_credits = 11 WHERE organization_id = $1', [org.id])).rejects.toThrow(/wallet_no_overdraft/);
    await expectConsistent(org);
  });
});
