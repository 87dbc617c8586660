import { operatorOrigin } from '../../src/domain/audit.js';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { Writable } from 'node:stream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getWallet, ledgerSums } from '../../src/billing/credits.js';
import { createOrganization } from '../../src/domain/organizations.js';
import type { Db } from '../../src/store/db.js';
import { spawnMmgen, until, type MmgenProcess } from '../helpers/processes.js';
import { createLogger } from '../../src/main.js';
import { client, freshDb, startTestServer } from '../helpers/server.js';

vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });

interface Outcome {
  kind: 'image' | 'chat' | 'completion' | 'music' | 'long music';
  status: number | 'network error';
  id?: string;
  charged?: number;
  startedAt: number;
  endedAt: number;
}

/**
 * What stops the node under load: SIGTERM (exit 0), or an exception no handler caught (issue 42's policy,
 * src/lifecycle.ts stopOnFatal: drain as for SIGTERM, then exit 1). Either way nothing answered is lost or charged twice.
 */
const STOPS = [
  { name: 'SIGTERM under load', signal: 'SIGTERM', exitCode: 0, env: {} as Record<string, string>, logged: 'shutting down' },
  {
    name: 'an uncaught exception under load',
    signal: 'SIGUSR2',
    exitCode: 1,
    env: { NODE_OPTIONS: `--import=${pathToFileURL(join(process.cwd(), 'test', 'fixtures', 'plant-fault.mjs')).href}` },
    logged: 'uncaught exception: draining, then exiting 1',
  },
] as const;

for (const stopBy of STOPS) describe(stopBy.name, { tags: ['postgres'] }, () => {
  let db: Db;
  let drop: () => Promise<void>;
  let dir: string;
  let dbUrl: string;
  let node: MmgenProcess | undefined;
  let worker: MmgenProcess | undefined;

  beforeAll(async () => {
    const fresh = await freshDb('postgres');
    db = fresh.db;
    drop = fresh.drop;
    dir = mkdtempSync(join(tmpdir(), 'mmgen-sigterm-'));
    dbUrl = fresh.url!;
  });
  afterAll(async () => {
    await node?.stop();
    await worker?.stop();
    await db?.close();
    await drop?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loses no request that was answered 2xx: sync ones are committed, accepted async ones are finished by the next worker', async () => {
    const env = {
      DATABASE_URL: dbUrl,
      MMGEN_DATA_DIR: dir,
      MMGEN_SIMULATE_PROVIDERS: '1',
      MMGEN_SHUTDOWN_GRACE_MS: '4000',
      MMGEN_WORKER_POLL_MS: '50',
      MMGEN_JOB_LEASE_MS: '60000',
      // Answered chat completions and async jobs wait this long to be finished together: SIGTERM must finish them at once.
      MMGEN_ANSWERED_FINISH_BATCH_MS: '10000',
      MMGEN_FINISH_BATCH_MS: '10000',
    };
    node = await spawnMmgen(['serve'], { ...env, ...stopBy.env });
    const created = await createOrganization(db, { name: 'sigterm', plan: 'team', enterprise: false, credits: 10_000_000 }, operatorOrigin('test'));
    const key = created.keys.live;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const models = async (m: string) => ((await (await fetch(`${node!.url}/v1/models?modality=${m}`, { headers })).json()) as { data: Array<{ slug: string }> }).data[0]!.slug;
    const [image, chat, music] = [await models('image'), await models('chat'), await models('music')];

    const outcomes: Outcome[] = [];
    const send = async (kind: Outcome['kind'], path: string, body: Record<string, unknown>): Promise<Outcome> => {
      const startedAt = Date.now();
      try {
        const res = await fetch(`${node!.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
        const json = (await res.json()) as { id?: string; charged_credits?: number; error?: { code: string } };
        const o: Outcome = { kind, status: res.status, startedAt, endedAt: Date.now(), ...(json.id ? { id: json.id, charged: json.charged_credits } : {}) };
        if (res.status === 503) expect(json.error?.code).toBe('service_unavailable');
        outcomes.push(o);
        return o;
      } catch {
        const o: Outcome = { kind, status: 'network error', startedAt, endedAt: Date.now() };
        outcomes.push(o);
        return o;
      }
    };

    // Jobs the node's own worker cannot finish within the grace period: it must hand them back.
    for (let i = 0; i < 4; i++) {
      const o = await send('long music', '/v1/music', { model: music, prompt: `long ${i}`, duration_s: 5, simulate: { delay_ms: 12_000 } });
      expect(o.status).toBe(202);
    }

    let sigtermAt = 0;
    const loops = Array.from({ length: 8 }, async (_, loop) => {
      for (let i = 0; ; i++) {
        const tag = `${loop}-${i}-${randomBytes(3).toString('hex')}`;
        const o =
          i % 4 === 0
            ? await send('image', '/v1/images', { model: image, prompt: tag, width: 256, height: 256, simulate: { delay_ms: 400 } })
            : i % 4 === 1
              ? await send('chat', '/v1/chat', { model: chat, messages: [{ role: 'user', content: tag }], max_tokens: 32, simulate: { delay_ms: 300 } })
              : i % 4 === 2
                ? // Answered at once (no simulated delay), so finished in a batch after the answer.
                  await send('completion', '/v1/chat/completions', { model: chat, messages: [{ role: 'user', content: tag }], max_tokens: 32 })
                : await send('music', '/v1/music', { model: music, prompt: tag, duration_s: 5, simulate: { delay_ms: 1500 } });
        if (typeof o.status !== 'number' || o.status >= 300) return;
      }
    });
    // Load for a while (at least a few dozen answers), then SIGTERM in the middle of it.
    await until('some load', async () => outcomes.filter((o) => o.status === 200).length >= 24, 120_000, 50);
    sigtermAt = Date.now();
    node.proc.kill(stopBy.signal);
    await Promise.all(loops);
    expect(await node.exited).toBe(stopBy.exitCode);

    // Nothing but successes, 503 service_unavailable (draining) and refused connections (closed).
    const statuses = new Set(outcomes.map((o) => o.status));
    for (const s of statuses) expect([200, 202, 503, 'network error'], String(s)).toContain(s);
    const answered = outcomes.filter((o) => o.status === 200 || o.status === 202);
    // Some requests were in flight at SIGTERM and were still answered (the drain waited for them).
    expect(answered.filter((o) => o.startedAt < sigtermAt && o.endedAt > sigtermAt).length).toBeGreaterThan(0);

    const logs = node.logs();
    expect(logs.some((l) => l.msg === stopBy.logged)).toBe(true);
    expect(logs.some((l) => l.msg === 'shutting down')).toBe(true);
    expect(logs.some((l) => l.msg === 'stopped')).toBe(true);
    const completed = logs.filter((l) => l.msg === 'request completed' && l.route === '/v1/images' && l.statusCode === 200);
    expect(completed.length).toBeGreaterThan(0);
    expect(completed.every((l) => typeof l.reqId === 'string' && String(l.generationId).startsWith('gen_'))).toBe(true);
    expect(node.output()).not.toContain(key);

    // Every answered chat completion was finished (charged) by the node itself before it exited, not left to a worker.
    const completions = answered.filter((o) => o.kind === 'completion').map((o) => o.id!);
    expect(completions.length).toBeGreaterThan(0);
    const finishedByNode = await db.query<{ id: string; status: string; charged_credits: number }>(
      'SELECT id, status, charged_credits FROM generations WHERE id = ANY($1)', [completions],
    );
    expect(finishedByNode.rows).toHaveLength(completions.length);
    for (const g of finishedByNode.rows) {
      expect(g.status, g.id).toBe('succeeded');
      expect(g.charged_credits, g.id).toBeGreaterThan(0);
    }

    // The jobs the node still held were handed back: a worker started now finishes every accepted generation.
    const heldAfterStop = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs WHERE lease_owner IS NOT NULL');
    expect(heldAfterStop.rows[0]!.n).toBe(0);
    worker = await spawnMmgen(['worker'], env);
    const ids = answered.map((o) => o.id!);
    const rows = await until('every answered generation to finish', async () => {
      const r = await db.query<{ id: string; status: string; charged_credits: number; runner_node: string }>(
        'SELECT id, status, charged_credits, runner_node FROM generations WHERE id = ANY($1)', [ids],
      );
      return r.rows.length === ids.length && r.rows.every((g) => ['succeeded', 'failed', 'canceled'].includes(g.status)) ? r.rows : null;
    }, 180_000, 250);
    const byId = new Map(rows.map((g) => [g.id, g]));
    for (const o of answered) {
      const g = byId.get(o.id!)!;
      expect(g.status, `${o.kind} ${o.id}`).toBe('succeeded');
      if (o.status === 200 && o.kind !== 'completion') expect(g.charged_credits).toBe(o.charged);
    }
    // The long jobs were finished by the new worker, each submitted upstream once.
    const long = answered.filter((o) => o.kind === 'long music').map((o) => byId.get(o.id!)!);
    expect(long.every((g) => g.runner_node.split(':')[1] === String(worker!.pid))).toBe(true);
    const subs = await db.query<{ n: number; refs: number }>(
      "SELECT count(*)::int AS n, count(DISTINCT client_ref)::int AS refs FROM simulator_jobs WHERE split_part(client_ref, '#', 1) = ANY($1)",
      [ids],
    );
    expect(subs.rows[0]!.n).toBe(subs.rows[0]!.refs);

    await until('no jobs left', async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs')).rows[0]!.n === 0);
    const wallet = await getWallet(db, created.organization.id);
    expect(await ledgerSums(db, created.organization.id)).toEqual({ balance_credits: wallet.balance_credits, held_credits: wallet.held_credits });
    expect(wallet.held_credits).toBe(0);
    expect(await worker.stop()).toBe(0);
    worker = undefined;
    node = undefined;
  });
});

/** A log destination that keeps the lines written to it. */
function logLines(): { lines: string[]; sink: Writable } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, sink };
}

describe('past the shutdown grace period', { tags: ['postgres'] }, () => {
  it('a generation still being polled stops before the database closes, and its job goes back to the queue', async () => {
    const { lines, sink } = logLines();
    // Node A only holds the database; node B runs the worker and shuts down with a 300 ms grace.
    const a = await startTestServer('postgres', {}, { worker: false });
    try {
      const b = await startTestServer(
        'postgres',
        { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_SHUTDOWN_GRACE_MS: '300', MMGEN_JOB_LEASE_MS: '2000', MMGEN_WORKER_POLL_MS: '50', LOG_LEVEL: 'info' },
        { sameDbAs: a, log: (config) => createLogger(config, sink) },
      );
      const org = await a.createOrg({ credits: 1_000_000 });
      const res = await client(b.url)('POST', '/v1/music', { key: org.live, body: { model: 'musicgen', prompt: 'long', duration_s: 5, simulate: { delay_ms: 30_000 } } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      await until('the generation to run', async () => {
        const g = await a.db.query<{ status: string }>('SELECT status FROM generations WHERE id = $1', [res.body.id]);
        return g.rows[0]?.status === 'running';
      });
      await b.close();
      const closedAt = lines.length;
      await new Promise((r) => setTimeout(r, 2_000)); // several poll intervals: a run that went on would have polled by now
      const after = lines.slice(closedAt).map((l) => JSON.parse(l) as { level: number; msg: string });
      expect(after.filter((l) => l.level >= 40), JSON.stringify(after)).toEqual([]);
      const job = await a.db.query<{ lease_owner: string | null; run_at: Date }>('SELECT lease_owner, run_at FROM jobs WHERE generation_id = $1', [res.body.id]);
      expect(job.rows[0]?.lease_owner).toBeNull();
      expect(job.rows[0]!.run_at.getTime()).toBeLessThanOrEqual(Date.now() + 1_000);
      const g = await a.db.query<{ status: string; upstream_id: string | null }>('SELECT status, upstream_id FROM generations WHERE id = $1', [res.body.id]);
      expect(g.rows[0]).toMatchObject({ status: 'running' });
      expect(g.rows[0]!.upstream_id).toBeTruthy();
    } finally {
      await a.close();
    }
  });
});

describe('a drain with kept-alive connections [pglite]', () => {
  it('a request answered while the node drains closes its connection, so the drain ends with it rather than at the grace period', async () => {
    const { lines, sink } = logLines();
    // A grace period longer than the test's own time limit: a drain that waited for it fails the test.
    const s = await startTestServer('pglite', { MMGEN_SHUTDOWN_GRACE_MS: '60000', LOG_LEVEL: 'info' }, { log: (config) => createLogger(config, sink) });
    let closed = false;
    try {
      const org = await s.createOrg({ credits: 100_000 });
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const post = (body: object) =>
        new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string; socketClosed: Promise<void> }>((resolve, reject) => {
          const req = http.request(`${s.url}/v1/images`, { method: 'POST', agent, headers: { authorization: `Bearer ${org.test}`, 'content-type': 'application/json' } }, (res) => {
            let text = '';
            const socket = res.socket;
            const socketClosed = new Promise<void>((r) => (socket.destroyed ? r() : socket.once('close', () => r())));
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, socketClosed }));
          });
          req.on('error', reject);
          req.end(JSON.stringify(body));
        });
      // A first request leaves the socket idle in the agent's pool; the second, slow one reuses it.
      expect((await post({ model: 'flux-schnell', prompt: 'warm', width: 256, height: 256 })).status).toBe(200);
      const slow = post({ model: 'flux-schnell', prompt: 'slow', width: 256, height: 256, simulate: { delay_ms: 800 } });
      await new Promise((r) => setTimeout(r, 200));
      const closing = s.close().then(() => (closed = true));
      const answered = await slow;
      expect(answered.status).toBe(200);
      expect(answered.headers.connection).toBe('close');
      await answered.socketClosed;
      await closing;
      agent.destroy();
      expect(lines.some((l) => l.includes('requests still open after the grace period are cut'))).toBe(false);
    } finally {
      if (!closed) await s.close().catch(() => undefined);
    }
  });
});
