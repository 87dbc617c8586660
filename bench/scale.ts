/**
 * `npm run bench:scale`: scale-out on PostgreSQL, in one run on this machine.
 *
 * Live-mode (simulated provider) chat and 512×512 image generations per second
 * with (1) one API process (`mmgen serve`, its worker inside) and (2) two API
 * processes (`serve --no-worker`) plus one `mmgen worker`, the load split
 * evenly between the two API processes. The raw write-transaction rate of the
 * same PostgreSQL is measured before and after the mmgen runs (simple
 * autocommit INSERTs from 8 clients, a pg loop; pgbench with the same one-INSERT
 * script is reported alongside when it is installed), and each figure is
 * reported as a ratio: generations/s ÷ raw write transactions/s (target ≥ 0.4).
 *
 * Only loopback addresses are contacted. BENCH_SECONDS (default 10) per load,
 * BENCH_CONNECTIONS (default 32) in total, BENCH_PG_URL for another server.
 * Results: printed, and written to bench/scale-results.json.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cannon, CONNECTIONS, createOrg, pgbenchTpcbRate, pgbenchTps, rawPgRate, scratchDatabase, SECONDS, startServe, startWorkerProcess, stop, type HttpResult } from './harness.js';

const run = promisify(execFile);

interface Measured extends HttpResult {
  /** CPU time the mmgen processes spent per generation (user + system, from /proc; null elsewhere). */
  mmgenCpuMsPerGeneration: number | null;
}

interface Layout {
  layout: string;
  chat: Measured;
  image512: Measured;
}

/** CPU milliseconds a process has used so far (Linux /proc), or null. */
function cpuMs(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * (1000 / 100); // clock ticks at the usual 100 Hz
  } catch {
    return null;
  }
}

/** A load, and the CPU the given processes spent on it per request. */
async function loadMeasured(pids: number[], urls: string[], path: string, key: string, body: unknown): Promise<Measured> {
  const before = pids.map(cpuMs);
  const r = await load(urls, path, key, body);
  const after = pids.map(cpuMs);
  const spent = before.every((b) => b !== null) && after.every((a) => a !== null)
    ? after.reduce((sum, a, i) => sum + (a! - before[i]!), 0)
    : null;
  return { ...r, mmgenCpuMsPerGeneration: spent === null || r.requests === 0 ? null : Math.round((spent / r.requests) * 100) / 100 };
}

const CHAT = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello to the benchmark.' }], max_tokens: 64 };
// A fixed seed lets the simulator reuse its render; cache: false still makes (and charges) a generation each time.
const IMAGE = { model: 'flux-schnell', prompt: 'a benchmark', width: 512, height: 512, seed: 7, cache: false };

/** The same load on every URL at once (connections split evenly), added up. */
async function load(urls: string[], path: string, key: string, body: unknown): Promise<HttpResult> {
  const each = Math.max(1, Math.floor(CONNECTIONS / urls.length));
  const parts = await Promise.all(urls.map((u) => cannon(u, path, key, body, each, SECONDS)));
  return {
    rps: parts.reduce((s, p) => s + p.rps, 0),
    // Latency of the whole: the worst of the parts (autocannon gives percentiles, which cannot be merged exactly).
    p50: Math.max(...parts.map((p) => p.p50)),
    p99: Math.max(...parts.map((p) => p.p99)),
    non2xx: parts.reduce((s, p) => s + p.non2xx, 0),
    errors: parts.reduce((s, p) => s + p.errors, 0),
    requests: parts.reduce((s, p) => s + p.requests, 0),
  };
}

async function measure(layout: string, urls: string[], pids: number[], key: string): Promise<Layout> {
  process.stderr.write(`bench:scale: ${layout}…\n`);
  // Warm up code paths, prepared statements and the render cache.
  await load(urls, '/v1/chat', key, CHAT);
  await load(urls, '/v1/images', key, IMAGE);
  const chat = await loadMeasured(pids, urls, '/v1/chat', key, CHAT);
  const image512 = await loadMeasured(pids, urls, '/v1/images', key, IMAGE);
  return { layout, chat, image512 };
}

/** pgbench with a one-INSERT script, 8 clients: the same transaction as the pg loop, from a C client. */
async function pgbenchRate(url: string): Promise<number | null> {
  const dir = mkdtempSync(join(tmpdir(), 'mmgen-pgbench-'));
  try {
    const script = join(dir, 'insert.sql');
    writeFileSync(script, 'INSERT INTO bench_tx (x) VALUES (1);\n');
    await run('psql', [url, '-qc', 'CREATE TABLE IF NOT EXISTS bench_tx (id bigserial PRIMARY KEY, x int)']);
    const tps = await pgbenchTps(['-n', '-f', script, '-c', '8', '-j', '2', '-T', '3', url]);
    await run('psql', [url, '-qc', 'DROP TABLE bench_tx']);
    return tps;
  } catch {
    return null; // pgbench or psql not installed
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const db = await scratchDatabase('mmgen_scale');
  const dataDir = mkdtempSync(join(tmpdir(), 'mmgen-scale-'));
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    MMGEN_DATA_DIR: dataDir,
    MMGEN_SIMULATE_PROVIDERS: '1',
    MMGEN_RATE_LIMIT_TEAM: '10000000',
    // A bench spends fast by design: the anomaly detector would pause the organization midway (every answer a 403).
    MMGEN_ANOMALY_FLOOR_USD: '1000000000',
  };
  const procs: ChildProcess[] = [];
  try {
    process.stderr.write('bench:scale: raw PostgreSQL write rate…\n');
    const rawBefore = await rawPgRate(db.url, 5);
    const pgbench = await pgbenchRate(db.url);
    const tpcbBefore = await pgbenchTpcbRate(db.url);

    const one = await startServe(env);
    procs.push(one.proc);
    const org = await createOrg(env);
    const single = await measure('1 API process (serve, worker inside)', [one.url], [one.proc.pid!], org.live);
    await stop(one.proc);

    const apis = await Promise.all([startServe(env, ['--no-worker']), startServe(env, ['--no-worker'])]);
    procs.push(...apis.map((a) => a.proc));
    const worker = await startWorkerProcess(env);
    procs.push(worker);
    const scaled = await measure('2 API processes + 1 worker', apis.map((a) => a.url), [...apis.map((a) => a.proc.pid!), worker.pid!], org.live);
    for (const p of procs) await stop(p);
    // A refused request is not a generation: a run with any is no measurement.
    for (const m of [single, scaled]) {
      for (const r of [m.chat, m.image512]) if (r.non2xx > 0 || r.errors > 0) throw new Error(`${m.layout}: ${r.non2xx} non-2xx answers and ${r.errors} errors`);
    }

    process.stderr.write('bench:scale: raw PostgreSQL write rate again…\n');
    const rawAfter = await rawPgRate(db.url, 5);
    const raw = Math.round((rawBefore + rawAfter) / 2);
    const tpcbAfter = await pgbenchTpcbRate(db.url);
    const tpcb = tpcbBefore !== null && tpcbAfter !== null ? Math.round((tpcbBefore + tpcbAfter) / 2) : null;

    const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
    const ratio = (rps: number) => Math.round((rps / raw) * 100) / 100;
    // The figure that carries over across machines: generations/s ÷ pgbench's TPC-B-like transactions/s.
    const tpcbRatio = (rps: number) => (tpcb ? Math.round((rps / tpcb) * 100) / 100 : null);
    const report = {
      date: new Date().toISOString(),
      machine,
      loadAverageAtEnd: loadavg().map((x) => Math.round(x * 10) / 10),
      seconds: SECONDS,
      connections: CONNECTIONS,
      rawWriteTxPerSec: { before: rawBefore, after: rawAfter, mean: raw, pgbench },
      tpcbTxPerSec: { before: tpcbBefore, after: tpcbAfter, mean: tpcb },
      results: [single, scaled].map((l) => ({
        ...l,
        chatRatio: ratio(l.chat.rps), imageRatio: ratio(l.image512.rps),
        chatTpcbRatio: tpcbRatio(l.chat.rps), imageTpcbRatio: tpcbRatio(l.image512.rps),
      })),
    };
    writeFileSync(join(process.cwd(), 'bench', 'scale-results.json'), `${JSON.stringify(report, null, 2)}\n`);

    const line = (r: Measured) =>
      `${String(r.rps).padStart(5)}/s  p50 ${r.p50} ms  p99 ${r.p99} ms  (${r.non2xx} non-2xx, ${r.errors} errors)  mmgen CPU ${r.mmgenCpuMsPerGeneration ?? '?'} ms/generation`;
    console.log(`machine: ${machine}; load average at the end ${report.loadAverageAtEnd.join(' ')}`);
    console.log(`raw PostgreSQL write tx/s (pg loop, 8 clients): ${rawBefore} before, ${rawAfter} after, mean ${raw}${pgbench ? `; pgbench: ${pgbench}` : ''}`);
    console.log(`pgbench tpcb-like tx/s (8 clients, scale 8): ${tpcbBefore ?? '?'} before, ${tpcbAfter ?? '?'} after, mean ${tpcb ?? '?'}`);
    for (const r of report.results) {
      console.log(`\n[${r.layout}]`);
      console.log(`  chat (live, simulator):  ${line(r.chat)}  ratio ${r.chatRatio}, ÷ tpcb ${r.chatTpcbRatio ?? '?'}`);
      console.log(`  image 512×512:           ${line(r.image512)}  ratio ${r.imageRatio}, ÷ tpcb ${r.imageTpcbRatio ?? '?'}`);
    }
  } finally {
    for (const p of procs) await stop(p).catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
    await db.drop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
