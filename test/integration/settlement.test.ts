import { afterAll, beforeAll, expect, it } from 'vitest';
import { ledgerSums } from '../../src/domain/credits.js';
import { until } from '../helpers/processes.js';
import { client, describeEachBackend, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * A finished generation's effect on its wallet row and usage rollup is a
 * pending settlement (src/domain/credits.ts), applied in batches by the
 * settler. The wallet as read always includes it; the credit gate, which
 * reads the row alone, settles and retries before refusing.
 */
describeEachBackend('pending settlements', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1' });
    api = client(s.url);
  });
  afterAll(async () => s?.close());

  // A reply of 5 tokens against a reservation for 4,000: most of the hold is released.
  const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }], max_tokens: 4000, simulate: { output_tokens: 5 } };

  async function pendingRows(orgId: string): Promise<number> {
    return (await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM wallet_pending WHERE organization_id = $1', [orgId])).rows[0]!.n;
  }

  it('a reservation that fits only once the last release is settled is accepted, not refused', async () => {
    // Learn what this chat reserves and charges, on an organization of its own.
    const probe = await s.createOrg({ credits: 1_000_000 });
    const first = await api('POST', '/v1/chat', { key: probe.live, body: chat });
    expect(first.status).toBe(200);
    const reserved = first.body.reserved_credits as number;
    const charged = first.body.charged_credits as number;
    expect(charged).toBeGreaterThan(0);
    expect(charged).toBeLessThan(reserved);

    // Exactly enough for two: the second fits only if the first one's release has reached the wallet row.
    for (let round = 0; round < 5; round++) {
      const org = await s.createOrg({ credits: reserved + charged });
      expect((await api('POST', '/v1/chat', { key: org.live, body: chat })).status).toBe(200);
      const second = await api('POST', '/v1/chat', { key: org.live, body: chat });
      expect(second.status).toBe(200);
      // And a third is refused: the 402 is the settled wallet's.
      const third = await api('POST', '/v1/chat', { key: org.live, body: chat });
      expect(third.status).toBe(402);
      const wallet = (await api('GET', '/v1/wallet', { key: org.live })).body;
      expect(wallet).toMatchObject({ balance_credits: reserved - charged, held_credits: 0 });
    }
  });

  it('the settler brings wallet rows and usage rollups up to date on its own', async () => {
    const org = await s.createOrg({ credits: 1_000_000 });
    const results = await Promise.all(Array.from({ length: 20 }, () => api('POST', '/v1/chat', { key: org.live, body: chat })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    // Nobody reads the wallet or usage meanwhile: the settler alone empties the pending rows.
    await until('the settler to apply every pending row', async () => (await pendingRows(org.id)) === 0, 10_000);
    const row = (await s.db.query<{ balance_credits: number; held_credits: number }>('SELECT balance_credits, held_credits FROM wallets WHERE organization_id = $1', [org.id])).rows[0]!;
    expect(row).toEqual(await ledgerSums(s.db, org.id));
    const charged = results.reduce((sum, r) => sum + (r.body.charged_credits as number), 0);
    expect(row).toEqual({ balance_credits: 1_000_000 - charged, held_credits: 0 });
    const usage = (await s.db.query<{ g: number; c: number }>(
      'SELECT sum(generations)::int AS g, sum(charged_credits)::int AS c FROM usage_rollups WHERE organization_id = $1', [org.id])).rows[0]!;
    expect(usage).toEqual({ g: 20, c: charged });
  });
});
