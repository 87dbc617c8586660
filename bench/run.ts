/**
 * `npm run bench`: throughput and latency of mmgen on this machine, on the
 * embedded default (PGlite) and on PostgreSQL, in one run, next to the raw
 * write-transaction rate of each database so that figures read as ratios on
 * any machine. Results are printed and written to bench/results.json; the
 * README in this folder keeps the figures of record.
 *
 * Only loopback addresses are contacted. Set BENCH_SECONDS to lengthen runs,
 * BENCH_PG_URL to point at another PostgreSQL (default: the local `test` db).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { PGliteDb } from '../src/store/db.js';
import { benchUsage, type UsageBench } from './usage.js';

const run = promisify(execFile);
const BIN = join(process.cwd(), 'bin', 'mmgen');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ASYNC_JOBS = Number(process.env.BENCH_ASYNC_JOBS ?? 3000);
const PG_ADMIN = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

interface HttpResult { rps: number; p50: number; p99: number; non2xx: number; errors: number; requests: number }
interface BackendResult {
  backend: string;
  rawWriteTxPerSec: number;
  chat: HttpResult;
  image512: HttpResult;
  asyncJobsPerSec: number;
  usage: UsageBench;
}

function freePort(): number {
  return 20000 + Math.floor(Math.random() * 20000);
}

async function startServe(env: Record<string, string>, args: string[] = []): Promise<{ proc: ChildProcess; url: string }> {
  const port = freePort();
  const proc = spawn(BIN, ['serve', ...args], { env: { ...process.env, LOG_LEVEL: 'warn', PORT: String(port), HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { proc, url };
    } catch {
      // not yet listening
    }
    if (proc.exitCode !== null) throw new Error(`serve exited: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`serve did not start: ${out}`);
}

async function stop(proc: ChildProcess): Promise<void> {
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await exited;
}

async function cannon(url: string, path: string, key: string, body: unknown): Promise<HttpResult> {
  const r = await autocannon({
    url: `${url}${path}`,
    method: 'POST',
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    requests: r.requests.total,
  };
}

/** Simple autocommit INSERTs from 8 concurrent clients: the database's own write-transaction rate. */
async function rawPgRate(url: string): Promise<number> {
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  await pool.query('CREATE TABLE IF NOT EXISTS bench_tx (id bigserial PRIMARY KEY, x int)');
  let n = 0;
  const end = Date.now() + 3000;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (Date.now() < end) {
      await pool.query('INSERT INTO bench_tx (x) VALUES ($1)', [n]);
      n++;
    }
  }));
  await pool.query('DROP TABLE bench_tx');
  await pool.end();
  return Math.round(n / 3);
}

async function rawPgliteRate(): Promise<number> {
  const db = await PGliteDb.open(undefined);
  await db.exec('CREATE TABLE bench_tx (id bigserial PRIMARY KEY, x int)');
  let n = 0;
  const end = Date.now() + 3000;
  while (Date.now() < end) {
    await db.query('INSERT INTO bench_tx (x) VALUES ($1)', [n]);
    n++;
  }
  await db.close();
  return Math.round(n / 3);
}

async function createOrg(env: Record<string, string>): Promise<{ id: string; live: string }> {
  const { stdout } = await run(BIN, ['org', 'create', '--name', 'bench', '--plan', 'team', '--credits', '1000000000000', '--json'], { env: { ...process.env, LOG_LEVEL: 'silent', ...env } });
  const out = JSON.parse(stdout) as { organization: { id: string }; keys: { live: string } };
  return { id: out.organization.id, live: out.keys.live };
}

async function benchBackend(backend: 'pglite' | 'postgres'): Promise<BackendResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mmgen-bench-'));
  let dbName = '';
  const env: Record<string, string> = { MMGEN_DATA_DIR: dataDir, MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_RATE_LIMIT_TEAM: '10000000' };
  let rawWriteTxPerSec: number;
  if (backend === 'postgres') {
    dbName = `mmgen_bench_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: PG_ADMIN });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const u = new URL(PG_ADMIN);
    u.pathname = `/${dbName}`;
    env.DATABASE_URL = u.toString();
    rawWriteTxPerSec = await rawPgRate(env.DATABASE_URL);
  } else {
    rawWriteTxPerSec = await rawPgliteRate();
  }
  try {
    let server = await startServe(env);
    const org = await createOrg(env);
    const chatModel = 'gpt-4o-mini';
    const imageModel = 'flux-schnell';
    const musicModel = 'musicgen';
    // Warm up code paths and the render cache.
    await cannon(server.url, '/v1/chat', org.live, { model: chatModel, messages: [{ role: 'user', content: 'hi' }], max_tokens: 64 }).catch(() => undefined);
    const chat = await cannon(server.url, '/v1/chat', org.live, { model: chatModel, messages: [{ role: 'user', content: 'Say hello to the benchmark.' }], max_tokens: 64 });
    // A fixed seed lets the simulator reuse its render; cache: false still makes a charged generation each time.
    const image512 = await cannon(server.url, '/v1/images', org.live, { model: imageModel, prompt: 'a benchmark', width: 512, height: 512, seed: 7, cache: false });

    // Async: queue jobs with no worker running, then start one and time the drain.
    await stop(server.proc);
    server = await startServe(env, ['--no-worker']);
    const body = JSON.stringify({ model: musicModel, prompt: 'queue', duration_s: 5, seed: 1, cache: false });
    const queued: Promise<Response>[] = [];
    for (let i = 0; i < ASYNC_JOBS; i++) {
      queued.push(fetch(`${server.url}/v1/music`, { method: 'POST', headers: { authorization: `Bearer ${org.live}`, 'content-type': 'application/json' }, body }));
      if (queued.length >= 64) await Promise.all(queued.splice(0));
    }
    await Promise.all(queued);
    await stop(server.proc);
    const t0 = Date.now();
    server = await startServe(env);
    const startupMs = Date.now() - t0;
    const drainStart = Date.now();
    for (;;) {
      const w = (await (await fetch(`${server.url}/v1/wallet`, { headers: { authorization: `Bearer ${org.live}` } })).json()) as { held_credits: number };
      if (w.held_credits === 0) break;
      if (Date.now() - drainStart > 300_000) throw new Error('async jobs did not drain');
      await new Promise((r) => setTimeout(r, 50));
    }
    const asyncJobsPerSec = Math.round(ASYNC_JOBS / ((Date.now() - drainStart) / 1000));
    void startupMs;
    await stop(server.proc);
    const usage = await benchUsage(backend, PG_ADMIN);
    return { backend, rawWriteTxPerSec, chat, image512, asyncJobsPerSec, usage };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    if (dbName) {
      const admin = new pg.Client({ connectionString: PG_ADMIN });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await admin.end();
    }
  }
}

async function main(): Promise<void> {
  const results: BackendResult[] = [];
  for (const backend of ['pglite', 'postgres'] as const) {
    process.stderr.write(`bench: ${backend}…\n`);
    results.push(await benchBackend(backend));
  }
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  const report = { date: new Date().toISOString(), machine, seconds: SECONDS, connections: CONNECTIONS, asyncJobs: ASYNC_JOBS, results };
  writeFileSync(join(process.cwd(), 'bench', 'results.json'), `${JSON.stringify(report, null, 2)}\n`);
  const line = (r: HttpResult) => `${r.rps}/s p50 ${r.p50} ms p99 ${r.p99} ms (${r.non2xx} non-2xx, ${r.errors} errors)`;
  console.log(`machine: ${machine}`);
  for (const r of results) {
    console.log(`\n[${r.backend}] raw write tx: ${r.rawWriteTxPerSec}/s`);
    console.log(`  chat (live, simulator):  ${line(r.chat)}  = ${(r.chat.rps / r.rawWriteTxPerSec).toFixed(2)} × raw tx`);
    console.log(`  image 512×512:           ${line(r.image512)}`);
    console.log(`  async jobs (worker):     ${r.asyncJobsPerSec}/s`);
    const u = r.usage;
    console.log(`  GET /v1/usage, ${u.ledgerRows} ledger rows: day p50 ${u.byDay.p50} ms p97.5 ${u.byDay.p97_5} ms; model p97.5 ${u.byModel.p97_5} ms; api_key p97.5 ${u.byKey.p97_5} ms`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
