/**
 * How often the local image classifier (src/moderation/local-image-classifier.ts) acts on benign images, and that
 * test mode never blocks its own renders (issue 29). Run: `npm run bench:moderation-false-positives`. Needs the
 * bench's PostgreSQL (BENCH_PG_URL) and the npm registry (two packages are fetched with `npm pack`, see below).
 *
 * 1. Simulator renders through a real `mmgen serve` (a scratch database, the local classifier on): BENCH_RENDERS
 *    (default 1,000) test-key image requests across the catalog's image models, each at its default size, with
 *    seeds for the models that take one and BENCH_PROMPTS' plain prompts. Every answer's verdict is counted (the rule:
 *    none blocked, none flagged), and so are the server's log lines for renders the classifier would have acted on.
 *    Each output is then downloaded and judged here under the default policy (block at 0.8) as a file from a real
 *    provider, i.e. not synthetic: the verdict the same bytes would get from live traffic. That is the false-positive
 *    rate on renders; the rate at other thresholds and the highest-scoring renders (with what reproduces them) follow.
 * 2. Benign images that maintained npm packages ship: the test images of `@jimp/test-utils` (jimp's test fixtures),
 *    the demo photographs of `@vladmandic/face-api`, both fetched at pinned versions with `npm pack` into
 *    BENCH_CACHE (default: the OS temp directory), plus two already installed here (autocannon's test photo and
 *    @fastify/static's example image). Each is judged the same way; photographs are counted apart.
 *
 * Results are printed, and written as JSON to the file BENCH_OUT names, if set; bench/README.md keeps the figures of
 * record.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { LocalImageClassifier } from '../src/moderation/local-image-classifier.js';
import { Moderator } from '../src/moderation/moderator.js';
import { DEFAULT_POLICY } from '../src/moderation/policy.js';
import type { Scores } from '../src/moderation/types.js';
import { topScore } from '../src/moderation/verdict.js';
import { BIN, scratchDatabase, startServe, stop } from './harness.js';

const run = promisify(execFile);
const RENDERS = Number(process.env.BENCH_RENDERS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONNECTIONS ?? 2);
const CACHE = process.env.BENCH_CACHE ?? join(tmpdir(), 'mmgen-bench-benign-images');
const THRESHOLDS = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95];
/** Plain prompts of the kind an integration test sends (the prompt is drawn as the render's caption and seeds it). */
const PROMPTS = (process.env.BENCH_PROMPTS ?? [
  'a red fox in the snow number {i}', 'a lighthouse at dusk', 'a bowl of fruit on a table', 'a city street in the rain',
  'product photo of a white sneaker', 'a mountain lake at sunrise', 'an astronaut riding a horse', 'a cat wearing a hat',
  'logo for a coffee shop', 'a watercolor of a harbour', 'test {i}', 'hello world',
].join('|')).split('|');

/** Packages whose files include benign images, at the versions measured (bench/README.md). */
const PACKED: Array<{ spec: string; dir: string; files: RegExp; photographs: RegExp }> = [
  // jimp's own test fixtures: photographs (figurines, a CCTV frame, a street panorama), a 3D render, drawings, a logo.
  { spec: '@jimp/test-utils@1.6.1', dir: 'images', files: /\.(jpe?g|png)$/i, photographs: /^(cops|fillbytes|panoramic)\.jpg$/ },
  // face-api's demo pictures: groups of people indoors, one portrait; its screenshots are left out.
  { spec: '@vladmandic/face-api@1.7.15', dir: 'demo', files: /^sample\d\.jpg$/, photographs: /^sample\d\.jpg$/ },
];
/** Images in packages installed here anyway (package-lock.json pins them). */
const INSTALLED: Array<{ pkg: string; file: string; photograph: boolean }> = [
  { pkg: 'autocannon', file: 'test/j5.jpeg', photograph: true }, // a film still: a robot in a street
  { pkg: '@fastify/static', file: 'example/public/images/sample.jpg', photograph: false }, // a "SAMPLE" stamp
];

interface Judged {
  label: string;
  scores: Scores;
  top: number;
  /** The verdict under the default policy, as a provider's file. */
  verdict: string;
  /** The same bytes judged by the classifier as it was before issue 30 (tfjs's WASM backend): accuracy kept or not. */
  before: { top: number; verdict: string };
}

const r2 = (n: number): number => Math.round(n * 100) / 100;
const pct = (k: number, n: number): string => (n ? `${((100 * k) / n).toFixed(2)} %` : '–');
/** Clopper–Pearson's upper bound, 95 % two-sided, of a rate seen k times in n (by bisection on the binomial tail). */
function upper95(k: number, n: number): number {
  if (k >= n) return 1;
  const cdf = (p: number): number => {
    let term = (1 - p) ** n;
    let sum = term;
    for (let i = 1; i <= k; i++) {
      term *= ((n - i + 1) / i) * (p / (1 - p));
      sum += term;
    }
    return sum;
  };
  let lo = k / n;
  let hi = 1;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (cdf(mid) > 0.025) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** The moderator of record (ONNX Runtime) and the one before issue 30 (tfjs WASM), both on the same model's weights. */
interface Judges {
  now: Moderator;
  before: Moderator;
}

async function judge(judges: Judges, label: string, bytes: Buffer): Promise<Judged> {
  const file = [{ bytes, mime: 'application/octet-stream', type: 'image' }];
  const [[v], [b]] = await Promise.all([judges.now.judge(DEFAULT_POLICY, file, { shared: false }), judges.before.judge(DEFAULT_POLICY, file, { shared: false })]);
  return { label, scores: v!.scores, top: topScore(v!.scores), verdict: v!.verdict, before: { top: topScore(b!.scores), verdict: b!.verdict } };
}

/** Before vs now on the same images: the largest score difference and the verdicts that differ at each threshold. */
function agreement(judged: Judged[]): { images: number; maxScoreDifference: number; differingAt: Record<string, number> } {
  return {
    images: judged.length,
    maxScoreDifference: Math.max(0, ...judged.map((j) => Math.abs(j.top - j.before.top))),
    differingAt: Object.fromEntries(THRESHOLDS.map((t) => [String(t), judged.filter((j) => (j.top >= t) !== (j.before.top >= t)).length])),
  };
}

async function createTestKey(env: Record<string, string>): Promise<string> {
  const { stdout } = await run(BIN, ['org', 'create', '--name', 'bench', '--plan', 'team', '--credits', '0', '--json'], { env: { ...process.env, LOG_LEVEL: 'silent', ...env } });
  return (JSON.parse(stdout) as { keys: { test: string } }).keys.test;
}

interface RenderRequest {
  model: string;
  prompt: string;
  seed?: number;
}

async function renders(moderator: Judges): Promise<{ requests: number; answers: Record<string, number>; verdicts: Record<string, number>; overruledLogged: number; judged: Array<Judged & { request: RenderRequest }>; models: string[] }> {
  const db = await scratchDatabase('bench_fp');
  const env = { DATABASE_URL: db.url, MMGEN_MODERATION_LOCAL: 'on', LOG_LEVEL: 'info', MMGEN_DATA_DIR: join(tmpdir(), `mmgen-bench-fp-${process.pid}`) };
  const serve = await startServe(env);
  let overruledLogged = 0;
  let partial = '';
  serve.proc.stdout!.on('data', (d: Buffer) => {
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const l of lines) if (l.includes('a simulator render scored at or above the moderation threshold')) overruledLogged++;
  });
  try {
    const key = await createTestKey(env);
    const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
      const res = await fetch(`${serve.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? null : JSON.stringify(body) });
      return { status: res.status, body: await res.json() };
    };
    const catalog = (await api('GET', '/v1/models?modality=image')).body.data as Array<{ slug: string; capabilities: string[] }>;
    // Text-to-image models (one that needs an input image makes nothing from a prompt alone).
    const models = catalog.filter((m) => m.capabilities.includes('text-to-image'));
    const requests: RenderRequest[] = [];
    for (let i = 0; requests.length < RENDERS; i++) {
      const m = models[i % models.length]!;
      const prompt = PROMPTS[Math.floor(i / models.length) % PROMPTS.length]!.replace('{i}', String(i));
      requests.push({ model: m.slug, prompt, ...(m.capabilities.includes('seed') ? { seed: 1000 + i } : {}) });
    }
    const answers: Record<string, number> = {};
    const verdicts: Record<string, number> = {};
    const judged: Array<Judged & { request: RenderRequest }> = [];
    let next = 0;
    const loop = async (): Promise<void> => {
      while (next < requests.length) {
        const request = requests[next++]!;
        const res = await api('POST', '/v1/images', { ...request, cache: false });
        answers[res.status] = (answers[res.status] ?? 0) + 1;
        if (res.status !== 200) {
          console.error(`${res.status} for ${JSON.stringify(request)}: ${JSON.stringify(res.body.error)}`);
          continue;
        }
        for (const out of res.body.outputs as Array<{ url: string; moderation_status: string }>) {
          verdicts[out.moderation_status] = (verdicts[out.moderation_status] ?? 0) + 1;
          const bytes = Buffer.from(await (await fetch(out.url)).arrayBuffer());
          judged.push({ ...(await judge(moderator, `${request.model} ${JSON.stringify(request.prompt)} seed ${request.seed ?? '(none)'}`, bytes)), request });
        }
        if (judged.length % 100 === 0) console.error(`${judged.length} renders judged`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, loop));
    return { requests: requests.length, answers, verdicts, overruledLogged, judged, models: models.map((m) => m.slug) };
  } finally {
    await stop(serve.proc);
    await db.drop();
  }
}

async function packaged(): Promise<Array<{ file: string; source: string; photograph: boolean; bytes: Buffer }>> {
  mkdirSync(CACHE, { recursive: true });
  const out: Array<{ file: string; source: string; photograph: boolean; bytes: Buffer }> = [];
  for (const p of PACKED) {
    const dest = join(CACHE, p.spec.replace(/[@/]/g, '_'));
    if (!existsSync(join(dest, 'package'))) {
      mkdirSync(dest, { recursive: true });
      const { stdout } = await run('npm', ['pack', p.spec, '--pack-destination', dest, '--silent'], { maxBuffer: 1 << 24 });
      await run('tar', ['xzf', join(dest, stdout.trim().split('\n').pop()!), '-C', dest]);
    }
    const dir = join(dest, 'package', p.dir);
    for (const f of readdirSync(dir).sort()) {
      if (p.files.test(f)) out.push({ file: f, source: `${p.spec} ${p.dir}/`, photograph: p.photographs.test(f), bytes: readFileSync(join(dir, f)) });
    }
  }
  for (const i of INSTALLED) {
    const dir = join('node_modules', i.pkg);
    const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
    out.push({ file: i.file, source: `${i.pkg}@${version} `, photograph: i.photograph, bytes: readFileSync(join(dir, i.file)) });
  }
  return out;
}

function rates(judged: Judged[]): Array<{ threshold: number; acted: number; rate: string; upper95: string }> {
  return THRESHOLDS.map((t) => {
    const acted = judged.filter((j) => j.top >= t).length;
    return { threshold: t, acted, rate: pct(acted, judged.length), upper95: pct(upper95(acted, judged.length) * judged.length, judged.length) };
  });
}

async function main(): Promise<void> {
  console.log(`# moderation false positives — ${new Date().toISOString()} — ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`);
  const classifier = new LocalImageClassifier();
  const beforeClassifier = new LocalImageClassifier({ backend: 'wasm' });
  const moderator: Judges = { now: new Moderator([classifier]), before: new Moderator([beforeClassifier]) };
  await Promise.all([classifier.load(), beforeClassifier.load()]);
  console.log(`classifier: ${classifier.name} on ${classifier.backend}; before issue 30: on ${beforeClassifier.backend}`);
  try {
    const images = await packaged();
    const benign = [];
    for (const i of images) benign.push({ ...(await judge(moderator, `${i.source}${i.file}`, i.bytes)), photograph: i.photograph });

    const t0 = performance.now();
    const r = await renders(moderator);
    const seconds = Math.round((performance.now() - t0) / 1000);

    console.log(`\n## Test mode: ${r.requests} test-key image requests, ${r.models.length} models (${r.models.join(', ')}), ${seconds} s`);
    console.log(`answers: ${JSON.stringify(r.answers)}; verdicts: ${JSON.stringify(r.verdicts)}; renders the server logged as overruled: ${r.overruledLogged}`);
    console.log('\n## The same renders judged as a provider\'s images (default policy: block at 0.8; the highest score of sexual = porn + hentai, suggestive = sexy)');
    const blocked = r.judged.filter((j) => j.verdict !== 'approved');
    console.log(`blocked: ${blocked.length} of ${r.judged.length} = ${pct(blocked.length, r.judged.length)} (95 % upper bound ${pct(upper95(blocked.length, r.judged.length) * r.judged.length, r.judged.length)})`);
    console.table(rates(r.judged));
    const perModel = r.models.map((m) => {
      const of = r.judged.filter((j) => j.request.model === m);
      return { model: m, renders: of.length, blocked: of.filter((j) => j.verdict !== 'approved').length, maxScore: r2(Math.max(...of.map((j) => j.top))) };
    });
    console.table(perModel);
    const worst = [...r.judged].sort((a, b) => b.top - a.top).slice(0, 10);
    console.log('highest-scoring renders:');
    for (const w of worst) console.log(`  ${w.top.toFixed(3)} ${JSON.stringify(w.scores)} ${w.label}`);

    console.log('\n## Benign images shipped by npm packages (default policy)');
    console.table(benign.map((b) => ({ image: b.label, photograph: b.photograph, sexual: r2(b.scores.sexual ?? 0), suggestive: r2(b.scores.suggestive ?? 0), verdict: b.verdict })));
    const photos = benign.filter((b) => b.photograph);
    const photosBlocked = photos.filter((b) => b.verdict !== 'approved').length;
    const allBlocked = benign.filter((b) => b.verdict !== 'approved').length;
    console.log(`photographs blocked: ${photosBlocked} of ${photos.length}; all images blocked: ${allBlocked} of ${benign.length} (95 % upper bound ${pct(upper95(allBlocked, benign.length) * benign.length, benign.length)})`);
    console.table(rates(benign));
    const everything = [...r.judged, ...benign];
    const allActed = everything.filter((j) => j.verdict !== 'approved').length;
    console.log(`\nall benign images (renders and packaged): ${allActed} of ${everything.length} blocked = ${pct(allActed, everything.length)} (95 % upper bound ${pct(upper95(allActed, everything.length) * everything.length, everything.length)})`);
    const beforeActed = everything.filter((j) => j.before.verdict !== 'approved').length;
    console.log(`\n## Before (tfjs WASM) vs now (ONNX Runtime), the same images: blocked at 0.8 before ${beforeActed}, now ${allActed}`);
    console.log(`renders: ${JSON.stringify(agreement(r.judged))}`);
    console.log(`packaged: ${JSON.stringify(agreement(benign))}`);

    if (process.env.BENCH_OUT) {
      writeFileSync(process.env.BENCH_OUT, JSON.stringify({ at: new Date().toISOString(), testMode: { requests: r.requests, answers: r.answers, verdicts: r.verdicts, overruledLogged: r.overruledLogged, models: r.models }, renders: { judged: r.judged.length, blocked: blocked.length, rates: rates(r.judged), perModel, worst }, benign: { images: benign, rates: rates(benign) }, agreement: { renders: agreement(r.judged), packaged: agreement(benign) } }, null, 2));
    }
  } finally {
    await Promise.all([classifier.close(), beforeClassifier.close()]);
  }
}

await main();
