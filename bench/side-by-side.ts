/**
 * This checkout beside another one (`BENCH_BEFORE=<path to a checkout with its node_modules>`), in one run: both
 * servers start on PostgreSQL databases of their own, then short rounds of the same load alternate between them
 * (A B, then B A), so that a machine that gets busier or quieter during the run weighs on both alike. What it
 * prints is each round's ratio (this ÷ before) and their median: on a noisy machine a ratio of paired rounds moves
 * far less than either figure does.
 *
 *   BENCH_BEFORE=/path/to/old/checkout npm run bench:side-by-side
 *
 * Knobs: BENCH_ROUNDS (8), BENCH_ROUND_SECONDS (3), BENCH_CONNECTIONS (32), BENCH_MODELS (chat models, comma
 * separated; default one that is deprecated, so answers carry deprecation headers, and one that is not).
 */
import { join, resolve } from 'node:path';
import { cannon, CONNECTIONS, createOrg, scratchDatabase, startServe, stop, type HttpResult } from './harness.js';

const before = process.env.BENCH_BEFORE;
if (!before) {
  console.error('BENCH_BEFORE must name the other checkout (with node_modules installed), e.g. a `git worktree add --detach` of the commit before.');
  process.exit(2);
}
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 3);
const MODELS = (process.env.BENCH_MODELS ?? 'gpt-4o-mini,claude-haiku-4.5').split(',').filter(Boolean);

interface Side {
  name: 'before' | 'this';
  url: string;
  key: string;
  stop: () => Promise<void>;
}

async function startSide(name: Side['name'], checkout: string): Promise<Side> {
  const bin = join(checkout, 'bin', 'mmgen');
  const db = await scratchDatabase(`mmgen_sbs_${name}`);
  const env = {
    DATABASE_URL: db.url,
    MMGEN_DATA_DIR: join('/tmp', `mmgen-sbs-${name}-${process.pid}`),
    MMGEN_SIMULATE_PROVIDERS: '1',
    MMGEN_RATE_LIMIT_TEAM: '10000000',
    MMGEN_ANOMALY_FLOOR_USD: '1000000000',
  };
  const server = await startServe(env, [], bin);
  const org = await createOrg(env, bin);
  return {
    name,
    url: server.url,
    key: org.live,
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

const sides = [await startSide('before', resolve(before)), await startSide('this', process.cwd())];
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
