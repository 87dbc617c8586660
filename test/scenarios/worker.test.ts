import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Real processes, each opening a database: slow under a loaded machine, so generous limits.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });
import { PGliteDb } from '../../src/store/db.js';
import { getWallet, ledgerSums } from '../../src/billing/credits.js';
import { client, startTestServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
const BIN = join(process.cwd(), 'bin', 'mmgen');
const FAST = { MMGEN_JOB_LEASE_MS: '1500', MMGEN_WORKER_POLL_MS: '50', MMGEN_SIMULATE_PROVIDERS: '1', LOG_LEVEL: 'info' };

function spawnMmgen(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ proc: ChildProcess; out: () => string; exited: Promise<number | null> }> {
  const proc = spawn(BIN, args, { env: { ...process.env, ...env } });
  let out = '';
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready: ${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve({ proc, out: () => out, exited });
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

async function waitStatus(api: ReturnType<typeof client>, key: string, id: string, want: (s: string) => boolean, timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api('GET', `/v1/generations/${id}`, { key });
    if (res.status === 200 && want(res.body.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`timed out; last: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a worker killed with -9 mid-job loses nothing', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mmgen-kill9-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('after restart the job finishes: one upstream submission, one charge, wallet = ledger', async () => {
    const env = { ...FAST, MMGEN_DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1' };
    const first = await spawnMmgen(['serve'], env, /"url":"http[^"]+"/);
    const url = /"url":"(http[^"]+)"/.exec(first.out())![1]!;
    const created = await run(BIN, ['org', 'create', '--name', 'k9', '--plan', 'pro', '--credits', '100000', '--json'], { env: { ...process.env, MMGEN_DATA_DIR: dir, LOG_LEVEL: 'silent' } });
    const { organization, keys } = JSON.parse(created.stdout) as { organization: { id: string }; keys: { live: string } };
    let api = client(url);
    const music = (await api('GET', '/v1/models?modality=music', { key: keys.live })).body.data[0].slug as string;
    const res = await api('POST', '/v1/music', { key: keys.live, body: { model: music, prompt: 'survive', duration_s: 5, simulate: { delay_ms: 2500 } } });
    expect(res.status).toBe(202);
    await waitStatus(api, keys.live, res.body.id, (st) => st === 'running');
    await new Promise((r) => setTimeout(r, 300)); // the upstream id is recorded right after the submission
    first.proc.kill('SIGKILL');
    await first.exited;

    const second = await spawnMmgen(['serve'], env, /"url":"http[^"]+"/);
    api = client(/"url":"(http[^"]+)"/.exec(second.out())![1]!);
    const done = await waitStatus(api, keys.live, res.body.id, (st) => ['succeeded', 'failed', 'canceled'].includes(st));
    expect(done.status).toBe('succeeded');
    expect(done.reserved_credits).toBe(done.charged_credits + done.refunded_credits);
    second.proc.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    // Inspect the database once no server holds it.
    const db = new PGliteDb(await PGlite.create(join(dir, 'pgdata')));
    try {
      const subs = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM simulator_jobs WHERE client_ref LIKE $1', [`${res.body.id}#%`]);
      expect(subs.rows[0]!.n).toBe(1);
      const charges = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM ledger_entries WHERE generation_id = $1 AND kind = 'charge'", [res.body.id]);
      expect(charges.rows[0]!.n).toBe(1);
      const wallet = await getWallet(db, organization.id);
      expect(await ledgerSums(db, organization.id)).toEqual({ balance_credits: wallet.balance_credits, held_credits: wallet.held_credits });
      expect(wallet.held_credits).toBe(0);
      expect(wallet.balance_credits).toBe(100000 - done.charged_credits);
      const jobs = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs');
      expect(jobs.rows[0]!.n).toBe(0);
    } finally {
      await db.close();
    }
  });
});

describe('two worker processes on one PostgreSQL', { tags: ['postgres'] }, () => {
  let s: TestServer;
  let workers: Array<Awaited<ReturnType<typeof spawnMmgen>>> = [];
  let url: string;

  beforeAll(async () => {
    // The API node runs no worker: the two worker processes do all the work.
    s = await startTestServer('postgres', { MMGEN_SIMULATE_PROVIDERS: '1' }, { worker: false });
    url = s.dbUrl!;
    const env = { ...FAST, DATABASE_URL: url };
    workers = await Promise.all([1, 2].map(() => spawnMmgen(['worker'], env, /mmgen worker started/)));
  });
  afterAll(async () => {
    for (const w of workers) w.proc.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
    await s?.close();
  });

  it('share the work with no job processed twice', async () => {
    const api = client(s.url);
    const org = await s.createOrg({ credits: 10_000_000 });
    const music = (await api('GET', '/v1/models?modality=music', { key: org.live })).body.data[0].slug as string;
    const ids = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const res = await api('POST', '/v1/music', { key: org.live, body: { model: music, prompt: `job ${i}`, duration_s: 5, simulate: { delay_ms: 100 } } });
        expect(res.status).toBe(202);
        return res.body.id as string;
      }),
    );
    for (const id of ids) await waitStatus(api, org.live, id, (st) => st === 'succeeded');
    const subs = await s.db.query<{ n: number; refs: number }>(
      'SELECT count(*)::int AS n, count(DISTINCT client_ref)::int AS refs FROM simulator_jobs WHERE client_ref = ANY($1)',
      [ids.map((id) => `${id}#1`)],
    );
    expect(subs.rows[0]).toEqual({ n: 60, refs: 60 });
    const charges = await s.db.query<{ generation_id: string; n: number }>(
      "SELECT generation_id, count(*)::int AS n FROM ledger_entries WHERE kind = 'charge' AND generation_id = ANY($1) GROUP BY generation_id",
      [ids],
    );
    expect(charges.rows).toHaveLength(60);
    expect(charges.rows.every((r) => r.n === 1)).toBe(true);
    const nodes = await s.db.query<{ runner_node: string; n: number }>('SELECT runner_node, count(*)::int AS n FROM generations WHERE id = ANY($1) GROUP BY runner_node', [ids]);
    expect(nodes.rows.length).toBe(2);
    const wallet = await getWallet(s.db, org.id);
    expect(await ledgerSums(s.db, org.id)).toEqual({ balance_credits: wallet.balance_credits, held_credits: wallet.held_credits });
    expect(wallet.held_credits).toBe(0);
  });
});
