/**
 * `npm run bench:gateway`: mmgen's own overhead on POST /v1/chat/completions,
 * side by side in one run with the open-source Portkey gateway
 * (@portkey-ai/gateway) proxying the same zero-latency loopback upstream.
 *
 * Four targets, each in its own process, on loopback only:
 * - direct: the upstream itself (bench/upstream.ts), the baseline;
 * - portkey: Portkey's Node server, pointed at the upstream with
 *   x-portkey-provider: openai and x-portkey-custom-host;
 * - mmgen (PGlite) and mmgen (PostgreSQL): `mmgen serve` with OPENAI_BASE_URL
 *   on the upstream, a live key with credits: every request is authenticated,
 *   rate-limited, reserved, sent through the real OpenAI adapter and charged
 *   (the completion is answered before its charge is written; mmgen's own
 *   POST /v1/chat, measured too on PostgreSQL, answers after it).
 *
 * Added latency = a target's latency − the upstream's, measured with one
 * connection per target and sequential requests (no queueing), at p50 and
 * p99 over all requests, in short blocks that alternate the targets so that
 * machine noise falls on all of them; and, paired, the median over rounds of
 * each block's p50 minus the upstream block's p50 of the same round.
 * Max req/s comes from autocannon with BENCH_CONNECTIONS connections for
 * BENCH_SECONDS. Results go to stdout and bench/gateway-results.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Agent, request } from 'undici';
import { BIN, createOrg, freePort, PG_ADMIN, scratchDatabase, startPortkey } from './harness.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
// Many short blocks rather than a few long rounds: this VM's speed drifts by tens of percent within a minute,
// and blocks of 50 requests that alternate the targets let every target see the same drift.
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 120);
const UPSTREAM_KEY = 'sk-bench';

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  /** Default /v1/chat/completions. */
  path?: string;
  proc?: ChildProcess;
}

interface Latency { p50: number; p90: number; p99: number; mean: number }
interface Row { name: string; latency: Latency; addedP50: number; addedP99: number; pairedAddedP50: number; rps: number; non2xx: number; errors: number }

const BODY = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello to the benchmark.' }], max_tokens: 64 });


/** Starts a process and waits until `ready` says it is serving. */
async function startProcess(cmd: string, args: string[], env: Record<string, string>, ready: (out: string) => Promise<string | null>): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  proc.stderr!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  for (let i = 0; i < 600; i++) {
    const url = await ready(out).catch(() => null);
    if (url) return { proc, url };
    if (proc.exitCode !== null) throw new Error(`${cmd} exited: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.kill('SIGKILL');
  throw new Error(`${cmd} did not start: ${out}`);
}

async function answers(url: string, path: string, headers: Record<string, string> = {}): Promise<boolean> {
  const res = await fetch(`${url}${path}`, { headers });
  await res.arrayBuffer();
  return res.status < 500;
}

async function stop(proc: ChildProcess | undefined): Promise<void> {
  if (!proc || proc.exitCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** `n` requests one after another on the target's one keep-alive connection: the time each takes, in ms (microsecond resolution). */
async function sequential(t: Target, agent: Agent, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    const res = await request(`${t.url}${t.path ?? '/v1/chat/completions'}`, { method: 'POST', headers: { 'content-type': 'application/json', ...t.headers }, body: BODY, dispatcher: agent });
    await res.body.arrayBuffer();
    if (res.statusCode !== 200) throw new Error(`${t.name} answered ${res.statusCode}`);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return times;
}

function summary(times: number[]): Latency {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length };
}

async function throughput(t: Target): Promise<{ rps: number; non2xx: number; errors: number }> {
  const r = await autocannon({
    url: `${t.url}${t.path ?? '/v1/chat/completions'}`,
    method: 'POST',
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { 'content-type': 'application/json', ...t.headers },
    body: BODY,
  });
  return { rps: Math.round(r.requests.average), non2xx: r.non2xx, errors: r.errors };
}

async function startMmgen(upstreamUrl: string, backend: 'pglite' | 'postgres', variant?: { name: string; env: Record<string, string> }): Promise<{ target: Target; cleanup: () => Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mmgen-gw-bench-'));
  const env: Record<string, string> = {
    ...variant?.env,
    MMGEN_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    OPENAI_API_KEY: UPSTREAM_KEY,
    OPENAI_BASE_URL: `${upstreamUrl}/v1`,
    MMGEN_RATE_LIMIT_TEAM: '10000000',
    // A bench spends fast by design; the anomaly detector must not pause it midway.
    MMGEN_ANOMALY_FLOOR_USD: '1000000000',
  };
  const scratch = backend === 'postgres' ? await scratchDatabase('mmgen_gwbench', PG_ADMIN) : null;
  if (scratch) env.DATABASE_URL = scratch.url;
  const port = freePort();
  const { proc, url } = await startProcess(BIN, ['serve'], { ...env, PORT: String(port), HOST: '127.0.0.1' }, async () => ((await answers(`http://127.0.0.1:${port}`, '/healthz')) ? `http://127.0.0.1:${port}` : null));
  const { live } = await createOrg(env);
  return {
    target: { name: `mmgen (${backend === 'pglite' ? 'PGlite' : 'PostgreSQL'})${variant ? `, ${variant.name}` : ''}`, url, headers: { authorization: `Bearer ${live}` }, proc },
    cleanup: async () => {
      await stop(proc);
      rmSync(dataDir, { recursive: true, force: true });
      await scratch?.drop();
    },
  };
}

async function main(): Promise<void> {
  const cleanups: Array<() => Promise<void>> = [];
  try {
    const upstream = await startProcess(process.execPath, ['--import', 'tsx', join('bench', 'upstream.ts')], { UPSTREAM_KEY }, async (out) => {
      const port = /^(\d+)$/m.exec(out)?.[1];
      return port ? `http://127.0.0.1:${port}` : null;
    });
    cleanups.push(() => stop(upstream.proc));

    const portkey = await startPortkey();
    cleanups.push(() => stop(portkey.proc));

    const targets: Target[] = [
      { name: 'upstream (direct)', url: upstream.url, headers: { authorization: `Bearer ${UPSTREAM_KEY}` } },
      {
        name: 'Portkey gateway',
        url: portkey.url,
        headers: { authorization: `Bearer ${UPSTREAM_KEY}`, 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${upstream.url}/v1` },
      },
    ];
    for (const backend of ['pglite', 'postgres'] as const) {
      if (backend === 'postgres' && process.env.BENCH_SKIP_PG === '1') continue;
      const m = await startMmgen(upstream.url, backend);
      cleanups.push(m.cleanup);
      targets.push(m.target);
      // The same chat in mmgen's own shape, which answers with the settled generation (charge written before the reply).
      if (backend === 'postgres') targets.push({ ...m.target, name: `${m.target.name}, /v1/chat (settled before replying)`, path: '/v1/chat' });
    }
    if (process.env.BENCH_SKIP_PG !== '1') {
      // What early dispatch is worth: the same server with the provider called only after the reservation commits.
      const off = await startMmgen(upstream.url, 'postgres', { name: 'early dispatch off', env: { MMGEN_EARLY_DISPATCH_HEADROOM: '0' } });
      cleanups.push(off.cleanup);
      targets.push(off.target);
    }

    // One keep-alive connection per target for the whole latency phase; warm-up first (JIT, pools, prepared statements).
    const agents = targets.map(() => new Agent({ connections: 1, pipelining: 1, keepAliveTimeout: 60_000 }));
    for (const [i, t] of targets.entries()) await sequential(t, agents[i]!, Number(process.env.BENCH_WARMUP ?? 1500));
    const times = targets.map((): number[] => []);
    const blockP50s = targets.map((): number[] => []);
    for (let r = 0; r < ROUNDS; r++) {
      if (r % 20 === 0) process.stderr.write(`latency: round ${r + 1}/${ROUNDS}\n`);
      for (const [i, t] of targets.entries()) {
        const block = await sequential(t, agents[i]!, SEQUENTIAL);
        times[i]!.push(...block);
        blockP50s[i]!.push(summary(block).p50);
      }
    }
    await Promise.all(agents.map((a) => a.close()));
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const base = summary(times[0]!);
    const rows: Row[] = [];
    for (const [i, t] of targets.entries()) {
      process.stderr.write(`throughput: ${t.name}\n`);
      const tp = await throughput(t);
      const latency = summary(times[i]!);
      // Each block against the upstream's block of the same round, a moment apart: the median of those differences.
      const pairedAddedP50 = median(blockP50s[i]!.map((p, r) => p - blockP50s[0]![r]!));
      rows.push({ name: t.name, latency, addedP50: latency.p50 - base.p50, addedP99: latency.p99 - base.p99, pairedAddedP50, ...tp });
    }

    const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
    const report = { date: new Date().toISOString(), machine, seconds: SECONDS, connections: CONNECTIONS, sequentialRequests: SEQUENTIAL, rounds: ROUNDS, rows };
    writeFileSync(join(process.cwd(), 'bench', 'gateway-results.json'), `${JSON.stringify(report, null, 2)}\n`);
    const f = (n: number) => n.toFixed(2);
    console.log(`machine: ${machine}`);
    console.log(`latency: ${ROUNDS} rounds; in each, ${SEQUENTIAL} sequential requests to each target on its one connection; throughput: ${CONNECTIONS} connections × ${SECONDS} s\n`);
    console.log('| target | p50 ms | p99 ms | added p50 ms | added p99 ms | added p50, paired by round | max req/s |');
    console.log('|---|---|---|---|---|---|---|');
    for (const r of rows) {
      const added = r.name.startsWith('upstream') ? '—' : f(r.addedP50);
      const added99 = r.name.startsWith('upstream') ? '—' : f(r.addedP99);
      const best = r.name.startsWith('upstream') ? '—' : f(r.pairedAddedP50);
      console.log(`| ${r.name} | ${f(r.latency.p50)} | ${f(r.latency.p99)} | ${added} | ${added99} | ${best} | ${r.rps}${r.non2xx || r.errors ? ` (${r.non2xx} non-2xx, ${r.errors} errors)` : ''} |`);
    }
  } finally {
    for (const c of cleanups.reverse()) await c().catch(() => {});
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
