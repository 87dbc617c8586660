import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mmgenServices, readCompose, serviceCommand, serviceEnv, stopGraceSeconds, type ComposeService } from '../helpers/compose.js';
import { until } from '../helpers/processes.js';
import { startTestS3, type TestS3 } from '../helpers/s3.js';
import { freePort } from '../helpers/server.js';

/**
 * The project's Dockerfile, built unchanged and run for real with Podman (no Docker engine runs
 * here). No image registry is reachable, so the Dockerfile's base image is a local stand-in
 * (test/container/base-image.sh). The services of docker-compose.yml that are built from this
 * repository run from the image, with their compose command, environment and grace period, on
 * host networking; the host's PostgreSQL, Redis and s3rver stand in for the third-party images.
 *
 *   npm run test:container        (root, podman, runc and debootstrap; .ci/run installs them)
 */
const run = promisify(execFile);
const ROOT = process.cwd();
const IMAGE = 'localhost/mmgen:container-test';
const PODMAN = ['--runtime', 'runc'];
// This kernel's limits for rootful containers (the defaults fail with runc here).
const ULIMITS = ['--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024'];
const ADMIN_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

/** Stand-ins the test can build, per base image the Dockerfile may name. */
const STAND_IN_RECIPES: Record<string, { node: string; npm: string }> = {
  'node:22-bookworm-slim': { node: '22.23.3', npm: '10.9.4' },
};

async function podman(args: string[], opts: { timeoutMs?: number } = {}): Promise<string> {
  const { stdout } = await run('podman', [...PODMAN, ...args], { maxBuffer: 64 << 20, timeout: opts.timeoutMs ?? 120_000 });
  return stdout.trim();
}

function baseImageOfDockerfile(): string {
  const m = /^ARG NODE_IMAGE=(\S+)$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
  if (!m) throw new Error('the Dockerfile no longer declares ARG NODE_IMAGE=…; update test/container/image.test.ts');
  return m[1]!;
}

/** The host's npm settings a build needs to reach the registry (its CA file above all), as read-only mounts. */
function npmMounts(work: string): string[] {
  const get = (key: string) => spawnSync('npm', ['config', 'get', key], { encoding: 'utf8' }).stdout.trim();
  const cafile = get('cafile');
  const registry = get('registry');
  const lines = [`registry=${registry}`];
  const mounts: string[] = [];
  if (cafile && cafile !== 'null' && cafile !== 'undefined') {
    lines.push('cafile=/run/mmgen-host/ca.crt');
    mounts.push('--volume', `${cafile}:/run/mmgen-host/ca.crt:ro`);
  }
  const npmrc = join(work, 'npmrc');
  writeFileSync(npmrc, lines.join('\n') + '\n');
  // npm's global config file in the image (prefix /usr/local), as on the official node images.
  mounts.push('--volume', `${npmrc}:/usr/local/etc/npmrc:ro`);
  return mounts;
}

interface Node {
  name: string;
  container: string;
  service: ComposeService;
  url?: string;
  startedAt: number;
  readyAfterMs?: number;
}

describe('the container image, built from the Dockerfile and run as docker-compose.yml describes', () => {
  let work: string;
  let s3: TestS3;
  let dbName: string;
  let dbUrl: string;
  let org: { live: string };
  const nodes: Node[] = [];
  const figures: Record<string, string> = {};
  const suffix = `${process.pid}-${Date.now().toString(36)}`;

  const api = () => nodes.filter((n) => n.url);
  async function http(base: string, path: string, init: RequestInit & { key?: string } = {}) {
    const headers = new Headers(init.headers);
    if (init.key) headers.set('authorization', `Bearer ${init.key}`);
    if (init.body) headers.set('content-type', 'application/json');
    const res = await fetch(base + path, { ...init, headers });
    const text = await res.text();
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: res.status, headers: res.headers, body, text };
  }

  beforeAll(async () => {
    if (process.getuid?.() !== 0) throw new Error('the container test builds images with rootful Podman: run it as root');
    for (const tool of ['podman', 'runc', 'debootstrap']) {
      if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) throw new Error(`${tool} is missing: apt-get install -y podman runc debootstrap (as .ci/run does)`);
    }
    work = mkdtempSync(join(tmpdir(), 'mmgen-container-'));

    // 1. The base image's stand-in, then the project's image, built unchanged.
    const base = baseImageOfDockerfile();
    const recipe = STAND_IN_RECIPES[base];
    if (!recipe) throw new Error(`no stand-in recipe for base image ${base}: add one to STAND_IN_RECIPES`);
    await run(join(ROOT, 'test/container/base-image.sh'), [base, recipe.node, recipe.npm], { timeout: 600_000, maxBuffer: 16 << 20 });
    const t0 = Date.now();
    await podman(['build', '--pull=never', '--network', 'host', ...ULIMITS, ...npmMounts(work), '--tag', IMAGE, ROOT], { timeoutMs: 900_000 });
    figures.build_s = ((Date.now() - t0) / 1000).toFixed(0);
    figures.image_mb = (Number(await podman(['image', 'inspect', '--format', '{{.Size}}', IMAGE])) / 1e6).toFixed(0);

    // 2. What compose's third-party services provide: a database, Redis, an S3 bucket.
    s3 = await startTestS3('mmgen');
    dbName = `mmgen_container_${suffix.replace(/-/g, '_')}`;
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const u = new URL(ADMIN_URL);
    u.pathname = `/${dbName}`;
    dbUrl = u.toString();

    // 3. Every service compose builds from this repository, in compose order, from the image.
    const services = mmgenServices(readCompose());
    for (const [name, service] of services) {
      const env = { ...serviceEnv(service) };
      const isApi = serviceCommand(service)[0] === 'serve';
      const port = isApi ? await freePort() : undefined;
      Object.assign(env, {
        DATABASE_URL: dbUrl,
        REDIS_URL: REDIS_URL,
        MMGEN_REDIS_KEY_PREFIX: `mmgen-container-${suffix}:`,
        ...s3.env(),
        MMGEN_S3_PUBLIC_ENDPOINT: s3.endpoint,
        // Live keys reach the built-in simulator: no provider is reachable from here.
        MMGEN_SIMULATE_PROVIDERS: '1',
        LOG_LEVEL: 'info',
        ...(port ? { PORT: String(port), MMGEN_PUBLIC_URL: `http://127.0.0.1:${port}` } : {}),
      });
      const container = `mmgen-${name}-${suffix}`;
      const args = ['run', '--detach', '--name', container, '--network', 'host', ...ULIMITS];
      if (service.init) args.push('--init');
      for (const [k, v] of Object.entries(env)) args.push('--env', `${k}=${v}`);
      args.push(IMAGE, ...serviceCommand(service));
      const startedAt = Date.now();
      await podman(args);
      const node: Node = { name, container, service, startedAt, ...(port ? { url: `http://127.0.0.1:${port}` } : {}) };
      nodes.push(node);
      if (node.url) {
        await until(`${name} to listen`, async () => (await http(node.url!, '/healthz').catch(() => null))?.status === 200, 120_000, 100);
        node.readyAfterMs = Date.now() - startedAt;
      }
    }
    figures.cold_start_to_listening_ms = api()
      .map((n) => `${n.name} ${n.readyAfterMs}`)
      .join(', ');

    // 4. An organization, with the CLI that compose's header documents, run from the image.
    const created = await podman(['run', '--rm', '--network', 'host', ...ULIMITS, '--env', `DATABASE_URL=${dbUrl}`, IMAGE, 'org', 'create', '--name', 'acme', '--plan', 'team', '--credits', '100000', '--json']);
    org = JSON.parse(created.slice(created.indexOf('{'))).keys as { live: string };
    expect(org.live).toMatch(/^sk_live_/);
  }, 1_200_000);

  afterAll(async () => {
    process.stdout.write(`\ncontainer figures: ${JSON.stringify(figures)}\n`);
    for (const n of nodes) {
      if (process.env.MMGEN_CONTAINER_LOGS === '1') process.stdout.write(`--- ${n.name}\n${await podman(['logs', n.container]).catch(String)}\n`);
      await podman(['rm', '--force', '--time', '0', n.container]).catch(() => undefined);
    }
    await s3?.close();
    // Earlier builds' layers and the build stages, no longer tagged: without this, each run leaves about 1 GB behind.
    await podman(['image', 'prune', '--force']).catch(() => undefined);
    if (dbName) {
      const admin = new pg.Client({ connectionString: ADMIN_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await admin.end();
    }
    if (work) rmSync(work, { recursive: true, force: true });
  }, 120_000);

  it('/readyz answers ok on every API node, which sees the worker container', async () => {
    expect(api().length).toBeGreaterThanOrEqual(1);
    for (const n of api()) {
      const r = await until(`${n.name} ready with a live worker`, async () => {
        const res = await http(n.url!, '/readyz');
        return res.status === 200 && res.body.status === 'ok' ? res : null;
      });
      expect(r.body.checks).toMatchObject({ database: 'ok', blob_store: 'ok', redis: 'ok', workers: 'ok' });
      expect(r.body.queue.live_workers).toBeGreaterThanOrEqual(1);
    }
  });

  it('runs a live image on one API node and a live video through the worker container, files in S3, charged once each', async () => {
    const [first, second] = [api()[0]!, api().at(-1)!];
    const image = await http(first.url!, '/v1/images', { method: 'POST', key: org.live, body: JSON.stringify({ model: 'flux-schnell', prompt: 'a lighthouse in a container', width: 256, height: 256 }) });
    expect(image.status).toBe(200);
    expect(image.body).toMatchObject({ status: 'succeeded', livemode: true });
    const png = Buffer.from(await (await fetch(image.body.outputs[0].url)).arrayBuffer());
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(image.body.outputs[0].url.startsWith(s3.endpoint)).toBe(true);

    // Video needs ffmpeg in the image (the installed @ffmpeg-installer binary) and a worker.
    const video = await http(second.url!, '/v1/videos', { method: 'POST', key: org.live, body: JSON.stringify({ model: 'wan-2.2', prompt: 'waves in a container', duration_s: 1 }) });
    expect(video.status).toBe(202);
    const done = await until('the video to finish', async () => {
      const g = await http(first.url!, `/v1/generations/${video.body.id}`, { key: org.live });
      return ['succeeded', 'failed', 'canceled'].includes(g.body.status) ? g.body : null;
    }, 120_000, 250);
    expect(done.status).toBe('succeeded');
    const mp4 = Buffer.from(await (await fetch(done.outputs[0].url)).arrayBuffer());
    expect(mp4.subarray(4, 8).toString('latin1')).toBe('ftyp');

    const wallet = await http(first.url!, '/v1/wallet', { key: org.live });
    expect(image.body.charged_credits + done.charged_credits).toBeGreaterThan(0);
    expect(wallet.body.balance_credits).toBe(100_000 - image.body.charged_credits - done.charged_credits);
    expect(s3.refused).toEqual([]);
  });

  it('serves the built dashboard at /dashboard, with its assets', async () => {
    const n = api()[0]!;
    const page = await http(n.url!, '/dashboard/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const script = /<script[^>]+src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(page.text)?.[1];
    expect(script, 'the built index.html names its hashed bundle').toBeDefined();
    const js = await fetch(n.url! + script);
    expect(js.status).toBe(200);
    expect((await js.text()).length).toBeGreaterThan(10_000);
  });

  it('runs every process as the unprivileged node user (uid 1000)', async () => {
    for (const n of nodes) {
      expect(await podman(['inspect', '--format', '{{.Config.User}}', n.container])).toBe('node');
      // Podman reads these from /proc itself (the image has no ps).
      const table = await podman(['top', n.container, 'user', 'args']);
      const rows = table.split('\n').slice(1).filter(Boolean);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(row.trim().split(/\s+/)[0], row).toBe('node');
      // Real, effective, saved and filesystem uids of PID 1 (the init, or mmgen itself) and of every other process.
      const uids = await podman(['exec', n.container, 'sh', '-c', 'grep -h "^Uid:" /proc/[0-9]*/status']);
      for (const line of uids.split('\n')) expect(line.split(/\s+/).slice(1), line).toEqual(['1000', '1000', '1000', '1000']);
      expect(rows.some((r) => r.includes('bin/mmgen'))).toBe(true);
    }
  });

  it('runs the server compiled at image build time, not through tsx', async () => {
    for (const n of nodes) {
      const { stdout, stderr } = await run('podman', [...PODMAN, 'logs', n.container], { maxBuffer: 64 << 20 });
      expect(stdout, n.name).toMatch(/"code":"compiled"/);
      expect(stderr, n.name).not.toMatch(/could not build the server/);
    }
  });

  it('the compose healthcheck command passes inside an API container', async () => {
    const n = api()[0]!;
    const test = n.service.healthcheck?.test;
    expect(Array.isArray(test) && test[0] === 'CMD').toBe(true);
    // Compose's port is 8080 inside its own network; here the node listens on its own port.
    const cmd = (test as string[]).slice(1).map((a) => a.replace('127.0.0.1:8080', new URL(n.url!).host));
    await podman(['exec', n.container, ...cmd]);
  });

  it('SIGTERM (podman stop) drains: work in flight finishes, and every container exits 0', async () => {
    const apiNode = api().at(-1)!;
    const worker = nodes.find((n) => serviceCommand(n.service)[0] === 'worker')!;
    // A slow async job held by the worker, and a slow sync request in flight on the API node.
    const slowJob = await http(apiNode.url!, '/v1/videos', { method: 'POST', key: org.live, body: JSON.stringify({ model: 'wan-2.2', prompt: 'drain me', duration_s: 1, simulate: { delay_ms: 2500 } }) });
    expect(slowJob.status).toBe(202);
    await until('the worker to start the slow job', async () => (await http(apiNode.url!, `/v1/generations/${slowJob.body.id}`, { key: org.live })).body.status === 'running', 30_000, 50);
    const inFlight = http(apiNode.url!, '/v1/images', { method: 'POST', key: org.live, body: JSON.stringify({ model: 'flux-schnell', prompt: 'answered while draining', width: 256, height: 256, simulate: { delay_ms: 1500 } }) });
    await new Promise((r) => setTimeout(r, 300));

    const stopping = Date.now();
    const stops = [apiNode, worker].map((n) =>
      podman(['stop', '--time', String(stopGraceSeconds(n.service)), n.container], { timeoutMs: 120_000 }).then(() => {
        figures[`${n.name}_stop_ms`] = String(Date.now() - stopping);
      }),
    );
    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(answered.body.status).toBe('succeeded');
    await Promise.all(stops);
    for (const n of [apiNode, worker]) {
      expect(await podman(['inspect', '--format', '{{.State.ExitCode}}', n.container]), `${n.name} exit code`).toBe('0');
    }
    // The worker finished the job it held before it exited.
    const other = api().find((n) => n !== apiNode) ?? apiNode;
    if (other !== apiNode) {
      const g = await http(other.url!, `/v1/generations/${slowJob.body.id}`, { key: org.live });
      expect(g.body.status).toBe('succeeded');
    }
  });
});
