/**
 * Pieces shared by the benches (run.ts, scale.ts): real `bin/mmgen` processes
 * on loopback, autocannon load, and the databases' own write-transaction rate
 * so that mmgen's figures read as ratios on any machine.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { PGliteDb } from '../src/store/db.js';

const run = promisify(execFile);
export const BIN = join(process.cwd(), 'bin', 'mmgen');
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
export const ASYNC_JOBS = Number(process.env.BENCH_ASYNC_JOBS ?? 3000);
export const PG_ADMIN = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The key the zero-latency OpenAI fake (bench/upstream.ts) takes; mmgen is given it as OPENAI_API_KEY. */
export const UPSTREAM_KEY = 'sk-bench';

/** This checkout's zero-latency OpenAI fake (bench/upstream.ts) in a process of its own, on a free loopback port. */
export function startUpstream(): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', join('bench', 'upstream.ts')], { env: { ...process.env, UPSTREAM_KEY }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const port = /^(\d+)$/m.exec(out)?.[1];
      if (port) resolve({ proc, url: `http://127.0.0.1:${port}` });
    });
    proc.once('exit', (c) => reject(new Error(`upstream exited ${c}: ${out}`)));
  });
}

export interface HttpResult { rps: number; p50: number; p99: number; non2xx: number; errors: number; requests: number; /** Answers 2xx, in all (autocannon runs only). */ ok2xx?: number }

export function freePort(): number {
  return 20000 + Math.floor(Math.random() * 20000);
}

/** `mmgen serve [args]` on a loopback port; resolves once /healthz answers. */
export async function startServe(env: Record<string, string>, args: string[] = [], bin = BIN): Promise<{ proc: ChildProcess; url: string }> {
  const port = freePort();
  const proc = spawn(bin, ['serve', ...args], { env: { ...process.env, LOG_LEVEL: 'warn', PORT: String(port), HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { proc, url };
    } catch {
      // not yet listening
    }
    if (proc.exitCode !== null) throw new Error(`serve exited: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`serve did not start: ${out}`);
}

/** Portkey's open-source gateway (@portkey-ai/gateway), headless, on a free port: what bench:gateway compares with. */
export async function startPortkey(env: Record<string, string> = {}): Promise<{ proc: ChildProcess; url: string }> {
  const entry = join(dirname(createRequire(import.meta.url).resolve('@portkey-ai/gateway/package.json')), 'build', 'start-server.js');
  const port = freePort();
  const proc = spawn(process.execPath, [entry, `--port=${port}`, '--headless'], { env: { ...process.env, NODE_ENV: 'production', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let out = '';
  proc.stderr!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    try {
      await (await fetch(`${url}/`)).arrayBuffer();
      return { proc, url };
    } catch {
      // not yet listening
    }
    if (proc.exitCode !== null) throw new Error(`Portkey exited: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Portkey did not start: ${out}`);
}

/** `mmgen worker`; resolves once it says it started. */
export async function startWorkerProcess(env: Record<string, string>): Promise<ChildProcess> {
  const proc = spawn(BIN, ['worker'], { env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start: ${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('mmgen worker started')) {
        clearTimeout(timer);
        // Keep draining its output so the pipe never fills.
        proc.stdout!.removeListener('data', onData);
        proc.stdout!.resume();
        resolve(proc);
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    proc.once('exit', (code) => reject(new Error(`worker exited ${code}: ${out}`)));
  });
}

export async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await exited;
}

/** POSTs `body` from `connections` connections; with several keys, each connection takes them in turn. */
export async function cannon(url: string, path: string, key: string | string[], body: unknown, connections = CONNECTIONS, seconds = SECONDS): Promise<HttpResult> {
  const keys = Array.isArray(key) ? key : [key];
  const r = await autocannon({
    url,
    connections,
    duration: seconds,
    requests: keys.map((k) => ({ method: 'POST' as const, path, headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })),
  });
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    requests: r.requests.total,
    ok2xx: r['2xx'],
  };
}

/** Simple autocommit INSERTs from 8 concurrent clients: the database's own write-transaction rate. */
export async function rawPgRate(url: string, seconds = 3): Promise<number> {
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  await pool.query('CREATE TABLE IF NOT EXISTS bench_tx (id bigserial PRIMARY KEY, x int)');
  let n = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (Date.now() < end) {
      await pool.query('INSERT INTO bench_tx (x) VALUES ($1)', [n]);
      n++;
    }
  }));
  await pool.query('DROP TABLE bench_tx');
  await pool.end();
  return Math.round(n / seconds);
}

/**
 * pgbench's built-in TPC-B-like transaction (`pgbench -b tpcb-like`: three
 * UPDATEs, a SELECT and an INSERT) on this database, 8 clients, at scale 8 so
 * the clients do not all queue on one branch row. A standard, well-known
 * measure of what this PostgreSQL does on this machine, to divide
 * generations/s by. Its tables are made and dropped here; null without pgbench.
 */
/** Runs pgbench with these arguments; the transactions per second it reports. */
export async function pgbenchTps(args: string[]): Promise<number | null> {
  const { stdout } = await run('pgbench', args);
  const m = /tps = ([\d.]+)/.exec(stdout);
  return m ? Math.round(Number(m[1])) : null;
}

export async function pgbenchTpcbRate(url: string, seconds = 5): Promise<number | null> {
  try {
    await run('pgbench', ['-i', '-q', '-s', '8', url]);
    return await pgbenchTps(['-b', 'tpcb-like', '-c', '8', '-j', '2', '-T', String(seconds), url]);
  } catch {
    return null; // pgbench not installed
  } finally {
    await run('pgbench', ['-i', '-I', 'd', url]).catch(() => undefined);
  }
}

export async function rawPgliteRate(): Promise<number> {
  const db = await PGliteDb.open(undefined);
  await db.exec('CREATE TABLE bench_tx (id bigserial PRIMARY KEY, x int)');
  let n = 0;
  const end = Date.now() + 3000;
  while (Date.now() < end) {
    await db.query('INSERT INTO bench_tx (x) VALUES ($1)', [n]);
    n++;
  }
  await db.close();
  return Math.round(n / 3);
}

export async function createOrg(env: Record<string, string>, bin = BIN): Promise<{ id: string; live: string }> {
  const { stdout } = await run(bin, ['org', 'create', '--name', 'bench', '--plan', 'team', '--credits', '1000000000000', '--json'], { env: { ...process.env, LOG_LEVEL: 'silent', ...env } });
  const out = JSON.parse(stdout) as { organization: { id: string }; keys: { live: string } };
  return { id: out.organization.id, live: out.keys.live };
}

/** A new empty database on the bench's PostgreSQL (or `adminUrl`'s server); `drop` removes it. */
export async function scratchDatabase(prefix: string, adminUrl = PG_ADMIN): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const a = new pg.Client({ connectionString: adminUrl });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}
