/**
 * `npm run bench:compat`: what the compatible paths (contract §12) add over mmgen's own routes, in one run on
 * one server: `/v1/images/generations` (url and b64_json) against `/v1/images`, `/v1/messages` and
 * `/v1/chat/completions` against `/v1/chat`, and `/v1/audio/speech` (mp3 as made, and wav converted by ffmpeg)
 * against `/v1/voice`. Each pair runs alternately (A B A B …, BENCH_ROUNDS rounds of BENCH_SECONDS each) so that
 * the machine's drift falls on both; latency is read with one connection (a request at a time: the route's
 * own cost, no queueing), throughput with BENCH_CONNECTIONS.
 *
 * Test-mode keys, so the simulator answers; only loopback addresses are contacted. BENCH_BACKENDS=pglite or
 * postgres picks one backend (default both).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { BIN, scratchDatabase, startServe, stop } from './harness.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'pglite,postgres').split(',') as ('pglite' | 'postgres')[];

interface Case {
  name: string;
  path: string;
  body: unknown;
}
interface Pair {
  label: string;
  native: Case;
  compatible: Case[];
}

const PROMPT = 'a lighthouse on a cliff at dusk';
const CHAT_MESSAGES = [{ role: 'user', content: 'Say hello to the benchmark.' }];
const SPEECH_TEXT = 'The compatible path speaks the same words as the native one.';

const PAIRS: Pair[] = [
  {
    label: 'image 512² (flux-schnell)',
    native: { name: 'POST /v1/images', path: '/v1/images', body: { model: 'flux-schnell', prompt: PROMPT, width: 512, height: 512 } },
    compatible: [
      { name: 'POST /v1/images/generations (url)', path: '/v1/images/generations', body: { model: 'flux-schnell', prompt: PROMPT, size: '512x512', response_format: 'url' } },
      { name: 'POST /v1/images/generations (b64_json)', path: '/v1/images/generations', body: { model: 'flux-schnell', prompt: PROMPT, size: '512x512', response_format: 'b64_json' } },
    ],
  },
  {
    label: 'chat (gpt-4o-mini, 64 tokens)',
    native: { name: 'POST /v1/chat', path: '/v1/chat', body: { model: 'gpt-4o-mini', messages: CHAT_MESSAGES, max_tokens: 64 } },
    compatible: [
      { name: 'POST /v1/messages', path: '/v1/messages', body: { model: 'gpt-4o-mini', messages: CHAT_MESSAGES, max_tokens: 64 } },
      { name: 'POST /v1/chat/completions', path: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: CHAT_MESSAGES, max_tokens: 64 } },
    ],
  },
  {
    label: 'speech (tts-1)',
    native: { name: 'POST /v1/voice', path: '/v1/voice', body: { model: 'tts-1', text: SPEECH_TEXT, voice_id: 'alloy' } },
    compatible: [
      { name: 'POST /v1/audio/speech (mp3)', path: '/v1/audio/speech', body: { model: 'tts-1', input: SPEECH_TEXT, voice: 'alloy' } },
      { name: 'POST /v1/audio/speech (wav)', path: '/v1/audio/speech', body: { model: 'tts-1', input: SPEECH_TEXT, voice: 'alloy', response_format: 'wav' } },
    ],
  },
];

interface Sample { p50: number; p99: number; mean: number; rps: number; non2xx: number }

async function shoot(url: string, key: string, c: Case, connections: number): Promise<Sample> {
  const r = await autocannon({
    url,
    connections,
    duration: SECONDS,
    requests: [{ method: 'POST', path: c.path, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(c.body) }],
  });
  return { p50: r.latency.p50, p99: r.latency.p99, mean: r.latency.mean, rps: Math.round(r.requests.average), non2xx: r.non2xx };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function testKey(env: Record<string, string>): Promise<string> {
  const { stdout } = await promisify(execFile)(BIN, ['org', 'create', '--name', 'bench', '--plan', 'team', '--credits', '1000000000000', '--json'], { env: { ...process.env, LOG_LEVEL: 'silent', ...env } });
  return (JSON.parse(stdout) as { keys: { test: string } }).keys.test;
}

interface Row { backend: string; pair: string; route: string; latencyP50Ms: number; latencyMeanMs: number; latencyP99Ms: number; addedMeanMs: number | null; rps: number; non2xx: number }

async function benchBackend(backend: 'pglite' | 'postgres'): Promise<Row[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mmgen-bench-compat-'));
  const env: Record<string, string> = { MMGEN_DATA_DIR: dataDir, MMGEN_RATE_LIMIT_TEAM: '10000000', MMGEN_ANOMALY_FLOOR_USD: '1000000000', MMGEN_MODERATION_LOCAL: 'off' };
  let drop: (() => Promise<void>) | null = null;
  if (backend === 'postgres') {
    const scratch = await scratchDatabase('mmgen_bench_compat');
    drop = scratch.drop;
    env.DATABASE_URL = scratch.url;
  }
  const rows: Row[] = [];
  const server = await startServe(env);
  try {
    const key = await testKey(env);
    for (const pair of PAIRS) {
      const cases = [pair.native, ...pair.compatible];
      // Each route answers once before it is timed (and is checked to answer at all).
      for (const c of cases) {
        const res = await fetch(`${server.url}${c.path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(c.body) });
        if (!res.ok) throw new Error(`${c.name}: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
      }
      const latency = new Map<string, Sample[]>(cases.map((c) => [c.name, []]));
      const load = new Map<string, Sample[]>(cases.map((c) => [c.name, []]));
      for (let round = 0; round < ROUNDS; round++) {
        for (const c of cases) latency.get(c.name)!.push(await shoot(server.url, key, c, 1));
        for (const c of cases) load.get(c.name)!.push(await shoot(server.url, key, c, CONNECTIONS));
      }
      const nativeMean = median(latency.get(pair.native.name)!.map((s) => s.mean));
      for (const c of cases) {
        const l = latency.get(c.name)!;
        const mean = median(l.map((s) => s.mean));
        rows.push({
          backend,
          pair: pair.label,
          route: c.name,
          latencyP50Ms: median(l.map((s) => s.p50)),
          latencyMeanMs: Math.round(mean * 100) / 100,
          latencyP99Ms: median(l.map((s) => s.p99)),
          addedMeanMs: c === pair.native ? null : Math.round((mean - nativeMean) * 100) / 100,
          rps: median(load.get(c.name)!.map((s) => s.rps)),
          non2xx: [...l, ...load.get(c.name)!].reduce((n, s) => n + s.non2xx, 0),
        });
      }
    }
  } finally {
    await stop(server.proc);
    rmSync(dataDir, { recursive: true, force: true });
    await drop?.();
  }
  return rows;
}

const rows: Row[] = [];
for (const backend of BACKENDS) rows.push(...(await benchBackend(backend)));
console.log(`# bench:compat ${new Date().toISOString()} · ${cpus().length} × ${cpus()[0]?.model ?? '?'} · ${Math.round(totalmem() / 2 ** 30)} GiB · Node ${process.version}`);
console.log(`# ${ROUNDS} alternating rounds of ${SECONDS} s per route; latency: 1 connection (medians of the rounds); rps: ${CONNECTIONS} connections`);
console.table(rows);
