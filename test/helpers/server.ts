import { operatorOrigin } from '../../src/domain/audit.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { pino, type Logger } from 'pino';
import { describe, inject } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import type { Clock } from '../../src/clock.js';
import type { Plan } from '../../src/domain/access.js';
import { createOrganization } from '../../src/domain/organizations.js';
import { runtimeOn, startServer, type Runtime } from '../../src/main.js';
import { PGliteDb, PostgresDb, type Db } from '../../src/store/db.js';
import { withDatabase } from './global-setup.js';
import { PGLITE_TEMPLATE } from './paths.js';
import { TEST_CATALOG_DATE } from './catalog.js';

export type BackendName = 'pglite' | 'postgres';

export { TEST_CATALOG_DATE } from './catalog.js';

/**
 * The backends a suite may run on: PGlite, and PostgreSQL, whose suites are tagged with their need (skipped, and
 * counted as skipped, without TEST_DATABASE_URL). MMGEN_TEST_BACKENDS (a comma list, e.g. `postgres`) keeps only those
 * named, so each backend can be run, and measured, on its own.
 */
export function backends(): BackendName[] {
  const all: BackendName[] = ['pglite', 'postgres'];
  const named = (process.env.MMGEN_TEST_BACKENDS ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (named.length === 0) return all;
  // A name that is wrong or not available here fails the run: silently testing nothing would pass it.
  const missing = named.filter((n) => n !== 'pglite' && (n !== 'postgres' || !hasPostgres()));
  if (missing.length > 0) throw new Error(`MMGEN_TEST_BACKENDS names ${missing.join(', ')}; this run has ${hasPostgres() ? 'pglite, postgres' : 'pglite'} (postgres needs TEST_DATABASE_URL)`);
  return all.filter((b) => named.includes(b));
}

/** Whether this run has PostgreSQL (TEST_DATABASE_URL, and its template made by the global setup). */
function hasPostgres(): boolean {
  return Boolean(inject('pgTemplate'));
}

/** The options of a suite on one backend: PostgreSQL's is tagged with its need. */
export function backendOptions(backend: BackendName): { tags: string[] } {
  return { tags: backend === 'postgres' ? ['postgres'] : [] };
}

/**
 * Runs the same suite once per backend: for what differs between them (test/store/, the store's contract; readiness;
 * early dispatch, which PGlite's single connection does not do).
 */
export function describeEachBackend(name: string, fn: (backend: BackendName) => void): void {
  for (const backend of backends()) describe(`${name} [${backend}]`, backendOptions(backend), () => fn(backend));
}

/**
 * A behaviour test above the store, run once. On PostgreSQL when this run has it and the file asks for it (its subject
 * is money, concurrency, locks or several connections: PGlite serialises every statement on one connection, so a race
 * there cannot happen), otherwise on PGlite, which every machine has. The store's own behaviour runs on both backends
 * in test/store/; running every behaviour twice cost about 1,500 executions a run (issue 43).
 */
export function describeOnBackend(name: string, prefer: BackendName, fn: (backend: BackendName) => void): void {
  const backend: BackendName = prefer === 'postgres' && hasPostgres() && backends().includes('postgres') ? 'postgres' : 'pglite';
  describe(`${name} [${backend}]`, () => fn(backend));
}

/** A fresh, migrated database of its own for one test file or suite. */
export async function freshDb(backend: BackendName): Promise<{ db: Db; drop: () => Promise<void>; url?: string }> {
  if (backend === 'pglite') {
    const blob = new Blob([readFileSync(PGLITE_TEMPLATE)]);
    const db = new PGliteDb(await PGlite.create({ loadDataDir: blob }));
    return { db, drop: async () => {} };
  }
  const adminUrl = inject('pgAdminUrl')!;
  const template = inject('pgTemplate')!;
  const name = `${template.replace('mmgen_tpl_', 'mmgen_t_')}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
      break;
    } catch (err) {
      // Two files cloning the template at the same instant: one waits and tries again.
      if (attempt >= 20 || !/being accessed by other users/.test(String(err))) throw err;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    }
  }
  await admin.end();
  const url = withDatabase(adminUrl, name);
  const db = new PostgresDb(url);
  return {
    db,
    url,
    drop: async () => {
      const a = new pg.Client({ connectionString: adminUrl });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

export interface TestOrg {
  id: string;
  live: string;
  test: string;
  userId: string;
}

export interface TestServer {
  url: string;
  runtime: Runtime;
  db: Db;
  /** The PostgreSQL URL of `db` (undefined on PGlite). */
  dbUrl?: string | undefined;
  config: Config;
  /** A new organization with owner keys and `credits` in its wallet. */
  createOrg(opts?: { plan?: Plan; enterprise?: boolean; credits?: number; name?: string }): Promise<TestOrg>;
  close(): Promise<void>;
}

/**
 * A real mmgen HTTP server on a loopback port, on a fresh database of the given
 * backend, or with `sameDbAs` on another test server's database (a second node
 * of one installation: on PostgreSQL through its own connection pool). Close
 * such a server before the one whose database it borrows. `log` makes the
 * server's logger (default: pino at TEST_LOG_LEVEL, silent).
 */
export async function startTestServer(
  backend: BackendName,
  env: Record<string, string> = {},
  opts: { worker?: boolean; sameDbAs?: TestServer; log?: (config: Config) => Logger; clock?: Clock; publicHost?: string } = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mmgen-test-'));
  // The port is chosen first so that signed URLs can name it.
  const port = await freePort();
  const config = loadConfig({
    MMGEN_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    PORT: String(port),
    HOST: '127.0.0.1',
    // A browser takes `localhost` as a WebAuthn RP ID (a domain) and a secure context; an IP literal is neither an RP ID.
    MMGEN_PUBLIC_URL: `http://${opts.publicHost ?? '127.0.0.1'}:${port}`,
    MMGEN_CATALOG_DATE: TEST_CATALOG_DATE,
    // The local classifier costs ~15 ms of CPU an image and loads a model per thread: the suite's thousands of simulated
    // images would take longer. Off by default here; the moderation tests turn it on and judge real generated images with it.
    MMGEN_MODERATION_LOCAL: 'off',
    ...env,
  });
  const { db, drop, url: dbUrl } = opts.sameDbAs ? borrowDb(opts.sameDbAs) : await freshDb(backend);
  const runtime = await runtimeOn(config, db, opts.log ? opts.log(config) : pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }), undefined, opts.clock);
  // A test that brings its own clock moves it (days ahead, at times) and runs retention itself when it means to: the
  // loop's own first run, 5 s after start, would otherwise land between two of its steps with the moved clock.
  if (opts.clock) await runtime.retention.stop();
  const server = await startServer(runtime, { port, host: '127.0.0.1', worker: opts.worker });
  return {
    url: server.url,
    runtime,
    db,
    dbUrl,
    config,
    async createOrg(opts = {}) {
      const created = await createOrganization(db, {
        name: opts.name ?? 'test org',
        plan: opts.plan ?? 'team',
        enterprise: opts.enterprise ?? false,
        credits: opts.credits ?? 0,
      }, operatorOrigin('test'));
      return { id: created.organization.id, live: created.keys.live, test: created.keys.test, userId: created.user.id };
    },
    async close() {
      await server.close();
      await runtime.close();
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Another server's database: a pool of its own on PostgreSQL; on PGlite (one connection per database) the same instance, left open for its owner to close. */
function borrowDb(owner: TestServer): { db: Db; drop: () => Promise<void>; url?: string } {
  const drop = async () => {};
  if (owner.dbUrl) return { db: new PostgresDb(owner.dbUrl), drop, url: owner.dbUrl };
  const shared = owner.db;
  const db: Db = {
    kind: shared.kind,
    query: (sql, params) => shared.query(sql, params),
    tx: (fn) => shared.tx(fn),
    exec: (sql) => shared.exec(sql),
    close: async () => {},
  };
  return { db, drop };
}

/**
 * A loopback port that is free now, for a server that must know its port
 * before it binds (its signed URLs name it). It is drawn below the kernel's
 * ephemeral range: a port from inside it (what listen(0) gives) can be taken
 * by any outgoing connection between this check and the server's bind, which
 * made CI fail with EADDRINUSE once. Ports that fetch() refuses to contact
 * (the Fetch standard's "bad ports"; 10080 is the one in this range) are skipped:
 * drawing it once failed a whole suite with "bad port".
 */
const FETCH_BAD_PORTS = new Set([10080]);

export async function freePort(): Promise<number> {
  const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0] ?? '32768');
  const low = 10_000;
  const high = Number.isFinite(ephemeralLow) && ephemeralLow > low + 1000 ? ephemeralLow : 32_768;
  for (;;) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (!FETCH_BAD_PORTS.has(port) && (await canListen(port))) return port;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** A small JSON client for tests: `api(url)(method, path, {key, body, headers})`. */
export function client(baseUrl: string) {
  return async function call<T = any>(
    method: string,
    path: string,
    opts: { key?: string | undefined; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key !== undefined) headers.authorization = `Bearer ${opts.key}`;
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON; keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed as T };
  };
}
