/**
 * What moderation costs a running mmgen (issue 19): image generations per second on PostgreSQL with
 * the local classifier on and off, side by side in one run (alternating rounds, so machine noise hits
 * both alike), and the verdict's CPU per video (stills taken with ffmpeg, then classified).
 *
 * Run: `node --import tsx bench/moderation-throughput.ts` (BENCH_SECONDS per round, default 10;
 * BENCH_ROUNDS per mode, default 3; BENCH_CONNECTIONS, default 32). Needs the bench's PostgreSQL
 * (BENCH_PG_URL). The simulator makes the images (an image in about a millisecond), so this shows
 * the classifier's cost at its most visible: against a real provider, which takes seconds an image,
 * the same CPU is a small share.
 */
import { cpus } from 'node:os';
import { Moderator } from '../src/moderation/moderator.js';
import { LocalImageClassifier } from '../src/moderation/local-image-classifier.js';
import { DEFAULT_POLICY } from '../src/moderation/policy.js';
import { renderVideo } from '../src/providers/simulator/render/index.js';
import { cannon, createOrg, scratchDatabase, SECONDS, startServe, stop, type HttpResult } from './harness.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BODY = { model: 'flux-schnell', prompt: 'a benchmark', width: 512, height: 512, cache: false };

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function server(local: boolean): Promise<{ url: string; key: string; close: () => Promise<void> }> {
  const db = await scratchDatabase(`bench_mod_${local ? 'on' : 'off'}`);
  const env = { DATABASE_URL: db.url, MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_MODERATION_LOCAL: local ? 'on' : 'off', MMGEN_DATA_DIR: `/tmp/mmgen-bench-mod-${local ? 'on' : 'off'}-${process.pid}` };
  const serve = await startServe(env);
  const org = await createOrg(env);
  // Warm: the classifier loads on its first image, and the first renders fill caches.
  await cannon(serve.url, '/v1/images', org.live, BODY, 4, 2);
  return { url: serve.url, key: org.live, close: async () => { await stop(serve.proc); await db.drop(); } };
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
  console.log(`# moderation on vs off — ${new Date().toISOString()} — ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`);
  const on = await server(true);
  const off = await server(false);
  const results: Record<'on' | 'off', HttpResult[]> = { on: [], off: [] };
  try {
    for (let r = 0; r < ROUNDS; r++) {
      for (const [mode, s] of [['off', off], ['on', on]] as const) {
        const res = await cannon(s.url, '/v1/images', s.key, BODY, undefined, SECONDS);
        results[mode].push(res);
        console.log(`round ${r + 1} ${mode}: ${res.rps.toFixed(1)}/s p50 ${res.p50} ms p99 ${res.p99} ms non2xx ${res.non2xx}`);
      }
    }
  } finally {
    await Promise.all([on.close(), off.close()]);
  }
  const summary = (xs: HttpResult[]) => ({ rps: Math.round(median(xs.map((x) => x.rps)) * 10) / 10, p50: median(xs.map((x) => x.p50)), p99: median(xs.map((x) => x.p99)) });
  const sOn = summary(results.on);
  const sOff = summary(results.off);
  console.log(`\nimages 512² on PostgreSQL, median of ${ROUNDS} rounds of ${SECONDS} s:`);
  console.log(`  moderation off: ${sOff.rps}/s (p50 ${sOff.p50} ms, p99 ${sOff.p99} ms)`);
  console.log(`  moderation on:  ${sOn.rps}/s (p50 ${sOn.p50} ms, p99 ${sOn.p99} ms)`);
  console.log(`  change: ${(((sOn.rps - sOff.rps) / sOff.rps) * 100).toFixed(1)} %`);
  for (const v of await perVideo()) console.log(`video ${v.seconds} s (4 stills): ${v.wallMs} ms wall, ${v.cpuMs} ms CPU per verdict`);
}

await main();
