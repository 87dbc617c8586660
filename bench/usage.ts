/**
 * GET /v1/usage latency with 1,000,000 ledger rows in one organization.
 *
 * The rows are made in bulk with generate_series (charges and releases of
 * 500,000 generations over the current month, across 20 models and 10 keys),
 * and the usage rollups are derived from them by one aggregate, exactly what
 * the settling statement would have written row by row.
 */
import { operatorOrigin } from '../src/domain/audit.js';
import autocannon from 'autocannon';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createOrganization } from '../src/domain/organizations.js';
import { runtimeOn, startServer } from '../src/main.js';
import { openDb } from '../src/store/db.js';
import { scratchDatabase } from './harness.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface UsageBench {
  ledgerRows: number;
  // autocannon reports p97.5, not p95: the stricter figure is the one given.
  byDay: { p50: number; p97_5: number; p99: number; rps: number };
  byModel: { p50: number; p97_5: number; p99: number; rps: number };
  byKey: { p50: number; p97_5: number; p99: number; rps: number };
}

const ROWS = Number(process.env.BENCH_LEDGER_ROWS ?? 1_000_000);

export async function benchUsage(backend: 'pglite' | 'postgres', pgAdminUrl: string): Promise<UsageBench> {
  const dir = mkdtempSync(join(tmpdir(), 'mmgen-usage-'));
  const scratch = backend === 'postgres' ? await scratchDatabase('mmgen_usage', pgAdminUrl) : null;
  const databaseUrl = scratch?.url;
  const port = 21000 + Math.floor(Math.random() * 9000);
  const config = loadConfig({ MMGEN_DATA_DIR: dir, LOG_LEVEL: 'silent', PORT: String(port), HOST: '127.0.0.1', MMGEN_RATE_LIMIT_TEAM: '10000000', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) });
  const db = await openDb({ databaseUrl, dataDir: join(dir, 'pgdata') });
  const runtime = await runtimeOn(config, db, pino({ level: 'silent' }));
  const server = await startServer(runtime, { port, host: '127.0.0.1', worker: false });
  try {
    const org = await createOrganization(db, { name: 'usage-bench', plan: 'team', enterprise: false, credits: 0 }, operatorOrigin('bench'));
    const orgId = org.organization.id;
    const monthStart = `${new Date().toISOString().slice(0, 7)}-01`;
    const generations = ROWS / 2;
    // Charges and releases of `generations` generations, spread over the month so far.
    await db.exec(`
      INSERT INTO ledger_entries (organization_id, kind, balance_delta, held_delta, reference, generation_id, api_key_id, model, modality, created_at)
      SELECT '${orgId}', k.kind, CASE WHEN k.kind = 'charge' THEN -7 ELSE 0 END, CASE WHEN k.kind = 'charge' THEN -7 ELSE -3 END,
             'bench_' || g || '#1', 'bench_' || g, 'key_bench' || (g % 10), 'model-' || (g % 20), 'image',
             '${monthStart}'::timestamptz + ((g % 1000) / 1000.0) * (now() - '${monthStart}'::timestamptz)
      FROM generate_series(1, ${generations}) g CROSS JOIN (VALUES ('charge'), ('release')) AS k(kind)`);
    await db.exec(`
      INSERT INTO usage_rollups (organization_id, mode, day, model, modality, api_key_id, generations, charged_credits, refunded_credits)
      SELECT organization_id, 'live', (created_at AT TIME ZONE 'UTC')::date, model, modality, api_key_id,
             count(*) FILTER (WHERE kind = 'charge'), -sum(balance_delta), -sum(held_delta) FILTER (WHERE kind = 'release')
      FROM ledger_entries WHERE organization_id = '${orgId}' GROUP BY 1, 2, 3, 4, 5, 6`);
    await db.exec('ANALYZE');
    const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM ledger_entries WHERE organization_id = $1', [orgId]);
    const run = async (groupBy: string) => {
      const r = await autocannon({
        url: `${server.url}/v1/usage?group_by=${groupBy}`,
        connections: 8,
        duration: 4,
        headers: { authorization: `Bearer ${org.keys.live}` },
      });
      if (r.non2xx > 0) {
        const one = await fetch(`${server.url}/v1/usage?group_by=${groupBy}`, { headers: { authorization: `Bearer ${org.keys.live}` } });
        throw new Error(`usage answered ${r.non2xx} non-2xx, e.g. ${one.status} ${await one.text()}`);
      }
      return { p50: r.latency.p50, p97_5: r.latency.p97_5, p99: r.latency.p99, rps: Math.round(r.requests.average) };
    };
    return { ledgerRows: count.rows[0]!.n, byDay: await run('day'), byModel: await run('model'), byKey: await run('api_key') };
  } finally {
    await server.close();
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
    await scratch?.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const admin = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  for (const backend of ['pglite', 'postgres'] as const) console.log(backend, JSON.stringify(await benchUsage(backend, admin)));
}
