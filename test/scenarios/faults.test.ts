import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { PostgresDb } from '../../src/store/db.js';
import { walletAndLedger } from '../helpers/money.js';
import { mmgen, serve, type ServeProcess } from '../helpers/processes.js';
import { startPrivatePostgres } from '../helpers/private-postgres.js';
import { seededRandom } from '../helpers/random.js';

/**
 * Faults under traffic (issue 9): the database crashes and restarts, then the
 * mmgen process is killed with -9 and started again, while clients keep
 * generating, cancelling and retrying. Afterwards every generation reaches a
 * terminal state and the money adds up: no wallet below zero, wallet = ledger,
 * reserved = charged + refunded, no attempt charged twice, no job left.
 * Real processes on a PostgreSQL server of the test's own (the shared one
 * serves the other test files meanwhile).
 */
vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });

const TERMINAL = new Set(['succeeded', 'failed', 'canceled']);

interface Outcome {
  status: number | 'network';
  code?: string;
  id?: string;
}

const SEED = 20261121;

describe('faults under traffic', { tags: ['private-postgres'] }, () => {
  it(`a database crash and a kill -9 of mmgen lose no money and strand no generation (seed ${SEED})`, async () => {
    const database = await startPrivatePostgres();
    const dataDir = mkdtempSync(join(tmpdir(), 'mmgen-faults-'));
    const env = {
      DATABASE_URL: database.url,
      MMGEN_DATA_DIR: dataDir,
      MMGEN_SIMULATE_PROVIDERS: '1',
      MMGEN_JOB_LEASE_MS: '2000',
      MMGEN_WORKER_POLL_MS: '50',
      MMGEN_RATE_LIMIT_TEAM: '1000000',
    };
    let node: ServeProcess | null = null;
    const admin = new PostgresDb(database.url, { max: 2 });
    try {
      const created = await mmgen(['org', 'create', '--name', 'faults', '--plan', 'team', '--credits', '50000000', '--json'], env);
      expect(created.code, created.stderr).toBe(0);
      const { organization, keys } = JSON.parse(created.stdout) as { organization: { id: string }; keys: { live: string } };
      node = await serve(env);
      let base = node.url;

      const rand = seededRandom(SEED);
      const outcomes: Outcome[] = [];
      const asyncIds: string[] = [];
      const failedIds: string[] = [];
      let stop = false;

      async function call(method: string, path: string, body?: unknown): Promise<Outcome & { body?: any }> {
        try {
          const res = await fetch(`${base}${path}`, {
            method,
            headers: { authorization: `Bearer ${keys.live}`, ...(body ? { 'content-type': 'application/json' } : {}) },
            body: body ? JSON.stringify(body) : undefined,
            signal: AbortSignal.timeout(30_000),
          });
          const json = (await res.json().catch(() => null)) as any;
          const out = { status: res.status, code: json?.error?.code, id: json?.id, body: json };
          outcomes.push({ status: out.status, code: out.code, id: out.id });
          return out;
        } catch {
          outcomes.push({ status: 'network' });
          await new Promise((r) => setTimeout(r, 50)); // the node is down: do not spin
          return { status: 'network' };
        }
      }

      async function client(): Promise<void> {
        while (!stop) {
          const r = rand();
          if (r < 0.25) {
            await call('POST', '/v1/images', { model: 'flux-schnell', prompt: 'faults', width: 256, height: 256, seed: Math.floor(rand() * 4), cache: false });
          } else if (r < 0.45) {
            await call('POST', '/v1/chat', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'faults' }], max_tokens: 32 });
          } else if (r < 0.7) {
            const outcome = rand() < 0.2 ? 'failure' : rand() < 0.2 ? 'lost' : 'success';
            const res = await call('POST', '/v1/music', { model: 'musicgen', prompt: 'faults', duration_s: 5, cache: false, simulate: { outcome, delay_ms: Math.floor(rand() * 1500) } });
            if (res.status === 202 && res.id) asyncIds.push(res.id);
          } else if (r < 0.8 && asyncIds.length > 0) {
            await call('POST', `/v1/generations/${asyncIds[Math.floor(rand() * asyncIds.length)]}/cancel`);
          } else if (r < 0.9) {
            const id = asyncIds[Math.floor(rand() * asyncIds.length)];
            if (!id) continue;
            const g = await call('GET', `/v1/generations/${id}`);
            if (g.body?.status === 'failed') failedIds.push(id);
          } else if (failedIds.length > 0) {
            await call('POST', `/v1/generations/${failedIds[Math.floor(rand() * failedIds.length)]}/retry`);
          }
        }
      }

      const clients = Array.from({ length: 6 }, () => client());
      await new Promise((r) => setTimeout(r, 2_000));
      await database.crashAndRestart(700);
      await new Promise((r) => setTimeout(r, 2_500));
      node.proc.kill('SIGKILL');
      await node.exited;
      node = await serve(env);
      base = node.url;
      await new Promise((r) => setTimeout(r, 2_500));
      stop = true;
      await Promise.all(clients);

      // Nothing answered 500: the outage is a 503 (retry later), never an internal error.
      const fiveHundreds = outcomes.filter((o) => o.status === 500);
      expect(fiveHundreds, JSON.stringify(fiveHundreds.slice(0, 5))).toEqual([]);
      const unavailable = outcomes.filter((o) => typeof o.status === 'number' && o.status >= 500);
      for (const o of unavailable) expect(o.code).toBe('service_unavailable');
      const accepted = outcomes.filter((o) => (o.status === 200 || o.status === 202) && o.id?.startsWith('gen_'));
      expect(accepted.length).toBeGreaterThan(20);
      // The faults did hit traffic: some requests met the outage or the dead process.
      expect(outcomes.filter((o) => o.status === 503 || o.status === 'network').length).toBeGreaterThan(0);
      if (process.env.FAULTS_VERBOSE) {
        const tally = new Map<string, number>();
        for (const o of outcomes) tally.set(`${o.status} ${o.code ?? ''}`, (tally.get(`${o.status} ${o.code ?? ''}`) ?? 0) + 1);
        console.log(Object.fromEntries(tally));
      }

      // Every generation, answered or not, ends terminal once the worker has caught up.
      const deadline = Date.now() + 120_000;
      for (;;) {
        const open = await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM generations WHERE status NOT IN ('succeeded', 'failed', 'canceled')");
        if (open.rows[0]!.n === 0) break;
        if (Date.now() > deadline) throw new Error(`${open.rows[0]!.n} generations never ended`);
        await new Promise((r) => setTimeout(r, 250));
      }
      const gens = await admin.query<{ id: string; status: string; reserved_credits: number; charged_credits: number; refunded_credits: number }>(
        'SELECT id, status, reserved_credits::int, charged_credits::int, refunded_credits::int FROM generations WHERE organization_id = $1',
        [organization.id],
      );
      const byId = new Map(gens.rows.map((g) => [g.id, g]));
      for (const o of accepted) expect(TERMINAL.has(byId.get(o.id!)?.status ?? 'missing'), `${o.id} is ${byId.get(o.id!)?.status}`).toBe(true);
      for (const g of gens.rows) {
        expect(g.reserved_credits, g.id).toBe(g.charged_credits + g.refunded_credits);
        if (g.status !== 'succeeded') expect(g.charged_credits, g.id).toBe(0);
      }
      // No attempt is charged twice, and nothing is charged beyond what was reserved.
      const doubles = await admin.query(
        `SELECT generation_id, reference, count(*) FROM ledger_entries WHERE kind = 'charge' GROUP BY generation_id, reference HAVING count(*) > 1`,
      );
      expect(doubles.rows).toEqual([]);
      const overs = await admin.query(
        `SELECT g.id FROM generations g JOIN ledger_entries l ON l.generation_id = g.id AND l.kind = 'charge'
         GROUP BY g.id, g.charged_credits HAVING -sum(l.balance_delta) <> g.charged_credits`,
      );
      expect(overs.rows).toEqual([]);
      const w = await walletAndLedger(admin, organization.id);
      expect({ balance: w.balance, held: w.held }).toEqual({ balance: w.ledgerBalance, held: w.ledgerHeld });
      expect(w.held).toBe(0);
      expect(w.balance).toBeGreaterThanOrEqual(0);
      expect(w.balance).toBe(50_000_000 - gens.rows.reduce((s, g) => s + g.charged_credits, 0));
      const jobs = await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs');
      expect(jobs.rows[0]!.n).toBe(0);
    } finally {
      await node?.stop().catch(() => {});
      await admin.close().catch(() => {});
      await database.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
