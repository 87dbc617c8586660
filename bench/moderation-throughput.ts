/**
 * What moderation costs a running mmgen (issues 19 and 30): image generations per second on PostgreSQL with the local
 * classifier off, on, and on as the commit before built it (BENCH_BEFORE, a checkout of it with node_modules: the
 * side-by-side pattern of bench/side-by-side.ts), in one run, rounds alternating so that machine noise hits every
 * side alike. Two loads: the zero-latency simulator (BENCH_CONNECTIONS, default 32), where the classifier's cost is
 * most visible, and a provider that takes 1 s an image (`simulate.delay_ms: 1000`, BENCH_SLOW_CONNECTIONS, default
 * 64), as real providers take seconds. Only 200s count as generations; 503s (the backlog bound) are counted apart.
 *
 * CPU: each server's own CPU time (utime + stime from /proc/<pid>/stat) over each round, divided by the generations
 * it answered: robust where wall-clock figures are not (a shared machine). On minus off is what a verdict costs in
 * the server, decode included. Then the verdict of one video in-process (4 stills taken with ffmpeg, each classified).
 *
 * Run: `npm run bench:moderation-throughput` (BENCH_SECONDS per round, default 10; BENCH_ROUNDS per side and load,
 * default 3; BENCH_BEFORE optional). Needs the bench's PostgreSQL (BENCH_PG_URL).
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { Moderator } from '../src/moderation/moderator.js';
import { LocalImageClassifier } from '../src/moderation/local-image-classifier.js';
import { DEFAULT_POLICY } from '../src/moderation/policy.js';
import { renderVideo } from '../src/providers/simulator/render/index.js';
import { BIN, cannon, createOrg, scratchDatabase, SECONDS, startServe, stop, type HttpResult } from './harness.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const FAST_CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SLOW_CONNECTIONS = Number(process.env.BENCH_SLOW_CONNECTIONS ?? 64);
const BEFORE = process.env.BENCH_BEFORE;
const BODY = { model: 'flux-schnell', prompt: 'a benchmark', width: 512, height: 512, cache: false };
const LOADS = {
  'zero-latency': { body: BODY, connections: FAST_CONNECTIONS },
  '1 s provider': { body: { ...BODY, simulate: { delay_ms: 1000 } }, connections: SLOW_CONNECTIONS },
} as const;
type Load = keyof typeof LOADS;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const TICK_MS = 1000 / 100; // USER_HZ: Linux reports CPU times in 1/100 s

/** A process's CPU time so far, in ms (user + system, every thread). */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

interface Side {
  name: string;
  url: string;
  key: string;
  pid: number;
  close: () => Promise<void>;
}

async function server(name: string, local: boolean, bin = BIN): Promise<Side> {
  const db = await scratchDatabase(`bench_mod_${name.replace(/\W/g, '_')}`);
  const env = {
    DATABASE_URL: db.url,
    MMGEN_SIMULATE_PROVIDERS: '1',
    MMGEN_MODERATION_LOCAL: local ? 'on' : 'off',
    MMGEN_RATE_LIMIT_TEAM: '10000000',
    MMGEN_ANOMALY_FLOOR_USD: '1000000000',
    MMGEN_DATA_DIR: `/tmp/mmgen-bench-mod-${name.replace(/\W/g, '_')}-${process.pid}`,
  };
  const serve = await startServe(env, [], bin);
  const org = await createOrg(env, bin);
  // Warm: the classifier loads on its first image, and the first renders fill caches.
  await cannon(serve.url, '/v1/images', org.live, BODY, 4, 2);
  return { name, url: serve.url, key: org.live, pid: serve.proc.pid!, close: async () => { await stop(serve.proc); await db.drop(); } };
}

interface Round extends HttpResult {
  /** Generations answered 200, per second. */
  ok: number;
  /** The server's CPU ms per generation answered 200. */
  cpuMsPerGeneration: number;
}

async function round(side: Side, load: Load): Promise<Round> {
  const { body, connections } = LOADS[load];
  const cpu0 = cpuMsOf(side.pid);
  const res = await cannon(side.url, '/v1/images', side.key, body, connections, SECONDS);
  const cpu = cpuMsOf(side.pid) - cpu0;
  const ok = res.ok2xx ?? 0;
  return { ...res, ok: ok / SECONDS, cpuMsPerGeneration: ok ? cpu / ok : NaN };
}

async function perVideo(): Promise<{ seconds: number; wallMs: number; cpuMs: number }[]> {
  const classifier = new LocalImageClassifier();
  const moderator = new Moderator([classifier]);
  await classifier.load();
  const out = [];
  for (const seconds of [2, 10]) {
    const v = await renderVideo({ prompt: `a benchmark video ${seconds}`, seed: 3, durationS: seconds });
    const file = { bytes: v.video.bytes, mime: v.video.mime, type: 'video', duration_s: v.video.durationS };
    const walls: number[] = [];
    const cpusMs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const cpu = process.cpuUsage();
      const t = performance.now();
      await moderator.judge(DEFAULT_POLICY, [file], { shared: false });
      walls.push(performance.now() - t);
      const used = process.cpuUsage(cpu);
      cpusMs.push((used.user + used.system) / 1000);
    }
    out.push({ seconds, wallMs: Math.round(median(walls)), cpuMs: Math.round(median(cpusMs)) });
  }
  await classifier.close();
  return out;
}

async function main(): Promise<void> {
  console.log(`# moderation on vs off — ${new Date().toISOString()} — ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const sides: Side[] = [await server('off', false), await server('on', true)];
  if (BEFORE) sides.push(await server('on, commit before', true, join(BEFORE, 'bin', 'mmgen')));
  const results = new Map<string, Round[]>();
  try {
    for (const load of Object.keys(LOADS) as Load[]) {
      for (let r = 0; r < ROUNDS; r++) {
        // Alternating order (A B C, then C B A) so that a machine getting busier or quieter weighs on every side.
        for (const side of r % 2 ? [...sides].reverse() : sides) {
          const res = await round(side, load);
          const key = `${load}|${side.name}`;
          results.set(key, [...(results.get(key) ?? []), res]);
          console.log(`${load} round ${r + 1} ${side.name}: ${res.ok.toFixed(1)} generations/s, p50 ${res.p50} ms, p99 ${res.p99} ms, non-2xx ${res.non2xx}, errors (timeouts included) ${res.errors}, ${res.cpuMsPerGeneration.toFixed(1)} ms CPU/generation`);
        }
      }
    }
  } finally {
    await Promise.all(sides.map((s) => s.close()));
  }
  console.log(`\nimages 512² on PostgreSQL, median of ${ROUNDS} rounds of ${SECONDS} s; load average now ${loadavg().map((l) => l.toFixed(1)).join(' ')}:`);
  for (const load of Object.keys(LOADS) as Load[]) {
    const off = results.get(`${load}|off`)!;
    console.log(`${load} (${LOADS[load].connections} connections):`);
    for (const side of sides) {
      const rs = results.get(`${load}|${side.name}`)!;
      const ratio = median(rs.map((r, i) => r.ok / off[i]!.ok));
      const extraCpu = median(rs.map((r, i) => r.cpuMsPerGeneration - off[i]!.cpuMsPerGeneration));
      console.log(`  ${side.name.padEnd(18)} ${median(rs.map((r) => r.ok)).toFixed(1)}/s (÷ off, paired by round: ${ratio.toFixed(2)}), p50 ${median(rs.map((r) => r.p50))} ms, p99 ${median(rs.map((r) => r.p99))} ms, non-2xx ${rs.reduce((n, r) => n + r.non2xx, 0)}, CPU ${median(rs.map((r) => r.cpuMsPerGeneration)).toFixed(1)} ms/generation (+${extraCpu.toFixed(1)} over off)`);
    }
  }
  for (const v of await perVideo()) console.log(`video ${v.seconds} s (4 stills): ${v.wallMs} ms wall, ${v.cpuMs} ms CPU per verdict`);
}

await main();
