/**
 * `npm run bench:request-log` (issue 33, bench/README.md "Request log"):
 * 1. bytes per logged request, heap and indexes included, on PostgreSQL and PGlite (BENCH_RL_ROWS rows of one
 *    organization written by the recorder's own statement, pg_total_relation_size of the partitions before and
 *    after), and the time to find one request id among them through GET /v1/requests' statement;
 * 2. the database's size over 10 simulated days of a steady load with 3-day retention (each day's rows written,
 *    then retention run with the clock on that day): flat once the first partitions are dropped;
 * 3. export of every row through the export's reader, the heap's peak sampled meanwhile (flat memory);
 * 4. the gateway's added latency with the request log on and off, side by side: two `mmgen serve` on PostgreSQL
 *    (MMGEN_REQUEST_LOG=on / off) in front of the same zero-latency upstream (bench/upstream.ts), sequential chat
 *    completions in short blocks that alternate the two, so that the load other processes put on the machine
 *    falls on both; the paired figure is the median over rounds of (on − off) block p50s.
 * Only loopback addresses are contacted.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { DAY_MS, MovableClock, utcDay } from '../src/clock.js';
import { randomBase62 } from '../src/ids.js';
import { DataPolicyCache } from '../src/request-log/policies.js';
import { exportRequests } from '../src/request-log/reads.js';
import { PGliteDb, PostgresDb, type Db } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { createRequestLogPartitions, insertRequestLogRows, requestLogBytes, selectRequestLog, dropRequestLogPartitionsBefore, type RequestLogInsert } from '../src/store/request-log.js';
import { selectDataPolicies, upsertDataPolicy } from '../src/store/data-policies.js';
import { insertOrganization } from '../src/domain/organizations.js';
import { systemOrigin } from '../src/domain/audit.js';
import { BIN, createOrg, freePort, PG_ADMIN, scratchDatabase, startUpstream, stop, UPSTREAM_KEY } from './harness.js';

const ROWS = Number(process.env.BENCH_RL_ROWS ?? 1_000_000);
const PGLITE_ROWS = Number(process.env.BENCH_RL_PGLITE_ROWS ?? 200_000);
const DAY_ROWS = Number(process.env.BENCH_RL_DAY_ROWS ?? 50_000);
const BLOCK = Number(process.env.BENCH_SEQUENTIAL ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const ROUTES = ['POST /v1/images', 'POST /v1/chat/completions', 'GET /v1/generations/{id}', 'GET /v1/wallet', 'POST /v1/videos'];
const MODELS = ['flux-schnell', 'gpt-4o-mini', null, null, 'wan-2.2'];

const id = (prefix: string) => `${prefix}_${randomBase62(24)}`;

/** A row as the recorder writes one: ids of the real shape, a mix of routes, one in ten refused. */
function row(org: number, keys: string[], at: Date, expiresOn: string): RequestLogInsert {
  const i = Math.floor(Math.random() * ROUTES.length);
  const refused = Math.random() < 0.1;
  return {
    at, expiresOn, latencyUs: 1_000 + Math.floor(Math.random() * 2_000_000), status: refused ? 429 : 200, live: true,
    organization: org, requestId: id('req'), route: ROUTES[i]!, keyId: keys[Math.floor(Math.random() * keys.length)]!,
    model: refused ? null : MODELS[i]!, generationId: !refused && MODELS[i] ? id('gen') : null, errorCode: refused ? 'rate_limit_exceeded' : null, payload: null,
  };
}

async function fill(db: Db, org: number, n: number, day: Date, expiresOn: string): Promise<string> {
  const keys = Array.from({ length: 5 }, () => id('key'));
  await createRequestLogPartitions(db, [expiresOn]);
  let probe = '';
  for (let done = 0; done < n; ) {
    const batch: RequestLogInsert[] = [];
    for (let j = 0; j < 5_000 && done < n; j++, done++) batch.push(row(org, keys, new Date(day.getTime() + Math.floor((done / n) * (DAY_MS - 1))), expiresOn));
    if (done >= n / 2 && probe === '') probe = batch[0]!.requestId;
    await insertRequestLogRows(db, batch);
  }
  return probe;
}

async function orgRow(db: Db): Promise<{ id: string; seq: number }> {
  const org = await insertOrganization(db, { name: 'bench', plan: 'team', enterprise: false, credits: 0 }, systemOrigin('bench'));
  return { id: org.organization.id, seq: (await selectDataPolicies(db, [org.organization.id])).get(org.organization.id)!.organization_seq };
}

async function storage(name: string, db: Db, n: number): Promise<Record<string, unknown>> {
  await migrate(db);
  const org = await orgRow(db);
  const before = await requestLogBytes(db);
  const today = new Date(`${utcDay(Date.now())}T00:00:00Z`);
  const t0 = performance.now();
  const probe = await fill(db, org.seq, n, today, utcDay(today.getTime() + 30 * DAY_MS));
  const writeS = (performance.now() - t0) / 1000;
  if (db.kind === 'postgres') await db.query('ANALYZE request_log');
  const bytes = (await requestLogBytes(db)) - before;
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const s = performance.now();
    const found = await selectRequestLog(db, { organizationId: org.id, organization: org.seq, live: true, requestId: probe, since: new Date(0) }, 21);
    times.push(performance.now() - s);
    if (found.length !== 1) throw new Error('the probe was not found');
  }
  times.sort((a, b) => a - b);
  // Export: every row through the export's reader, the heap sampled while it runs.
  let peak = 0;
  let exported = 0;
  const base = process.memoryUsage().heapUsed;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed - base)), 20);
  const ports = { db, clock: { now: () => Date.now() }, dataPolicies: new DataPolicyCache(db) };
  const principal = { organizationId: org.id, mode: 'live' } as Parameters<typeof exportRequests>[1];
  const e0 = performance.now();
  for await (const page of exportRequests(ports, principal, {})) exported += page.map((r) => JSON.stringify(r)).length;
  clearInterval(sampler);
  const result = {
    backend: name, rows: n, bytes_per_row: Math.round(bytes / n), write_rows_per_s: Math.round(n / writeS),
    find_request_id_ms_p50: Number(times[10]!.toFixed(2)), export_rows: exported, export_rows_per_s: Math.round(exported / ((performance.now() - e0) / 1000)),
    export_heap_peak_mb: Number((peak / 2 ** 20).toFixed(1)),
  };
  console.log(JSON.stringify(result));
  return result;
}

async function tenDays(name: string, db: Db): Promise<Array<Record<string, unknown>>> {
  await migrate(db);
  const org = await orgRow(db);
  await upsertDataPolicy(db, { organization_id: org.id, capture: 'off', redact_fields: [], redact_patterns: [], request_log_days: 3, generation_days: null, file_days: null });
  const clock = new MovableClock();
  const out: Array<Record<string, unknown>> = [];
  const dbSize = async () => Number((await db.query<{ s: string }>('SELECT pg_database_size(current_database()) AS s')).rows[0]!.s);
  for (let d = 1; d <= 10; d++) {
    clock.advance(DAY_MS);
    const day = new Date(`${utcDay(clock.now())}T00:00:00Z`);
    await fill(db, org.seq, DAY_ROWS, day, utcDay(day.getTime() + 3 * DAY_MS));
    const dropped = await dropRequestLogPartitionsBefore(db, utcDay(clock.now()));
    const r = { backend: name, day: d, rows_per_day: DAY_ROWS, dropped: dropped.length, request_log_mb: Number(((await requestLogBytes(db)) / 2 ** 20).toFixed(1)), database_mb: Number(((await dbSize()) / 2 ** 20).toFixed(1)) };
    console.log(JSON.stringify(r));
    out.push(r);
  }
  return out;
}

async function serve(upstream: string, log: 'on' | 'off'): Promise<{ url: string; key: string; cleanup: () => Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mmgen-rl-bench-'));
  const scratch = await scratchDatabase('mmgen_rlbench', PG_ADMIN);
  const env: Record<string, string> = {
    MMGEN_DATA_DIR: dataDir, DATABASE_URL: scratch.url, LOG_LEVEL: 'warn', OPENAI_API_KEY: UPSTREAM_KEY, OPENAI_BASE_URL: `${upstream}/v1`,
    MMGEN_RATE_LIMIT_TEAM: '10000000', MMGEN_ANOMALY_FLOOR_USD: '1000000000', MMGEN_REQUEST_LOG: log,
  };
  const port = freePort();
  const proc = spawn(BIN, ['serve'], { env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (await fetch(`${url}/healthz`).then((r) => r.ok, () => false)) break;
    if (i > 600) throw new Error('serve did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  const { live } = await createOrg(env);
  return { url, key: live, cleanup: async () => { await stop(proc); rmSync(dataDir, { recursive: true, force: true }); await scratch.drop(); } };
}

const BODY = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello to the benchmark.' }], max_tokens: 64 });

async function block(url: string, headers: Record<string, string>, agent: Agent, path = '/v1/chat/completions'): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < BLOCK; i++) {
    const s = process.hrtime.bigint();
    const res = await request(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: BODY, dispatcher: agent });
    await res.body.arrayBuffer();
    if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`);
    times.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
  return times;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function latency(): Promise<Record<string, unknown>> {
  const upstream = await startUpstream();
  const on = await serve(upstream.url, 'on');
  const off = await serve(upstream.url, 'off');
  try {
    const agents = [new Agent({ connections: 1 }), new Agent({ connections: 1 }), new Agent({ connections: 1 })];
    const direct = { authorization: `Bearer ${UPSTREAM_KEY}` };
    // Warm-up: JIT, statement plans, the first partition made.
    for (const [t, a] of [[on, agents[0]!], [off, agents[1]!]] as const) await block(t.url, { authorization: `Bearer ${t.key}` }, a);
    const all = { on: [] as number[], off: [] as number[], direct: [] as number[] };
    const paired: number[] = [];
    const addedOn: number[] = [];
    const addedOff: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate which goes first, so neither always meets the machine's state the other left.
      const order = r % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
      const p: Record<string, number> = {};
      const d = await block(upstream.url, direct, agents[2]!);
      all.direct.push(...d);
      p.direct = median(d);
      for (const which of order) {
        const t = which === 'on' ? on : off;
        const times = await block(t.url, { authorization: `Bearer ${t.key}` }, agents[which === 'on' ? 0 : 1]!);
        all[which].push(...times);
        p[which] = median(times);
      }
      paired.push(p.on! - p.off!);
      addedOn.push(p.on! - p.direct!);
      addedOff.push(p.off! - p.direct!);
    }
    const result = {
      rounds: ROUNDS, block: BLOCK,
      p50_ms: { direct: median(all.direct), log_on: median(all.on), log_off: median(all.off) },
      added_p50_ms: { log_on: Number(median(addedOn).toFixed(3)), log_off: Number(median(addedOff).toFixed(3)) },
      paired_on_minus_off_ms: Number(median(paired).toFixed(3)),
      on_over_off_added: Number((median(addedOn) / median(addedOff)).toFixed(3)),
    };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    await on.cleanup();
    await off.cleanup();
    await stop(upstream.proc);
  }
}

async function main(): Promise<void> {
  const parts = (process.env.BENCH_RL_PARTS ?? 'storage,days,latency').split(',');
  if (parts.includes('storage')) {
    const pg = await scratchDatabase('mmgen_rlbench', PG_ADMIN);
    const db = new PostgresDb(pg.url);
    try { await storage('PostgreSQL', db, ROWS); } finally { await db.close(); await pg.drop(); }
    const lite = await PGliteDb.open(undefined);
    try { await storage('PGlite', lite, PGLITE_ROWS); } finally { await lite.close(); }
  }
  if (parts.includes('days')) {
    const pg = await scratchDatabase('mmgen_rlbench', PG_ADMIN);
    const db = new PostgresDb(pg.url);
    try { await tenDays('PostgreSQL', db); } finally { await db.close(); await pg.drop(); }
    const dir = mkdtempSync(join(tmpdir(), 'mmgen-rl-days-'));
    const lite = await PGliteDb.open(dir);
    try { await tenDays('PGlite', lite); } finally { await lite.close(); rmSync(dir, { recursive: true, force: true }); }
  }
  if (parts.includes('latency')) await latency();
}

await main();
