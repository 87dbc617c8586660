import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { settlePending } from '../../src/billing/credits.js';
import type { GenerationRow } from '../../src/generations/views.js';
import { chargeAndFinish, finishStatement } from '../../src/store/finishing.js';
import { selectGeneration } from '../../src/store/generations.js';
import { startFakes, type Fakes } from '../fakes/index.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';
import { expectWalletMatchesLedger, type WalletAndLedger } from '../helpers/money.js';

/**
 * Chat completions answered before they are finished (runner.ts, `finish`)
 * wait a few milliseconds so that one statement finishes several of them.
 * Each must still be charged its own usage, once, with its own event, its job
 * gone and the ledger equal to the wallet; and the one finishing statement
 * must do for many attempts what it does for one, comparisons included.
 */
describeOnBackend('finishing several attempts in one statement', 'postgres', (backend) => {
  let fakes: Fakes;
  let s: TestServer;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    fakes = await startFakes();
    // Settlements are left pending (no settler delay runs out, no sweep): their rows show how the finishes were batched.
    s = await startTestServer(backend, { ...fakes.env, MMGEN_ANSWERED_FINISH_BATCH_MS: '5000', MMGEN_SETTLE_DELAY_MS: '3600000', MMGEN_SETTLE_SWEEP_MS: '3600000' }, { worker: false });
    api = client(s.url);
  });
  afterAll(async () => {
    await s?.close();
    await fakes?.close();
  });

  async function expectConsistent(org: TestOrg): Promise<WalletAndLedger> {
    await settlePending(s.db, org.id);
    return expectWalletMatchesLedger(s.db, org.id);
  }

  const count = async (sql: string, params: unknown[]) => (await s.db.query<{ n: number }>(sql, params)).rows[0]!.n;

  it('answered completions are finished together, each charged its own usage once', async () => {
    const org = await s.createOrg({ credits: 1_000_000 });
    const n = 8;
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        api('POST', '/v1/chat/completions', { key: org.live, body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `say ${'word '.repeat(i + 1)}` }], max_tokens: 64 } }),
      ),
    );
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
    const ids = answers.map((a) => a.body.id as string);
    // A read on this node waits for the finish, but not for the batch's 5 s: it runs the batch at once.
    const started = Date.now();
    const first = await api('GET', `/v1/generations/${ids[0]}`, { key: org.live });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(first.body.status).toBe('succeeded');
    for (const [i, id] of ids.entries()) {
      const g = (await api('GET', `/v1/generations/${id}`, { key: org.live })).body;
      expect(g.status).toBe('succeeded');
      // Each charged by its own completion's tokens (the answers differ in length), the rest of its hold released.
      const tokens = answers[i]!.body.usage.completion_tokens as number;
      expect(g.charged_credits).toBeGreaterThan(0);
      expect(g.charged_credits + g.refunded_credits).toBe(g.reserved_credits);
      const row = (await selectGeneration(s.db, id))!;
      expect(row.result?.usage?.output_tokens).toBe(tokens);
      expect(await count("SELECT count(*)::int AS n FROM ledger_entries WHERE generation_id = $1 AND kind = 'charge'", [id])).toBe(1);
      expect(await count("SELECT count(*)::int AS n FROM events WHERE data->>'generation_id' = $1 AND type = 'generation.completed'", [id])).toBe(1);
      expect(await count('SELECT count(*)::int AS n FROM jobs WHERE generation_id = $1', [id])).toBe(0);
    }
    // One pending settlement per finishing statement (they aggregate per organization, key and model): fewer than n.
    const pending = await s.db.query<{ generations: number; charged_credits: number }>('SELECT generations, charged_credits FROM wallet_pending WHERE organization_id = $1', [org.id]);
    expect(pending.rows.length).toBeGreaterThanOrEqual(1);
    expect(pending.rows.length).toBeLessThan(n);
    expect(pending.rows.reduce((t, r) => t + Number(r.generations), 0)).toBe(n);
    const charged = (await s.db.query<{ c: number }>('SELECT sum(charged_credits)::int AS c FROM generations WHERE organization_id = $1', [org.id])).rows[0]!.c;
    expect(pending.rows.reduce((t, r) => t + Number(r.charged_credits), 0)).toBe(charged);
    await expectConsistent(org);
    const usage = (await api('GET', '/v1/usage', { key: org.live })).body;
    expect(JSON.stringify(usage)).toContain('"generations":8');
  });

  it('one statement finishes two children of one comparison and one of another: the first completes once, the second runs on', async () => {
    const org = await s.createOrg({ plan: 'pro', credits: 1_000_000 });
    const models = s.runtime.deps.catalog.list({ modality: 'image' as never }).slice(0, 2).map((m) => m.slug);
    // No worker runs here: the children stay queued until finished below.
    const compare = (prompt: string) => api('POST', '/v1/comparisons', { key: org.live, body: { models, prompt, params: { width: 256, height: 256 } } });
    const a = await compare('two foxes');
    const b = await compare('two owls');
    expect(a.status, JSON.stringify(a.body)).toBe(202);
    expect(b.status, JSON.stringify(b.body)).toBe(202);
    const ids: string[] = [a.body.generations[0].id, a.body.generations[1].id, b.body.generations[0].id];
    const rows = await Promise.all(ids.map(async (id) => (await selectGeneration(s.db, id))!));
    const end = (g: GenerationRow, status: 'succeeded' | 'failed') => ({
      g,
      end: { status, charged: status === 'succeeded' ? g.price_credits : 0, result: null, error: status === 'failed' ? { type: 'upstream_error', code: 'upstream_error', message: 'no' } : null, upstreamId: null, outputs: [] },
    });
    const finished = await chargeAndFinish(s.db, [end(rows[0]!, 'succeeded'), end(rows[1]!, 'failed'), end(rows[2]!, 'succeeded')]);
    expect(finished.map((r) => r?.status)).toEqual(['succeeded', 'failed', 'succeeded']);
    expect(finished.map((r) => r?.id)).toEqual(ids);
    // Not running any more: finishing again changes nothing.
    expect(await chargeAndFinish(s.db, [end(rows[0]!, 'failed')])).toEqual([null]);

    expect((await api('GET', `/v1/comparisons/${a.body.id}`, { key: org.live })).body.status).toBe('completed');
    expect((await api('GET', `/v1/comparisons/${b.body.id}`, { key: org.live })).body.status).toBe('running');
    const completed = await s.db.query<{ data: any }>("SELECT data FROM events WHERE organization_id = $1 AND type = 'comparison.completed'", [org.id]);
    expect(completed.rows).toHaveLength(1);
    expect(completed.rows[0]!.data).toEqual({ comparison_id: a.body.id, status: 'completed', generation_ids: ids.slice(0, 2) });
    expect(await count("SELECT count(*)::int AS n FROM events WHERE organization_id = $1 AND type = 'generation.failed'", [org.id])).toBe(1);
    expect(await count("SELECT count(*)::int AS n FROM events WHERE organization_id = $1 AND type = 'generation.completed'", [org.id])).toBe(2);
    const failed = (await api('GET', `/v1/generations/${ids[1]}`, { key: org.live })).body;
    expect(failed).toMatchObject({ status: 'failed', charged_credits: 0, refunded_credits: rows[1]!.price_credits });
    expect(await count('SELECT count(*)::int AS n FROM jobs WHERE generation_id = ANY($1::text[])', [ids])).toBe(0);
    // Still queued: its job stays.
    expect(await count('SELECT count(*)::int AS n FROM jobs WHERE generation_id = $1', [b.body.generations[1].id])).toBe(1);
    const w = await expectConsistent(org);
    // Only the unfinished child still holds credits.
    expect(w.held).toBe((await selectGeneration(s.db, b.body.generations[1].id))!.price_credits);
    expect(rows.every((r) => r.price_credits > 0)).toBe(true);
  });

  if (backend === 'postgres') {
    it('a seeded completion replied before its finish committed is the cache entry of an immediate repeat on this node', async () => {
      const org = await s.createOrg({ credits: 1_000_000 });
      const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'seeded and slow to finish' }], seed: 7, max_tokens: 64 };
      // Holding wallet_pending keeps the finishing statement (which writes a pending settlement) from committing.
      const c = new pg.Client({ connectionString: s.dbUrl });
      await c.connect();
      try {
        await c.query('BEGIN');
        await c.query('LOCK TABLE wallet_pending IN EXCLUSIVE MODE');
        const first = await api('POST', '/v1/chat/completions', { key: org.live, body });
        expect(first.status, JSON.stringify(first.body)).toBe(200);
        expect((await selectGeneration(s.db, first.body.id))!.status).toBe('running');
        const repeat = api('POST', '/v1/chat/completions', { key: org.live, body });
        await new Promise((r) => setTimeout(r, 300));
        await c.query('COMMIT');
        const second = await repeat;
        expect(second.status, JSON.stringify(second.body)).toBe(200);
        expect(second.body.choices[0].message.content).toBe(first.body.choices[0].message.content);
        const g = (await api('GET', `/v1/generations/${second.body.id}`, { key: org.live })).body;
        expect(g).toMatchObject({ cache_hit: true, charged_credits: 0 });
      } finally {
        await c.query('ROLLBACK').catch(() => {});
        await c.end();
      }
      await expectConsistent(org);
    });

    it('finishing one attempt reaches generations, jobs and comparisons by index even when planned while they were nearly empty', async () => {
      // A fresh database is the worst case: a plan made now is cached by each connection and kept while the tables grow
      // (until an ANALYZE). Batches of several are planned by cost like any join; one attempt (every finish but a batch)
      // must never scan a table whole.
      const c = new pg.Client({ connectionString: s.dbUrl });
      await c.connect();
      try {
        await c.query('SET plan_cache_mode = force_generic_plan');
        const { sql, slots } = finishStatement(1);
        const types = ['jsonb', 'jsonb', ...Array<string>(2 * slots).fill('text')];
        await c.query(`PREPARE f(${types.join(', ')}) AS ${sql}`);
        const args = ["'[]'", "'[]'", ...Array<string>(2 * slots).fill("'gen_none'")];
        const plan = (await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE f(${args.join(', ')})`)).rows.map((r) => r['QUERY PLAN']).join('\n');
        expect(plan, plan).not.toMatch(/Seq Scan on (generations|jobs|comparisons)\b/);
        expect(plan).toMatch(/Index (Only )?Scan using \w+ on generations\b/);
      } finally {
        await c.end();
      }
    });
  }
});
