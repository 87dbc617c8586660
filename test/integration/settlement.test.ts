import { afterAll, beforeAll, expect, it } from 'vitest';
import { ledgerSums } from '../../src/billing/credits.js';
import { until } from '../helpers/processes.js';
import { client, describeOnBackend, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * A finished generation's effect on its wallet row and usage rollup is a
 * pending settlement (src/domain/credits.ts), applied in batches by the
 * settler. The wallet as read always includes it; the credit gate, which
 * reads the row alone, settles and retries before refusing.
 */
describeOnBackend('pending settlements', 'postgres', (backend) => {
  const NEVER = '3600000';
  /** Nothing settles on its own: every settlement stays pending until something needs it. */
  let held: TestServer;
  /** Settles what it finishes 20 ms later; never sweeps. */
  let batching: TestServer;
  const live = { MMGEN_SIMULATE_PROVIDERS: '1' };

  beforeAll(async () => {
    held = await startTestServer(backend, { ...live, MMGEN_SETTLE_DELAY_MS: NEVER, MMGEN_SETTLE_SWEEP_MS: NEVER });
    batching = await startTestServer(backend, { ...live, MMGEN_SETTLE_DELAY_MS: '20', MMGEN_SETTLE_SWEEP_MS: NEVER }, { sameDbAs: held });
  });
  afterAll(async () => {
    await batching?.close();
    await held?.close();
  });

  // A reply of 5 tokens against a reservation for 4,000: most of the hold is released.
  const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }], max_tokens: 4000, simulate: { output_tokens: 5 } };

  async function pendingRows(orgId: string): Promise<number> {
    return (await held.db.query<{ n: number }>('SELECT count(*)::int AS n FROM wallet_pending WHERE organization_id = $1', [orgId])).rows[0]!.n;
  }

  async function walletRow(orgId: string): Promise<{ balance_credits: number; held_credits: number }> {
    return (await held.db.query<{ balance_credits: number; held_credits: number }>('SELECT balance_credits, held_credits FROM wallets WHERE organization_id = $1', [orgId])).rows[0]!;
  }

  it('the wallet as read includes what is still pending, and equals the ledger', async () => {
    const api = client(held.url);
    const org = await held.createOrg({ credits: 1_000_000 });
    const done = await api('POST', '/v1/chat', { key: org.live, body: chat });
    expect(done.status).toBe(200);
    const { reserved_credits: reserved, charged_credits: charged } = done.body as { reserved_credits: number; charged_credits: number };
    // The row still holds the whole reservation; the settlement is pending.
    expect(await pendingRows(org.id)).toBe(1);
    expect(await walletRow(org.id)).toEqual({ balance_credits: 1_000_000, held_credits: reserved });
    const wallet = (await api('GET', '/v1/wallet', { key: org.live })).body;
    expect(wallet).toMatchObject({ balance_credits: 1_000_000 - charged, held_credits: 0, available_credits: 1_000_000 - charged });
    expect(await ledgerSums(held.db, org.id)).toEqual({ balance_credits: wallet.balance_credits, held_credits: 0 });
    // Usage is read after settling: the generation counts, and the row is now the settled wallet.
    const usage = (await api('GET', '/v1/usage', { key: org.live })).body;
    expect(usage.totals).toMatchObject({ generations: 1, charged_credits: charged });
    expect(await pendingRows(org.id)).toBe(0);
    expect(await walletRow(org.id)).toEqual({ balance_credits: 1_000_000 - charged, held_credits: 0 });
  });

  it('a reservation that fits only once the last release is settled is accepted; the next one is refused by the settled wallet', async () => {
    const api = client(held.url);
    const probe = await held.createOrg({ credits: 1_000_000 });
    const first = (await api('POST', '/v1/chat', { key: probe.live, body: chat })).body as { reserved_credits: number; charged_credits: number };
    const { reserved_credits: reserved, charged_credits: charged } = first;
    expect(charged).toBeGreaterThan(0);
    expect(charged).toBeLessThan(reserved);

    // Exactly enough for two: the second fits only once the first one's release reaches the wallet row,
    // and on this server nothing settles it but the refused reservation itself.
    const org = await held.createOrg({ credits: reserved + charged });
    expect((await api('POST', '/v1/chat', { key: org.live, body: chat })).status).toBe(200);
    expect(await pendingRows(org.id)).toBe(1);
    expect((await api('POST', '/v1/chat', { key: org.live, body: chat })).status).toBe(200);
    const third = await api('POST', '/v1/chat', { key: org.live, body: chat });
    expect(third.status).toBe(402);
    expect(third.body.error.code).toBe('insufficient_credits');
    expect((await api('GET', '/v1/wallet', { key: org.live })).body).toMatchObject({ balance_credits: reserved - charged, held_credits: 0 });
  });

  it('a process settles what it finished a few milliseconds later, on its own', async () => {
    const api = client(batching.url);
    const org = await batching.createOrg({ credits: 1_000_000 });
    const results = await Promise.all(Array.from({ length: 20 }, () => api('POST', '/v1/chat', { key: org.live, body: chat })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    // Nobody reads the wallet or usage, and this process never sweeps: its own batches empty the pending rows.
    await until('the settler to apply every pending row', async () => (await pendingRows(org.id)) === 0, 10_000, 20);
    const charged = results.reduce((sum, r) => sum + (r.body.charged_credits as number), 0);
    expect(await walletRow(org.id)).toEqual({ balance_credits: 1_000_000 - charged, held_credits: 0 });
    expect(await walletRow(org.id)).toEqual(await ledgerSums(held.db, org.id));
    const usage = (await held.db.query<{ g: number; c: number }>(
      'SELECT sum(generations)::int AS g, sum(charged_credits)::int AS c FROM usage_rollups WHERE organization_id = $1', [org.id])).rows[0]!;
    expect(usage).toEqual({ g: 20, c: charged });
  });

  it('what a process left pending is applied by another one\'s sweep', async () => {
    // Finished on `held`, which never settles on its own (as a process that died right after finishing).
    const org = await held.createOrg({ credits: 1_000_000 });
    const done = await client(held.url)('POST', '/v1/chat', { key: org.live, body: chat });
    expect(done.status).toBe(200);
    expect(await pendingRows(org.id)).toBe(1);
    // A process that never settles what it finishes itself, but sweeps every 200 ms (started last: it would sweep the other tests' rows).
    const sweeping = await startTestServer(backend, { ...live, MMGEN_SETTLE_DELAY_MS: NEVER, MMGEN_SETTLE_SWEEP_MS: '200' }, { sameDbAs: held });
    try {
      await until('the other process to sweep it up', async () => (await pendingRows(org.id)) === 0, 10_000, 20);
    } finally {
      await sweeping.close();
    }
    expect(await walletRow(org.id)).toEqual({ balance_credits: 1_000_000 - (done.body.charged_credits as number), held_credits: 0 });
  });
});
