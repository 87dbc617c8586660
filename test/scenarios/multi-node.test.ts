import { operatorOrigin } from '../../src/domain/audit.js';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getWallet, ledgerSums } from '../../src/billing/credits.js';
import { createOrganization } from '../../src/domain/organizations.js';
import type { Db } from '../../src/store/db.js';
import { metric, scrape } from '../helpers/prometheus.js';
import { spawnMmgen, until, type MmgenProcess } from '../helpers/processes.js';
import { startTestS3, type TestS3 } from '../helpers/s3.js';
import { client, freshDb } from '../helpers/server.js';

// Four real mmgen processes, s3rver and a receiver on a machine shared with others: generous limits, no timing assertions.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });

type Api = ReturnType<typeof client>;
const TERMINAL = ['succeeded', 'failed', 'canceled'];

/**
 * A webhook receiver that records every request by delivery id, and fails the
 * first attempt of the first delivery and of about one in four others (so
 * retries are exercised too).
 */
class Receiver {
  server!: Server;
  url = '';
  readonly byDelivery = new Map<string, Array<{ eventId: string }>>();

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const delivery = String(req.headers['x-service-delivery']);
        const event = JSON.parse(Buffer.concat(chunks).toString()) as { id: string };
        const seen = this.byDelivery.get(delivery) ?? [];
        seen.push({ eventId: event.id });
        this.byDelivery.set(delivery, seen);
        // The first delivery ever seen, and about one in four of the others.
        const flaky = this.byDelivery.size === 1 || createHash('sha256').update(delivery).digest()[0]! % 4 === 0;
        res.writeHead(flaky && seen.length === 1 ? 500 : 200);
        res.end();
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

/** A GET from a chosen loopback source address (a client of its own, as far as per-address limits go). */
function getFrom(localAddress: string, url: string, key: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { localAddress, headers: { authorization: `Bearer ${key}` } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('two API nodes and two workers on one PostgreSQL, Redis and S3', { tags: ['postgres', 'redis'] }, () => {
  let s3: TestS3;
  let db: Db;
  let drop: () => Promise<void>;
  let receiver: Receiver;
  let a: MmgenProcess;
  let b: MmgenProcess;
  let workers: MmgenProcess[] = [];
  const dirs: string[] = [];
  let apiA: Api;
  let apiB: Api;
  let org: { id: string; live: string; test: string };
  const INITIAL_CREDITS = 50_000_000;

  beforeAll(async () => {
    s3 = await startTestS3();
    const fresh = await freshDb('postgres');
    db = fresh.db;
    drop = fresh.drop;
    receiver = new Receiver();
    await receiver.start();
    const env = {
      DATABASE_URL: fresh.url!,
      REDIS_URL: process.env.TEST_REDIS_URL!,
      MMGEN_REDIS_KEY_PREFIX: `mmgen-multinode-${randomBytes(4).toString('hex')}:`,
      ...s3.env(),
      MMGEN_S3_URLS: 'presigned',
      MMGEN_SIMULATE_PROVIDERS: '1',
      MMGEN_ALLOW_PRIVATE_NETWORK: '1',
      MMGEN_WEBHOOK_RETRY_DELAYS: '1,1,1,1,1',
      MMGEN_JOB_LEASE_MS: '10000',
      MMGEN_WORKER_POLL_MS: '50',
      // Small per-worker concurrency, so that both workers take part.
      MMGEN_WORKER_CONCURRENCY: '4',
      MMGEN_RATE_LIMIT_FREE: '10',
      MMGEN_AUTH_FAILURES_PER_MINUTE: '6',
      MMGEN_DB_POOL_SIZE: '5',
    };
    // Each process gets a data directory of its own: nothing may rely on a shared disk.
    const withDir = () => {
      const dir = mkdtempSync(join(tmpdir(), 'mmgen-node-'));
      dirs.push(dir);
      return { ...env, MMGEN_DATA_DIR: dir };
    };
    [a, b, ...workers] = await Promise.all([
      spawnMmgen(['serve', '--no-worker'], withDir()),
      spawnMmgen(['serve', '--no-worker'], withDir()),
      spawnMmgen(['worker'], withDir()),
      spawnMmgen(['worker'], withDir()),
    ]);
    apiA = client(a.url);
    apiB = client(b.url);
    const created = await createOrganization(db, { name: 'multi-node', plan: 'team', enterprise: false, credits: INITIAL_CREDITS }, operatorOrigin('test'));
    org = { id: created.organization.id, live: created.keys.live, test: created.keys.test };
  });

  afterAll(async () => {
    const codes = await Promise.all([a, b, ...workers].filter(Boolean).map((p) => p.stop()));
    expect(codes.every((c) => c === 0)).toBe(true);
    await receiver?.close();
    await s3?.close();
    await db?.close();
    await drop?.();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('both API nodes are ready and see both workers', async () => {
    for (const api of [apiA, apiB]) {
      const ready = await until('readiness with both workers', async () => {
        const r = await api('GET', '/readyz');
        return r.status === 200 && r.body.queue.live_workers === 2 ? r : null;
      });
      expect(ready.body.checks).toMatchObject({ database: 'ok', blob_store: 'ok', redis: 'ok', workers: 'ok', queue: 'ok' });
    }
  });

  it('mixed load through both nodes: each generation processed once, each webhook attempt made once, no double charge, ledger = wallet', async () => {
    const slugs = async (modality: string) => ((await apiA('GET', `/v1/models?modality=${modality}`, { key: org.live })).body.data as Array<{ slug: string }>).map((m) => m.slug);
    const [image, chat, music, video] = await Promise.all(['image', 'chat', 'music', 'video'].map(async (m) => (await slugs(m))[0]!));
    const imageModels = await slugs('image');

    const hook = await apiA('POST', '/v1/webhooks', { key: org.test, body: { url: receiver.url, events: ['*'] } });
    expect(hook.status).toBe(201);

    interface Made { id: string; node: 'a' | 'b'; kind: string }
    const made: Made[] = [];
    const lost: Made[] = [];
    const toCancel: Made[] = [];
    const comparisons: string[] = [];
    const unexpected: string[] = [];

    const ops: Array<() => Promise<void>> = [];
    for (let i = 0; i < 64; i++) {
      const node = i % 2 === 0 ? 'a' : 'b';
      const api = node === 'a' ? apiA : apiB;
      const tag = `load ${i} ${randomBytes(3).toString('hex')}`;
      const post = async (path: string, key: string, body: Record<string, unknown>, want: number, kind: string, into: Made[] = made) => {
        const res = await api('POST', path, { key, body });
        if (res.status !== want) {
          unexpected.push(`${kind} on ${node}: ${res.status} ${JSON.stringify(res.body)}`);
          return;
        }
        const id = (res.body.id as string | undefined) ?? /gen_\w+/.exec(JSON.stringify(res.body))?.[0];
        if (path === '/v1/comparisons') comparisons.push(res.body.id as string);
        else if (id) into.push({ id, node, kind });
      };
      switch (i % 8) {
        case 0: ops.push(() => post('/v1/images', org.live, { model: image, prompt: tag, width: 256, height: 256, simulate: { delay_ms: 150 } }, 200, 'image')); break;
        case 1: ops.push(() => post('/v1/chat', org.live, { model: chat, messages: [{ role: 'user', content: tag }], max_tokens: 64, simulate: { delay_ms: 50 } }, 200, 'chat')); break;
        case 2: ops.push(() => post('/v1/music', org.live, { model: music, prompt: tag, duration_s: 5, simulate: { delay_ms: 200 } }, 202, 'music')); break;
        case 3: ops.push(() => post('/v1/videos', org.live, { model: 'wan-2.2', prompt: tag, duration_s: 1, simulate: { delay_ms: 300 } }, 202, 'video')); break;
        case 4: ops.push(() => post('/v1/images', org.live, { model: image, prompt: tag, width: 256, height: 256, simulate: { outcome: 'failure' } }, 502, 'image failure')); break;
        case 5: ops.push(() => post('/v1/music', org.live, { model: music, prompt: tag, duration_s: 5, simulate: { outcome: 'lost' } }, 202, 'music lost', lost)); break;
        case 6: ops.push(() => post('/v1/music', org.live, { model: music, prompt: tag, duration_s: 5, simulate: { delay_ms: 5_000 } }, 202, 'music to cancel', toCancel)); break;
        case 7:
          ops.push(() => post('/v1/images', org.test, { model: image, prompt: tag, width: 256, height: 256, simulate: { delay_ms: 50 } }, 200, 'test image'));
          ops.push(() => post('/v1/music', org.test, { model: music, prompt: tag, duration_s: 5, simulate: { delay_ms: 100 } }, 202, 'test music'));
          ops.push(() =>
            post('/v1/comparisons', i % 16 === 7 ? org.test : org.live, { models: imageModels.slice(0, 2), prompt: tag, params: { width: 256, height: 256 }, simulate: { delay_ms: 100 } }, 202, 'comparison'),
          );
          break;
      }
    }
    // Eight clients at a time.
    const queue = [...ops];
    await Promise.all(Array.from({ length: 8 }, async () => {
      for (let op = queue.shift(); op; op = queue.shift()) await op();
    }));
    expect(unexpected).toEqual([]);

    // Cancel through the other node; retry the lost ones through the other node once they failed.
    for (const g of toCancel) {
      const api = g.node === 'a' ? apiB : apiA;
      const res = await api('POST', `/v1/generations/${g.id}/cancel`, { key: org.live });
      expect([200, 409]).toContain(res.status);
    }
    for (const g of lost) {
      const api = g.node === 'a' ? apiB : apiA;
      await until(`${g.id} to fail`, async () => (await api('GET', `/v1/generations/${g.id}`, { key: org.live })).body.status === 'failed');
      const retried = await api('POST', `/v1/generations/${g.id}/retry`, { key: org.live });
      expect(retried.status, JSON.stringify(retried.body)).toBe(202);
    }

    // Everything reaches a terminal state and no job is left.
    await until('every generation to finish', async () => {
      const r = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM generations WHERE organization_id = $1 AND status NOT IN ('succeeded', 'failed', 'canceled')", [org.id]);
      const j = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs');
      return r.rows[0]!.n === 0 && j.rows[0]!.n === 0;
    }, 120_000, 250);

    const gens = (await db.query<{ id: string; status: string; mode: string; sync: boolean; attempt: number; reserved_credits: number; charged_credits: number; refunded_credits: number; runner_node: string | null; comparison_id: string | null }>(
      'SELECT id, status, mode, sync, attempt, reserved_credits, charged_credits, refunded_credits, runner_node, comparison_id FROM generations WHERE organization_id = $1',
      [org.id],
    )).rows;
    const byId = new Map(gens.map((g) => [g.id, g]));
    for (const g of made) expect(byId.get(g.id)?.status, `${g.kind} ${g.id}`).toBe(g.kind === 'image failure' ? 'failed' : 'succeeded');
    for (const g of lost) expect(byId.get(g.id)).toMatchObject({ status: 'succeeded', attempt: 2 });
    expect(comparisons.length).toBe(8);

    // Processed once: one upstream submission per generation at most, and exactly one for each that ran (a lost one's retry
    // adopts it). Every request above carries a delay, so the simulator keeps a row per submission (instant answers leave none).
    const subs = await db.query<{ gen: string; n: number }>(
      "SELECT split_part(client_ref, '#', 1) AS gen, count(*)::int AS n FROM simulator_jobs WHERE split_part(client_ref, '#', 1) = ANY($1) GROUP BY 1",
      [gens.map((g) => g.id)],
    );
    const submissions = new Map(subs.rows.map((r) => [r.gen, r.n]));
    for (const g of gens) {
      const n = submissions.get(g.id) ?? 0;
      if (g.status === 'canceled') expect(n, g.id).toBeLessThanOrEqual(1);
      else expect(n, `${g.id} (${g.status})`).toBe(1);
    }

    // No double charge: one charge per attempt at most, each generation's money adds up, and the ledger matches the wallet.
    const charges = await db.query<{ generation_id: string; n: number; credits: number }>(
      "SELECT generation_id, count(*)::int AS n, (-sum(balance_delta))::int AS credits FROM ledger_entries WHERE kind = 'charge' AND organization_id = $1 GROUP BY generation_id",
      [org.id],
    );
    for (const c of charges.rows) {
      const g = byId.get(c.generation_id)!;
      expect(c.n, c.generation_id).toBeLessThanOrEqual(g.attempt);
      expect(c.credits, c.generation_id).toBe(g.charged_credits);
    }
    for (const g of gens) expect(g.reserved_credits, g.id).toBe(g.charged_credits + g.refunded_credits);
    const wallet = await getWallet(db, org.id);
    expect(await ledgerSums(db, org.id)).toEqual({ balance_credits: wallet.balance_credits, held_credits: wallet.held_credits });
    expect(wallet.held_credits).toBe(0);
    const spent = gens.filter((g) => g.mode === 'live').reduce((sum, g) => sum + g.charged_credits, 0);
    expect(spent).toBeGreaterThan(0);
    expect(wallet.balance_credits).toBe(INITIAL_CREDITS - spent);

    // The asynchronous work was shared by the two workers; the API nodes ran only the synchronous generations.
    const asyncNodes = new Set(gens.filter((g) => !g.sync && g.runner_node).map((g) => g.runner_node!.split(':')[1]));
    expect([...asyncNodes].sort()).toEqual(workers.map((w) => String(w.pid)).sort());

    // Webhooks: every test-mode event delivered, each attempt made once (the receiver saw exactly the attempts recorded).
    const events = (await db.query<{ id: string }>("SELECT id FROM events WHERE organization_id = $1 AND mode = 'test'", [org.id])).rows;
    expect(events.length).toBeGreaterThanOrEqual(8 + 8 + 4);
    const deliveries = await until('every delivery to succeed', async () => {
      const d = (await db.query<{ id: string; event_id: string; status: string; attempts: number }>(
        'SELECT id, event_id, status, attempts FROM webhook_deliveries WHERE webhook_id = $1', [hook.body.id],
      )).rows;
      return d.length === events.length && d.every((x) => x.status === 'succeeded') ? d : null;
    }, 120_000, 250);
    expect(new Set(deliveries.map((d) => d.event_id))).toEqual(new Set(events.map((e) => e.id)));
    const attempts = (await db.query<{ delivery_id: string; attempt: number }>(
      'SELECT delivery_id, attempt FROM webhook_attempts WHERE delivery_id = ANY($1) ORDER BY delivery_id, attempt', [deliveries.map((d) => d.id)],
    )).rows;
    let retried = 0;
    for (const d of deliveries) {
      const seen = receiver.byDelivery.get(d.id) ?? [];
      const recorded = attempts.filter((x) => x.delivery_id === d.id).map((x) => x.attempt);
      expect(seen.length, d.id).toBe(d.attempts);
      expect(recorded, d.id).toEqual(Array.from({ length: d.attempts }, (_, k) => k + 1));
      expect(seen.every((x) => x.eventId === d.event_id)).toBe(true);
      if (d.attempts > 1) retried++;
    }
    expect(retried).toBeGreaterThan(0);

    // The metrics of the two API nodes add up to what was accepted.
    const accepted = (await Promise.all([a, b].map((p) => scrape(p.url)))).reduce((sum, samples) => sum + (metric(samples, 'mmgen_generations_accepted_total') ?? 0), 0);
    expect(accepted).toBe(gens.length);
  });

  it('a key revoked on one node is refused by the other on its very next request', async () => {
    for (const [creator, user] of [[apiA, apiB], [apiB, apiA]] as const) {
      const created = await creator('POST', '/v1/api-keys', { key: org.live, body: { name: 'short-lived' } });
      expect(created.status).toBe(201);
      expect((await user('GET', '/v1/wallet', { key: created.body.key })).status).toBe(200);
      expect((await creator('DELETE', `/v1/api-keys/${created.body.id}`, { key: org.live })).status).toBe(200);
      const after = await user('GET', '/v1/wallet', { key: created.body.key });
      expect(after.status).toBe(401);
      expect(after.body.error.code).toBe('invalid_api_key');
    }
  });

  it('an organization paused on one node is paused on the other at once, and unpaused likewise', async () => {
    const image = (await apiA('GET', '/v1/models?modality=image', { key: org.live })).body.data[0].slug as string;
    const body = (p: string) => ({ model: image, prompt: `pause ${p} ${randomBytes(3).toString('hex')}`, width: 256, height: 256 });
    expect((await apiA('PATCH', '/v1/organization', { key: org.live, body: { paused: true } })).status).toBe(200);
    const refused = await apiB('POST', '/v1/images', { key: org.live, body: body('b') });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('organization_paused');
    expect((await apiB('PATCH', '/v1/organization', { key: org.live, body: { paused: false } })).status).toBe(200);
    expect((await apiA('POST', '/v1/images', { key: org.live, body: body('a') })).status).toBe(200);
  });

  it('rate limits are one budget across nodes (Redis)', async () => {
    const free = await createOrganization(db, { name: 'free', plan: 'free', enterprise: false, credits: 0 }, operatorOrigin('test'));
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 13; i++) {
      const res = await (i % 2 === 0 ? apiA : apiB)('GET', '/v1/wallet', { key: free.keys.live });
      statuses.push(res.status);
      remaining.push(res.headers.get('ratelimit-remaining') ?? '');
      if (res.status === 429) expect(res.body.error.code).toBe('rate_limit_exceeded');
    }
    expect(statuses).toEqual([...Array(10).fill(200), 429, 429, 429]);
    expect(remaining).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0', '0', '0', '0']);
  });

  it('failed authentications are counted across nodes', async () => {
    // A loopback source address of its own, so no other test's failures count.
    const bad = `sk_live_${'x'.repeat(40)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await getFrom('127.0.0.23', `${i % 2 === 0 ? a.url : b.url}/v1/wallet`, bad)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429, 429]);
  });

  it('an event stream on node A sees a job finished by a worker process', async () => {
    const music = (await apiB('GET', '/v1/models?modality=music', { key: org.live })).body.data[0].slug as string;
    const created = await apiB('POST', '/v1/music', { key: org.live, body: { model: music, prompt: `sse ${randomBytes(3).toString('hex')}`, duration_s: 5, simulate: { delay_ms: 1500 } } });
    expect(created.status).toBe(202);
    const res = await fetch(`${a.url}/v1/generations/${created.body.id}/events`, { headers: { authorization: `Bearer ${org.live}` }, signal: AbortSignal.timeout(120_000) });
    expect(res.status).toBe(200);
    const text = await res.text(); // the stream ends after the terminal state
    const states = [...text.matchAll(/^data: (.*)$/gm)].map((m) => (JSON.parse(m[1]!) as { status: string }).status);
    expect(states.at(-1)).toBe('succeeded');
    expect(TERMINAL.filter((t) => states.includes(t))).toEqual(['succeeded']);
    const row = (await db.query<{ runner_node: string }>('SELECT runner_node FROM generations WHERE id = $1', [created.body.id])).rows[0]!;
    expect(workers.map((w) => String(w.pid))).toContain(row.runner_node.split(':')[1]);
  });

  it('a file made through node A is served to a reader of node B (S3)', async () => {
    const image = (await apiA('GET', '/v1/models?modality=image', { key: org.live })).body.data[0].slug as string;
    const made = await apiA('POST', '/v1/images', { key: org.live, body: { model: image, prompt: `file ${randomBytes(3).toString('hex')}`, width: 256, height: 256 } });
    expect(made.status).toBe(200);
    const read = await apiB('GET', `/v1/generations/${made.body.id}`, { key: org.live });
    const file = await fetch(read.body.outputs[0].url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(100);
  });
});
