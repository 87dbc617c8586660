/**
 * This checkout beside another one (`BENCH_BEFORE=<path to a checkout with its node_modules>`), in one run: both
 * servers start on PostgreSQL databases of their own, then short rounds of the same load alternate between them
 * (A B, then B A), so that a machine that gets busier or quieter during the run weighs on both alike. What it
 * prints is each round's ratio (this ÷ before) and their median: on a noisy machine a ratio of paired rounds moves
 * far less than either figure does.
 *
 *   BENCH_BEFORE=/path/to/old/checkout npm run bench:side-by-side
 *   BENCH_BEFORE=/path/to/old/checkout BENCH_MODE=gateway npm run bench:side-by-side
 *
 * Two loads (BENCH_MODE):
 * - `chat` (default): /v1/chat on the simulator, BENCH_CONNECTIONS connections for BENCH_ROUND_SECONDS a round;
 *   the figure is requests/s.
 * - `gateway`: bench:gateway's figure, mmgen's added latency on POST /v1/chat/completions over the zero-latency
 *   OpenAI fake (bench/upstream.ts): one connection per target, blocks of BENCH_SEQUENTIAL requests one after
 *   another, the upstream's own block in every round; a round's figure is the block's p50 minus the upstream
 *   block's p50. Beside it, each server's CPU time per request over the round (from /proc), which a busy machine
 *   moves far less than latency.
 *
 * One side can differ by its settings alone (BENCH_BEFORE may then be this checkout): BENCH_THIS_NODE_OPTIONS (say,
 * `--import ./bench/accept-stand-in-hook.mjs`, the accepting statement's work in PostgreSQL taken away) and
 * BENCH_THIS_PG_SOCKET (a directory: this side reaches PostgreSQL over its Unix socket instead of TCP), and
 * BENCH_THIS_ENV (a JSON object of settings, e.g. '{"MMGEN_FINISH_BATCH_MS":"50"}').
 *
 * Knobs: BENCH_ROUNDS (8 chat, 40 gateway), BENCH_ROUND_SECONDS (3), BENCH_CONNECTIONS (32), BENCH_SEQUENTIAL (50),
 * BENCH_WARMUP (1500), BENCH_MODELS (chat models, comma separated; default one that is deprecated, so answers carry
 * deprecation headers, and one that is not).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Agent, request } from 'undici';
import { cannon, CONNECTIONS, createOrg, scratchDatabase, startServe, startUpstream, stop, UPSTREAM_KEY, type HttpResult } from './harness.js';

export type Mode = 'chat' | 'gateway';

interface Side {
  name: 'before' | 'this';
  url: string;
  key: string;
  pid: number;
  stop: () => Promise<void>;
}


async function startSide(name: Side['name'], checkout: string, extraEnv: Record<string, string>): Promise<Side> {
  const bin = join(checkout, 'bin', 'mmgen');
  const db = await scratchDatabase(`mmgen_sbs_${name}`);
  const env = {
    DATABASE_URL: db.url,
    MMGEN_DATA_DIR: join('/tmp', `mmgen-sbs-${name}-${process.pid}`),
    MMGEN_RATE_LIMIT_TEAM: '10000000',
    MMGEN_ANOMALY_FLOOR_USD: '1000000000',
    ...extraEnv,
    // What only this side runs with: a measuring hook (accept-stand-in-hook.mjs), PostgreSQL over its Unix socket.
    ...(name === 'this' && process.env.BENCH_THIS_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_THIS_NODE_OPTIONS } : {}),
    ...(name === 'this' && process.env.BENCH_THIS_ENV ? (JSON.parse(process.env.BENCH_THIS_ENV) as Record<string, string>) : {}),
  };
  if (name === 'this' && process.env.BENCH_THIS_PG_SOCKET) env.DATABASE_URL = `${db.url}?host=${encodeURIComponent(process.env.BENCH_THIS_PG_SOCKET)}`;
  const server = await startServe(env, [], bin);
  const org = await createOrg(env, bin);
  return {
    name,
    url: server.url,
    key: org.live,
    pid: server.proc.pid!,
    stop: async () => {
      await stop(server.proc);
      await db.drop();
    },
  };
}

const chatBody = (model: string) => ({ model, messages: [{ role: 'user', content: 'Say hello to the benchmark.' }], max_tokens: 64 });

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** utime + stime of a process in ms (USER_HZ 100). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}


/** `n` requests one after another on one keep-alive connection: each one's time in ms. */
async function sequential(url: string, headers: Record<string, string>, agent: Agent, n: number, body: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    const res = await request(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, dispatcher: agent });
    await res.body.arrayBuffer();
    if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return times;
}

export interface GatewayComparison {
  rounds: number;
  /** Median over rounds of each build's added p50 (its block's p50 − the upstream block's p50), ms. */
  addedP50: { before: number; this: number };
  /** Median over rounds of (this build's added p50 ÷ the before build's). */
  ratio: number;
  /** CPU ms per request of each server, over all rounds. */
  cpuMsPerRequest: { before: number; this: number };
  byRound: Array<{ before: number; this: number }>;
}

/** bench:gateway's figure for both builds, alternated in rounds (A B, then B A), in one run. */
export async function compareGateway(beforeCheckout: string, thisCheckout: string, opts: { rounds: number; sequential: number; warmup: number }): Promise<GatewayComparison> {
  const upstream = await startUpstream();
  const sides: Side[] = [];
  try {
    const env = { OPENAI_API_KEY: UPSTREAM_KEY, OPENAI_BASE_URL: `${upstream.url}/v1` };
    sides.push(await startSide('before', beforeCheckout, env), await startSide('this', thisCheckout, env));
    const body = JSON.stringify(chatBody('gpt-4o-mini'));
    const agents = new Map<string, Agent>([['upstream', new Agent({ connections: 1, keepAliveTimeout: 60_000 })], ...sides.map((s) => [s.name, new Agent({ connections: 1, keepAliveTimeout: 60_000 })] as const)]);
    const headers = (s: Side) => ({ authorization: `Bearer ${s.key}` });
    const up = { authorization: `Bearer ${UPSTREAM_KEY}` };
    await sequential(upstream.url, up, agents.get('upstream')!, opts.warmup, body);
    for (const s of sides) await sequential(s.url, headers(s), agents.get(s.name)!, opts.warmup, body);
    const byRound: GatewayComparison['byRound'] = [];
    const cpu = { before: 0, this: 0 };
    for (let round = 0; round < opts.rounds; round++) {
      if (round % 10 === 0) process.stderr.write(`gateway: round ${round + 1}/${opts.rounds}\n`);
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      const upP50 = median(await sequential(upstream.url, up, agents.get('upstream')!, opts.sequential, body));
      const added = { before: 0, this: 0 };
      for (const s of order) {
        const c0 = cpuMs(s.pid);
        added[s.name] = median(await sequential(s.url, headers(s), agents.get(s.name)!, opts.sequential, body)) - upP50;
        cpu[s.name] += cpuMs(s.pid) - c0;
      }
      byRound.push(added);
    }
    await Promise.all([...agents.values()].map((a) => a.close()));
    const n = opts.rounds * opts.sequential;
    return {
      rounds: opts.rounds,
      addedP50: { before: median(byRound.map((r) => r.before)), this: median(byRound.map((r) => r.this)) },
      ratio: median(byRound.map((r) => r.this / r.before)),
      cpuMsPerRequest: { before: cpu.before / n, this: cpu.this / n },
      byRound,
    };
  } finally {
    for (const s of sides) await s.stop().catch(() => undefined);
    await stop(upstream.proc);
  }
}

export function printGateway(c: GatewayComparison, beforeLabel: string): void {
  const f = (x: number) => x.toFixed(3);
  console.log(`gateway (POST /v1/chat/completions over the zero-latency upstream), ${c.rounds} alternating rounds; before = ${beforeLabel}`);
  console.log(`  added p50, median of rounds: before ${f(c.addedP50.before)} ms, this ${f(c.addedP50.this)} ms`);
  console.log(`  this ÷ before by round: ${c.byRound.map((r) => (r.this / r.before).toFixed(2)).join(' ')}`);
  console.log(`  ratio (median of rounds): ${c.ratio.toFixed(3)}`);
  console.log(`  mmgen CPU per request: before ${f(c.cpuMsPerRequest.before)} ms, this ${f(c.cpuMsPerRequest.this)} ms (ratio ${(c.cpuMsPerRequest.this / c.cpuMsPerRequest.before).toFixed(3)})`);
}

async function compareChat(before: string): Promise<void> {
  const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
  const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 3);
  const MODELS = (process.env.BENCH_MODELS ?? 'gpt-4o-mini,claude-haiku-4.5').split(',').filter(Boolean);
  const sim = { MMGEN_SIMULATE_PROVIDERS: '1' };
  const sides = [await startSide('before', resolve(before), sim), await startSide('this', process.cwd(), sim)];
  try {
    for (const side of sides) for (const model of MODELS) await cannon(side.url, '/v1/chat', side.key, chatBody(model), CONNECTIONS, 2);
    const results = new Map<string, { before: HttpResult[]; this: HttpResult[] }>(MODELS.map((m) => [m, { before: [], this: [] }]));
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const model of MODELS) {
        for (const side of order) {
          const r = await cannon(side.url, '/v1/chat', side.key, chatBody(model), CONNECTIONS, ROUND_SECONDS);
          if (r.non2xx > 0 || r.errors > 0) throw new Error(`${side.name} ${model}: ${r.non2xx} non-2xx, ${r.errors} errors`);
          results.get(model)![side.name].push(r);
        }
      }
    }
    console.log(`chat (/v1/chat), ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${ROUND_SECONDS} s; before = ${before}`);
    for (const [model, r] of results) {
      const ratios = r.this.map((t, i) => t.rps / r.before[i]!.rps);
      const fmt = (xs: HttpResult[]) => `median ${Math.round(median(xs.map((x) => x.rps)))}/s (p50 ${median(xs.map((x) => x.p50))} ms, p99 ${median(xs.map((x) => x.p99))} ms)`;
      console.log(`  ${model}`);
      console.log(`    before: ${fmt(r.before)}   this: ${fmt(r.this)}`);
      console.log(`    this ÷ before by round: ${ratios.map((x) => x.toFixed(2)).join(' ')}; median ${median(ratios).toFixed(2)}`);
    }
  } finally {
    for (const side of sides) await side.stop();
  }
}

// Run as a script (not when regression.ts imports compareGateway).
if (process.argv[1] && resolve(process.argv[1]).endsWith(join('bench', 'side-by-side.ts'))) {
  const before = process.env.BENCH_BEFORE;
  if (!before) {
    console.error('BENCH_BEFORE must name the other checkout (with node_modules installed), e.g. a `git worktree add --detach` of the commit before.');
    process.exit(2);
  }
  const mode = (process.env.BENCH_MODE ?? 'chat') as Mode;
  if (mode === 'gateway') {
    const c = await compareGateway(resolve(before), process.cwd(), {
      rounds: Number(process.env.BENCH_ROUNDS ?? 40),
      sequential: Number(process.env.BENCH_SEQUENTIAL ?? 50),
      warmup: Number(process.env.BENCH_WARMUP ?? 1500),
    });
    printGateway(c, before);
  } else {
    await compareChat(before);
  }
}
