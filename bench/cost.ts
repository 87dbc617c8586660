/**
 * `npm run bench:cost`: what one chat generation and one async job cost, in measures that do not move with the
 * machine's load: SQL statements and transactions per generation, WAL bytes, rows written, and the CPU time of the
 * mmgen process and of its PostgreSQL backends per request (CPU time is not wall time: a busy machine stretches a
 * request's latency far more than its CPU). Meant for a machine shared with others, where latency figures are noise,
 * and for comparing two builds (`BENCH_BIN=<checkout>/bin/mmgen`).
 *
 * Chat: N completions, one after another on one connection, through POST /v1/chat/completions to the zero-latency
 * OpenAI fake of bench:gateway (so the path is the gateway bench's). Async: M music jobs queued with no worker, then
 * drained by one `mmgen serve`.
 *
 * Statements per request come from pg_stat_statements, so BENCH_PG_URL must name a PostgreSQL that preloads it
 * (`shared_preload_libraries = 'pg_stat_statements'`) and, for the WAL figure to be mmgen's alone, one nothing else
 * writes to during the run (a private cluster: see bench/README.md, "Per-request cost"). Without the extension the
 * statement breakdown is left out and the rest is still measured.
 *
 *   BENCH_PG_URL=postgres://postgres@127.0.0.1:5499/test npm run bench:cost
 *
 * Knobs: BENCH_CHAT (3000), BENCH_ASYNC_JOBS (2000), BENCH_PATH (/v1/chat/completions), BENCH_BIN, BENCH_VERBOSE=1
 * (every statement, not only the top ones). Prints a table; BENCH_JSON=1 prints JSON instead.
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Agent, request } from 'undici';
import { BIN, createOrg, PG_ADMIN, scratchDatabase, startServe, startUpstream, stop, UPSTREAM_KEY } from './harness.js';

const CHAT = Number(process.env.BENCH_CHAT ?? 3000);
const JOBS = Number(process.env.BENCH_ASYNC_JOBS ?? 2000);
const PATH = process.env.BENCH_PATH ?? '/v1/chat/completions';
const bin = process.env.BENCH_BIN ?? BIN;
const TICK_MS = 10; // USER_HZ is 100 on Linux

/** utime + stime of a process, in ms. */
function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0; // a backend that has exited
  }
}

interface Snapshot {
  wal: string;
  xactCommit: number;
  tupIns: number;
  tupUpd: number;
  tupDel: number;
  mmgenCpu: number;
  backendCpu: Map<number, number>;
}

async function snapshot(admin: pg.Client, db: string, mmgenPid: number): Promise<Snapshot> {
  const s = await admin.query<{ lsn: string; xact_commit: string; tup_inserted: string; tup_updated: string; tup_deleted: string }>(
    '/*probe*/ SELECT pg_current_wal_lsn()::text AS lsn, xact_commit, tup_inserted, tup_updated, tup_deleted FROM pg_stat_database WHERE datname = $1',
    [db],
  );
  const backends = await admin.query<{ pid: number }>('/*probe*/ SELECT pid FROM pg_stat_activity WHERE datname = $1', [db]);
  const r = s.rows[0]!;
  return {
    wal: r.lsn,
    xactCommit: Number(r.xact_commit),
    tupIns: Number(r.tup_inserted),
    tupUpd: Number(r.tup_updated),
    tupDel: Number(r.tup_deleted),
    mmgenCpu: cpuMs(mmgenPid),
    backendCpu: new Map(backends.rows.map((b) => [b.pid, cpuMs(b.pid)])),
  };
}

interface Statement { query: string; calls: number; rows: number; walBytes: number; meanMs: number }
interface Cost {
  requests: number;
  statementsPerRequest: number | null;
  transactionsPerRequest: number;
  walBytesPerRequest: number;
  rowsWrittenPerRequest: { inserted: number; updated: number; deleted: number };
  mmgenCpuMsPerRequest: number;
  postgresCpuMsPerRequest: number;
  statements: Statement[];
}

async function stats(admin: pg.Client, db: string): Promise<boolean> {
  try {
    await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await admin.query('/*probe*/ SELECT pg_stat_statements_reset()');
    void db;
    return true;
  } catch {
    return false;
  }
}

async function measure(admin: pg.Client, db: string, mmgenPid: number, n: number, withStatements: boolean, work: () => Promise<void>): Promise<Cost> {
  // Quiesce what an earlier phase left (batched finishes, settlements) before the first snapshot.
  await new Promise((r) => setTimeout(r, 500));
  if (withStatements) await admin.query('/*probe*/ SELECT pg_stat_statements_reset()');
  const a = await snapshot(admin, db, mmgenPid);
  await work();
  // Let the batched finishes and settlements of the last requests land before the second snapshot.
  await new Promise((r) => setTimeout(r, 1000));
  const b = await snapshot(admin, db, mmgenPid);
  const wal = await admin.query<{ bytes: string }>('/*probe*/ SELECT pg_wal_lsn_diff($1, $2)::bigint AS bytes', [b.wal, a.wal]);
  let backendCpu = 0;
  for (const [pid, after] of b.backendCpu) backendCpu += after - (a.backendCpu.get(pid) ?? 0);
  let statements: Statement[] = [];
  if (withStatements) {
    const s = await admin.query<{ query: string; calls: string; rows: string; wal_bytes: string; mean: number }>(
      `/*probe*/ SELECT s.query, s.calls, s.rows, s.wal_bytes, s.mean_exec_time AS mean FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
        WHERE d.datname = $1 AND s.query NOT LIKE '/*probe*/%' ORDER BY s.calls DESC`,
      [db],
    );
    statements = s.rows.map((r) => ({ query: r.query.replace(/\s+/g, ' ').slice(0, 160), calls: Number(r.calls), rows: Number(r.rows), walBytes: Number(r.wal_bytes), meanMs: r.mean }));
  }
  const calls = statements.reduce((t, s) => t + s.calls, 0);
  return {
    requests: n,
    statementsPerRequest: withStatements ? calls / n : null,
    transactionsPerRequest: (b.xactCommit - a.xactCommit) / n,
    walBytesPerRequest: Number(wal.rows[0]!.bytes) / n,
    rowsWrittenPerRequest: { inserted: (b.tupIns - a.tupIns) / n, updated: (b.tupUpd - a.tupUpd) / n, deleted: (b.tupDel - a.tupDel) / n },
    mmgenCpuMsPerRequest: (b.mmgenCpu - a.mmgenCpu) / n,
    postgresCpuMsPerRequest: backendCpu / n,
    statements,
  };
}


async function main(): Promise<void> {
  const scratch = await scratchDatabase('mmgen_cost', PG_ADMIN);
  const dbName = new URL(scratch.url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  const withStatements = await stats(admin, dbName);
  const upstream = await startUpstream();
  const dataDir = mkdtempSync(join(tmpdir(), 'mmgen-cost-'));
  const env: Record<string, string> = {
    DATABASE_URL: scratch.url,
    MMGEN_DATA_DIR: dataDir,
    OPENAI_API_KEY: UPSTREAM_KEY,
    OPENAI_BASE_URL: `${upstream.url}/v1`,
    MMGEN_RATE_LIMIT_TEAM: '10000000',
    MMGEN_ANOMALY_FLOOR_USD: '1000000000',
  };
  const out: Record<string, Cost> = {};
  try {
    let server = await startServe(env, [], bin);
    const org = await createOrg(env, bin);
    const agent = new Agent({ connections: 1, pipelining: 1, keepAliveTimeout: 60_000 });
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello to the benchmark.' }], max_tokens: 64 });
    const chat = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const res = await request(`${server.url}${PATH}`, { method: 'POST', headers: { authorization: `Bearer ${org.live}`, 'content-type': 'application/json' }, body, dispatcher: agent });
        await res.body.arrayBuffer();
        if (res.statusCode !== 200) throw new Error(`chat answered ${res.statusCode}`);
      }
    };
    await chat(Math.min(1000, CHAT));
    out[`chat ${PATH}`] = await measure(admin, dbName, server.proc.pid!, CHAT, withStatements, () => chat(CHAT));
    await agent.close();

    if (JOBS > 0) {
      await stop(server.proc);
      server = await startServe({ ...env, MMGEN_SIMULATE_PROVIDERS: '1' }, ['--no-worker'], bin);
      const job = JSON.stringify({ model: 'musicgen', prompt: 'queue', duration_s: 5, seed: 1, cache: false });
      const queued: Promise<Response>[] = [];
      for (let i = 0; i < JOBS; i++) {
        queued.push(fetch(`${server.url}/v1/music`, { method: 'POST', headers: { authorization: `Bearer ${org.live}`, 'content-type': 'application/json' }, body: job }));
        if (queued.length >= 32) for (const r of await Promise.all(queued.splice(0))) if (r.status !== 202) throw new Error(`queue answered ${r.status}`);
      }
      await Promise.all(queued);
      await stop(server.proc);
      server = await startServe({ ...env, MMGEN_SIMULATE_PROVIDERS: '1' }, [], bin);
      const started = Date.now();
      const watch = new pg.Client({ connectionString: scratch.url });
      await watch.connect();
      out['async job (drained by serve)'] = await measure(admin, dbName, server.proc.pid!, JOBS, withStatements, async () => {
        for (;;) {
          const left = await watch.query<{ n: string }>("/*probe*/ SELECT count(*) AS n FROM generations WHERE status IN ('queued','running')");
          if (Number(left.rows[0]!.n) === 0) break;
          if (Date.now() - started > 300_000) throw new Error('jobs did not drain in 5 minutes');
          await new Promise((r) => setTimeout(r, 100));
        }
      });
      await watch.end();
    }
    await stop(server.proc);
  } finally {
    await stop(upstream.proc);
    await admin.end();
    await scratch.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (process.env.BENCH_JSON === '1') {
    console.log(JSON.stringify(out, null, 2));
    return;
  }
  const f = (x: number, d = 2) => x.toFixed(d);
  console.log(`bin: ${bin}`);
  for (const [name, c] of Object.entries(out)) {
    console.log(`\n${name}: ${c.requests} requests`);
    console.log(`  statements/request ${c.statementsPerRequest === null ? 'n/a (no pg_stat_statements)' : f(c.statementsPerRequest)}, transactions/request ${f(c.transactionsPerRequest)}, WAL bytes/request ${Math.round(c.walBytesPerRequest)}`);
    console.log(`  rows/request inserted ${f(c.rowsWrittenPerRequest.inserted)} updated ${f(c.rowsWrittenPerRequest.updated)} deleted ${f(c.rowsWrittenPerRequest.deleted)}`);
    console.log(`  CPU ms/request: mmgen ${f(c.mmgenCpuMsPerRequest, 3)}, PostgreSQL backends ${f(c.postgresCpuMsPerRequest, 3)}`);
    const shown = process.env.BENCH_VERBOSE === '1' ? c.statements : c.statements.filter((s) => s.calls / c.requests >= 0.01);
    for (const s of shown) console.log(`    ${f(s.calls / c.requests, 3).padStart(7)}/req  rows ${f(s.rows / Math.max(1, s.calls), 1).padStart(5)}  wal ${String(Math.round(s.walBytes / c.requests)).padStart(5)} B/req  ${f(s.meanMs, 3)} ms  ${s.query}`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
