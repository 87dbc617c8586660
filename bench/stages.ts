/**
 * `npm run bench:stages`: where mmgen's CPU goes on the gateway bench's path (POST /v1/chat/completions over the
 * zero-latency OpenAI fake), by stage, per request. A CPU profile (bench/profile-hook.mjs, started and stopped by
 * signal around exactly the timed requests) whose samples are put in stages by the frames on their stack:
 * authentication, rate limit, validation and pricing, screening, idempotency, the accept statement, the upstream
 * call, the answer, the finish; what runs in a callback of its own (a socket's data, the database driver's parsing
 * of a result, timers) is put under what it is, as nothing on its stack says whose it is.
 *
 * CPU time is what a loaded machine moves least, but it still moves (caches, frequency): compare stages within one
 * run, and two builds with BENCH_BIN in the same sitting.
 *
 *   BENCH_PG_URL=postgres://postgres@127.0.0.1:5499/test npm run bench:stages
 *
 * Knobs: BENCH_CHAT (4000 timed requests), BENCH_WARMUP (1500), BENCH_BIN, BENCH_PATH (/v1/chat/completions),
 * BENCH_TOP=1 (the top self-time functions too), BENCH_KEEP_PROFILE=<file> (keeps the .cpuprofile, for DevTools).
 *
 * BENCH_TIMELINE=1 measures the path's wall-clock instead, with no profiler (bench/timeline-hook.mjs): for each
 * request, when the accepting statement and the provider call were sent and answered, and how long the answer took
 * after the later of the two: the critical path, and which round trip is on it; and from a response's finish to the
 * next request's start (the client's turn, plus whatever the server still does for the request it answered).
 * BENCH_TARGET=portkey draws the same timeline of Portkey's gateway on the same upstream (its provider call only).
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Agent, request } from 'undici';
import { BIN, createOrg, PG_ADMIN, scratchDatabase, startPortkey, startServe, startUpstream, stop, UPSTREAM_KEY } from './harness.js';

const CHAT = Number(process.env.BENCH_CHAT ?? 4000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1500);
const PATH = process.env.BENCH_PATH ?? '/v1/chat/completions';
const bin = process.env.BENCH_BIN ?? BIN;
const TIMELINE = process.env.BENCH_TIMELINE === '1';
// The same timeline of Portkey's gateway (@portkey-ai/gateway) on the same upstream: what bench:gateway compares with.
const PORTKEY = TIMELINE && process.env.BENCH_TARGET === 'portkey';

interface TimelineEvent { kind: 'request' | 'response' | 'upstream.sent' | 'upstream.done' | 'sql.sent' | 'sql.done'; t: number; id?: number; what?: string }

/**
 * The requests are sequential, so every event between a request's start and its response's finish is that request's.
 * Per request: the accepting statement's send and answer, the provider call's send and answer (relative to the
 * request's start), and the time from the later answer to the response's finish; medians over the requests.
 */
function printTimeline(events: TimelineEvent[], wallMs: number): void {
  const rows: Array<Record<string, number>> = [];
  let current: { start: number; events: TimelineEvent[] } | null = null;
  let between = 0;
  let lastFinish: number | null = null;
  const gaps: number[] = [];
  for (const e of events) {
    if (e.kind === 'request') {
      if (lastFinish !== null) gaps.push(e.t - lastFinish);
      current = { start: e.t, events: [] };
    }
    else if (e.kind === 'response' && current) {
      const find = (kind: string, what?: string) => current!.events.find((x) => x.kind === kind && (what === undefined || x.what === what));
      const acceptSent = find('sql.sent', 'accept');
      const acceptDone = acceptSent && current.events.find((x) => x.kind === 'sql.done' && x.id === acceptSent.id);
      const upSent = find('upstream.sent');
      const upDone = upSent && current.events.find((x) => x.kind === 'upstream.done' && x.id === upSent.id);
      // Portkey's requests have no accepting statement: only the provider call's columns.
      if ((PORTKEY || (acceptSent && acceptDone)) && upSent && upDone) {
        const later = Math.max(acceptDone?.t ?? 0, upDone.t);
        rows.push({
          ...(acceptSent && acceptDone ? { acceptSent: acceptSent.t - current.start, acceptRoundTrip: acceptDone.t - acceptSent.t, acceptLast: acceptDone.t > upDone.t ? 1 : 0 } : {}),
          upstreamSent: upSent.t - current.start,
          upstreamRoundTrip: upDone.t - upSent.t,
          laterAnswerToFinish: e.t - later,
          otherStatements: current.events.filter((x) => x.kind === 'sql.sent' && x.what !== 'accept').length,
          total: e.t - current.start,
        });
      }
      current = null;
      lastFinish = e.t;
    } else if (current) current.events.push(e);
    else if (e.kind === 'sql.sent') between++;
  }
  const median = (k: string) => {
    const xs = rows.map((r) => r[k]!).sort((a, b) => a - b);
    return xs[Math.floor(xs.length / 2)]!;
  };
  const mean = (k: string) => rows.reduce((a, r) => a + r[k]!, 0) / rows.length;
  console.log(`${PORTKEY ? 'Portkey' : bin}: ${rows.length} sequential ${PATH} requests with ${PORTKEY ? 'the provider call' : 'both round trips'} seen, in ${(wallMs / 1000).toFixed(1)} s (no profiler)`);
  console.log('| from the request\'s start (its headers parsed) | median ms |');
  console.log('|---|---|');
  if (!PORTKEY) console.log(`| the accepting statement sent | ${median('acceptSent').toFixed(3)} |`);
  console.log(`| the provider call sent | ${median('upstreamSent').toFixed(3)} |`);
  if (!PORTKEY) console.log(`| the accepting statement's round trip | ${median('acceptRoundTrip').toFixed(3)} |`);
  console.log(`| the provider call's round trip | ${median('upstreamRoundTrip').toFixed(3)} |`);
  console.log(`| from the later answer to the response's finish | ${median('laterAnswerToFinish').toFixed(3)} |`);
  console.log(`| the request, start to finish | ${median('total').toFixed(3)} |`);
  gaps.sort((a, b) => a - b);
  console.log(`| from a response's finish to the next request's start | ${gaps[Math.floor(gaps.length / 2)]!.toFixed(3)} |`);
  if (PORTKEY) return;
  const others = new Map<string, number>();
  for (const e of events) if (e.kind === 'sql.sent' && e.what !== 'accept') others.set(e.what ?? '?', (others.get(e.what ?? '?') ?? 0) + 1);
  console.log(`statements other than the accepting one, by first word, per request: ${[...others].map(([w, n]) => `${w} ${(n / Math.max(1, rows.length)).toFixed(2)}`).join(', ')}`);
  console.log(`\nthe accepting statement answered last in ${(100 * mean('acceptLast')).toFixed(0)} % of requests; other statements inside a request: ${mean('otherStatements').toFixed(2)} per request, between requests: ${(between / Math.max(1, rows.length)).toFixed(2)}`);
}

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

/** Stages in the order they are tested: the first whose test matches a sample's stack (root to leaf) takes it. */
const STAGES: Array<{ name: string; test: (frames: Frame[]) => boolean }> = [
  { name: 'garbage collection', test: (f) => f.at(-1)?.fn === '(garbage collector)' },
  { name: 'idle', test: (f) => f.at(-1)?.fn === '(idle)' },
  { name: 'native, unattributed (program: libuv socket reads, the kernel)', test: (f) => f.at(-1)?.fn === '(program)' },
  { name: 'rate limit', test: (f) => f.some((x) => /rate-limit|limitRate/.test(x.url + x.fn)) },
  { name: 'authentication', test: (f) => f.some((x) => x.url.includes('/src/http/auth.ts') || x.url.includes('/src/domain/api-keys.ts')) },
  { name: 'idempotency', test: (f) => f.some((x) => x.url.includes('/src/http/idempotency.ts') || x.url.includes('/src/store/idempotency.ts')) },
  { name: 'screening', test: (f) => f.some((x) => x.url.includes('/src/moderation/')) },
  { name: 'accept statement (pricing, statement, its round trip)', test: (f) => f.some((x) => /acceptStatement|reserveAndAccept|withinBudgets|retryAfterSettling/.test(x.fn) || x.url.includes('/src/store/accepting.ts')) },
  { name: 'upstream call (adapter, undici)', test: (f) => f.some((x) => x.url.includes('/src/providers/') || x.url.includes('/src/generations/early-dispatch.ts') || x.url.includes('/undici/')) },
  { name: 'finish (charge statement, settler, outbox)', test: (f) => f.some((x) => /\/src\/(generations\/(finish|runner|run-ends)|store\/(finishing|settle)|billing\/settler|jobs\/webhook)/.test(x.url)) },
  { name: 'validation, catalog, pricing (before the statement)', test: (f) => f.some((x) => /\/src\/(generations\/(accept-request|hold-to-model|accept)|catalog\/|billing\/pricing|http\/input-guard)/.test(x.url) || /typebox/.test(x.url)) },
  { name: 'answer (reply, headers, serialization)', test: (f) => f.some((x) => /\/src\/http\/(cost-header|deprecation-headers)|compat-chat|chat-completions|\/fastify\/lib\/reply|fast-json-stringify|writeHead/.test(x.url + x.fn)) },
  { name: 'database driver callbacks (parsing results of all statements)', test: (f) => f.some((x) => /\/node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-)/.test(x.url)) },
  { name: 'HTTP framework (fastify routing, body parsing, hooks)', test: (f) => f.some((x) => /\/node_modules\/(fastify|find-my-way|avvio|@fastify|light-my-request|secure-json-parse)/.test(x.url)) },
  { name: 'other mmgen code', test: (f) => f.some((x) => x.url.includes('/src/')) },
  { name: 'node internals (sockets, streams, timers)', test: (f) => f.some((x) => x.url.startsWith('node:') || x.url === '') },
];

interface Frame { fn: string; url: string }

function classify(profile: Profile): { byStage: Map<string, number>; bySelf: Map<string, number>; byStageSelf: Map<string, Map<string, number>>; totalUs: number } {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stackOf = new Map<number, Frame[]>();
  const stack = (id: number): Frame[] => {
    const cached = stackOf.get(id);
    if (cached) return cached;
    const n = nodes.get(id)!;
    const p = parent.get(id);
    const s = [...(p === undefined ? [] : stack(p)), { fn: n.callFrame.functionName, url: n.callFrame.url }];
    stackOf.set(id, s);
    return s;
  };
  const byStage = new Map<string, number>();
  const bySelf = new Map<string, number>();
  const byStageSelf = new Map<string, Map<string, number>>();
  let totalUs = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i + 1] ?? 0; // a sample's time is the gap to the next
    const frames = stack(id);
    const stage = STAGES.find((s) => s.test(frames))?.name ?? 'unclassified';
    byStage.set(stage, (byStage.get(stage) ?? 0) + dt);
    const leaf = frames.at(-1)!;
    const key = `${leaf.fn || '(anonymous)'} ${leaf.url.replace(/^.*\/(node_modules|src)\//, '$1/')}`;
    bySelf.set(key, (bySelf.get(key) ?? 0) + dt);
    const inStage = byStageSelf.get(stage) ?? new Map<string, number>();
    inStage.set(key, (inStage.get(key) ?? 0) + dt);
    byStageSelf.set(stage, inStage);
    if (stage !== 'idle') totalUs += dt;
  });
  return { byStage, bySelf, byStageSelf, totalUs };
}


async function waitFor(path: string): Promise<void> {
  for (let i = 0; i < 300 && !existsSync(path); i++) await new Promise((r) => setTimeout(r, 50));
  if (!existsSync(path)) throw new Error(`no ${path}`);
}

const scratch = await scratchDatabase('mmgen_stages', PG_ADMIN);
const upstream = await startUpstream();
const dir = mkdtempSync(join(tmpdir(), 'mmgen-stages-'));
const out = join(dir, 'profile.cpuprofile');
const env: Record<string, string> = {
  DATABASE_URL: scratch.url,
  MMGEN_DATA_DIR: join(dir, 'data'),
  OPENAI_API_KEY: UPSTREAM_KEY,
  OPENAI_BASE_URL: `${upstream.url}/v1`,
  MMGEN_RATE_LIMIT_TEAM: '10000000',
  MMGEN_ANOMALY_FLOOR_USD: '1000000000',
  MMGEN_PROFILE_OUT: out,
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${resolve('bench', TIMELINE ? 'timeline-hook.mjs' : 'profile-hook.mjs')}`.trim(),
};
try {
  const server = PORTKEY ? await startPortkey({ MMGEN_PROFILE_OUT: out, NODE_OPTIONS: env.NODE_OPTIONS! }) : await startServe(env, [], bin);
  const headers = PORTKEY
    ? { authorization: `Bearer ${UPSTREAM_KEY}`, 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${upstream.url}/v1` }
    : { authorization: `Bearer ${(await createOrg({ ...env, NODE_OPTIONS: process.env.NODE_OPTIONS ?? '' }, bin)).live}` };
  const agent = new Agent({ connections: 1, keepAliveTimeout: 60_000 });
  const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello to the benchmark.' }], max_tokens: 64 });
  const chat = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const res = await request(`${server.url}${PATH}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body, dispatcher: agent });
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) throw new Error(`answered ${res.statusCode}`);
    }
  };
  await chat(WARMUP);
  process.kill(server.proc.pid!, 'SIGUSR2');
  await waitFor(`${out}.started`);
  const t0 = process.hrtime.bigint();
  await chat(CHAT);
  // The last completions' batched finish and settlement (10 and 20 ms later) belong to them.
  await new Promise((r) => setTimeout(r, 100));
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  process.kill(server.proc.pid!, 'SIGUSR2');
  await waitFor(out);
  await new Promise((r) => setTimeout(r, 200));
  if (process.env.BENCH_KEEP_PROFILE) copyFileSync(out, process.env.BENCH_KEEP_PROFILE);
  await agent.close();
  await stop(server.proc);
  if (TIMELINE) {
    printTimeline(JSON.parse(readFileSync(out, 'utf8')) as TimelineEvent[], wallMs);
    process.exitCode = 0;
  } else {
  const { byStage, bySelf, byStageSelf, totalUs } = classify(JSON.parse(readFileSync(out, 'utf8')) as Profile);
  const perReq = (us: number) => (us / CHAT / 1000).toFixed(3);
  console.log(`${bin}: ${CHAT} sequential ${PATH} requests in ${(wallMs / 1000).toFixed(1)} s; mmgen busy ${perReq(totalUs)} ms of CPU per request (profile samples, idle excluded)`);
  console.log('| stage | CPU ms per request | share |');
  console.log('|---|---|---|');
  for (const [stage, us] of [...byStage].sort((a, b) => b[1] - a[1])) {
    if (stage === 'idle') continue;
    console.log(`| ${stage} | ${perReq(us)} | ${((100 * us) / totalUs).toFixed(1)} % |`);
  }
  if (process.env.BENCH_TOP === '1') {
    console.log('\ntop self time:');
    for (const [fn, us] of [...bySelf].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`  ${perReq(us)} ms  ${fn}`);
    for (const [stage, fns] of byStageSelf) {
      if (stage === 'idle') continue;
      console.log(`\n${stage}:`);
      for (const [fn, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${perReq(us)} ms  ${fn}`);
    }
  }
  }
} finally {
  await stop(upstream.proc);
  await scratch.drop();
  rmSync(dir, { recursive: true, force: true });
}
