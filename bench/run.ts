/**
 * `npm run bench`: throughput and latency of mmgen on this machine, on the
 * embedded default (PGlite) and on PostgreSQL, in one run, next to the raw
 * write-transaction rate of each database so that figures read as ratios on
 * any machine. Results are printed and written to bench/results.json; the
 * README in this folder keeps the figures of record.
 *
 * Only loopback addresses are contacted. Set BENCH_SECONDS to lengthen runs,
 * BENCH_PG_URL to point at another PostgreSQL (default: the local `test` db),
 * BENCH_BACKENDS=postgres (or pglite) for one backend, and BENCH_QUICK=1 to
 * skip the usage and webhook parts while working on throughput.
 *
 * Async jobs/s: jobs queued with no worker, then one `serve` drains them. On
 * PostgreSQL the figure is the jobs over the time from the first one taken up
 * to the last one finished, read from the rows (the worker starts before the
 * server answers /healthz, so a wall clock started then misses the first
 * jobs); on PGlite, the wall clock from /healthz to an empty hold.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ASYNC_JOBS, cannon, CONNECTIONS, createOrg, PG_ADMIN, pgbenchTpcbRate, rawPgliteRate, rawPgRate, scratchDatabase, SECONDS, startServe, stop, type HttpResult } from './harness.js';
import { benchUsage, type UsageBench } from './usage.js';
import { benchWebhooks, type WebhookBench } from './webhooks.js';

const ORGS = Number(process.env.BENCH_ORGS ?? 8);
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'pglite,postgres').split(',') as ('pglite' | 'postgres')[];
const QUICK = process.env.BENCH_QUICK === '1';
/**
 * Chat is also measured with fewer connections: on two cores throughput is
 * already at its peak with about 12, and more only queue in front of the
 * server (mean latency = connections / throughput), so the latency target is
 * read there and the throughput at 32 as well.
 */
const LATENCY_CONNECTIONS = Number(process.env.BENCH_LATENCY_CONNECTIONS ?? 12);

interface BackendResult {
  backend: string;
  rawWriteTxPerSec: number;
  /** pgbench's TPC-B-like transactions/s on the same PostgreSQL in this run (null on PGlite). */
  tpcbTxPerSec: number | null;
  chat: HttpResult;
  /** The same chat with LATENCY_CONNECTIONS connections. */
  chatLatency: HttpResult;
  /** The same chat spread over ORGS organizations. */
  chatOrgs: HttpResult;
  image512: HttpResult;
  asyncJobsPerSec: number;
  usage: UsageBench | null;
  webhooks: WebhookBench | null;
}

/** Async jobs per second from the generations' own timestamps: all of them, over first start to last completion. */
async function drainRateFromRows(url: string, jobs: number): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query<{ n: number; span: number }>(
      "SELECT count(*)::int AS n, extract(epoch FROM max(completed_at) - min(started_at))::float8 AS span FROM generations WHERE modality = 'music' AND status = 'succeeded'",
    );
    const { n, span } = r.rows[0]!;
    if (n !== jobs) throw new Error(`${n} of ${jobs} async jobs succeeded`);
    return Math.round(n / span);
  } finally {
    await c.end();
  }
}

async function benchBackend(backend: 'pglite' | 'postgres'): Promise<BackendResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mmgen-bench-'));
  let dropDb: (() => Promise<void>) | null = null;
  const env: Record<string, string> = { MMGEN_DATA_DIR: dataDir, MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_RATE_LIMIT_TEAM: '10000000', MMGEN_ANOMALY_FLOOR_USD: '1000000000' };
  let rawWriteTxPerSec: number;
  let tpcbTxPerSec: number | null = null;
  if (backend === 'postgres') {
    const scratch = await scratchDatabase('mmgen_bench');
    dropDb = scratch.drop;
    env.DATABASE_URL = scratch.url;
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
    const chatBody = { model: chatModel, messages: [{ role: 'user', content: 'Say hello to the benchmark.' }], max_tokens: 64 };
    const chat = await cannon(server.url, '/v1/chat', org.live, chatBody);
    const chatLatency = await cannon(server.url, '/v1/chat', org.live, chatBody, LATENCY_CONNECTIONS);
    // One organization's generations serialize on its wallet row (an exact credit gate); many organizations do not.
    const orgs = [org, ...(await Promise.all(Array.from({ length: ORGS - 1 }, () => createOrg(env))))];
    const chatOrgs = await cannon(server.url, '/v1/chat', orgs.map((o) => o.live), { model: chatModel, messages: [{ role: 'user', content: 'Say hello to the benchmark.' }], max_tokens: 64 });
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
    let asyncJobsPerSec = Math.round(ASYNC_JOBS / ((Date.now() - drainStart) / 1000));
    void startupMs;
    await stop(server.proc);
    // The worker starts before the server answers /healthz, so the wall clock above misses the first jobs' time. On
    // PostgreSQL the rows say when the drain really ran: from the first job taken up to the last one finished.
    if (env.DATABASE_URL) asyncJobsPerSec = await drainRateFromRows(env.DATABASE_URL, ASYNC_JOBS);
    // After mmgen's runs, so that its writes and checkpoints do not weigh on them.
    if (env.DATABASE_URL) tpcbTxPerSec = await pgbenchTpcbRate(env.DATABASE_URL);
    const usage = QUICK ? null : await benchUsage(backend, PG_ADMIN);
    const webhooks = QUICK ? null : await benchWebhooks(backend, PG_ADMIN, Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000));
    return { backend, rawWriteTxPerSec, tpcbTxPerSec, chat, chatLatency, chatOrgs, image512, asyncJobsPerSec, usage, webhooks };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await dropDb?.();
  }
}

async function main(): Promise<void> {
  const results: BackendResult[] = [];
  for (const backend of BACKENDS) {
    process.stderr.write(`bench: ${backend}…\n`);
    results.push(await benchBackend(backend));
  }
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  const report = { date: new Date().toISOString(), machine, seconds: SECONDS, connections: CONNECTIONS, asyncJobs: ASYNC_JOBS, results };
  writeFileSync(join(process.cwd(), 'bench', 'results.json'), `${JSON.stringify(report, null, 2)}\n`);
  const line = (r: HttpResult) => `${r.rps}/s p50 ${r.p50} ms p99 ${r.p99} ms (${r.non2xx} non-2xx, ${r.errors} errors)`;
  console.log(`machine: ${machine}`);
  for (const r of results) {
    console.log(`\n[${r.backend}] raw write tx: ${r.rawWriteTxPerSec}/s${r.tpcbTxPerSec ? `; pgbench tpcb-like: ${r.tpcbTxPerSec} tx/s` : ''}`);
    const tpcb = r.tpcbTxPerSec;
    if (tpcb) console.log(`  ÷ tpcb-like tx/s: chat ${(r.chat.rps / tpcb).toFixed(2)}, image ${(r.image512.rps / tpcb).toFixed(2)}, async ${(r.asyncJobsPerSec / tpcb).toFixed(2)}`);
    console.log(`  chat (live, simulator):  ${line(r.chat)}  = ${(r.chat.rps / r.rawWriteTxPerSec).toFixed(2)} × raw tx`);
    console.log(`  chat, ${LATENCY_CONNECTIONS} connections:    ${line(r.chatLatency)}`);
    console.log(`  chat over ${ORGS} orgs:        ${line(r.chatOrgs)}  = ${(r.chatOrgs.rps / r.rawWriteTxPerSec).toFixed(2)} × raw tx`);
    console.log(`  image 512×512:           ${line(r.image512)}`);
    console.log(`  async jobs (worker):     ${r.asyncJobsPerSec}/s`);
    const u = r.usage;
    if (u) console.log(`  GET /v1/usage, ${u.ledgerRows} ledger rows: day p50 ${u.byDay.p50} ms p97.5 ${u.byDay.p97_5} ms; model p97.5 ${u.byModel.p97_5} ms; api_key p97.5 ${u.byKey.p97_5} ms`);
    const w = r.webhooks;
    if (w) console.log(`  webhook deliveries:      ${w.deliveriesPerSec}/s (${w.events} events, signature-checking receiver, ${w.badSignatures} bad signatures, attempt p50 ${w.attemptP50Ms} ms p99 ${w.attemptP99Ms} ms)`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
