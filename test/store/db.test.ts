import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  advisoryXactLock,
  errorCode,
  inTransaction,
  isDatabaseUnavailable,
  openDb,
  PGliteDb,
  ping,
  PostgresDb,
  type Db,
} from '../../src/store/db.js';
import { acquireDataDirLock, DataDirLockedError, lockHolder, lockPath } from '../../src/store/lock.js';
import { loadMigrations, migrate, splitSql } from '../../src/store/migrate.js';
import { withDatabase } from '../helpers/global-setup.js';
import { PGLITE_TEMPLATE } from '../helpers/paths.js';
import { describeEachBackend } from '../helpers/server.js';
import { count, deferred, untilSomeoneWaitsOnALock, useDb } from './fixtures.js';

/**
 * The database port itself (db.ts) and the schema's migrations (migrate.ts) on each backend: one dialect over two
 * engines, so a value, a transaction and an error read the same on both. Then the embedded engine's data directory
 * lock (lock.ts), which no backend changes.
 */
describeEachBackend('store: the database port', (backend) => {
  const t = useDb(backend);

  it('values come back as the port promises: int8 a number, numeric a string, timestamptz a Date, jsonb and arrays parsed', async () => {
    const r = await t.db.query<{ i: number; n: string; at: Date; j: unknown; a: string[]; nothing: null }>(
      `SELECT 9007199254740::bigint AS i, 12.50::numeric(14, 2) AS n, '2030-01-02T03:04:05Z'::timestamptz AS at,
              '{"x": [1, "y"]}'::jsonb AS j, ARRAY['p', 'q'] AS a, NULL AS nothing`,
    );
    expect(r.rows).toEqual([{ i: 9007199254740, n: '12.50', at: new Date('2030-01-02T03:04:05Z'), j: { x: [1, 'y'] }, a: ['p', 'q'], nothing: null }]);
    expect(r.rowCount).toBe(1);
  });

  it('rowCount is the rows a write touched, or the rows a read returned', async () => {
    await t.db.exec(`CREATE TABLE port_rows (k int PRIMARY KEY, v text); INSERT INTO port_rows VALUES (1, 'a'), (2, 'b'), (3, 'c');`);
    expect((await t.db.query('UPDATE port_rows SET v = $1 WHERE k >= $2', ['z', 2])).rowCount).toBe(2);
    expect((await t.db.query('DELETE FROM port_rows WHERE k = $1', [9])).rowCount).toBe(0);
    expect((await t.db.query('SELECT * FROM port_rows')).rowCount).toBe(3);
    expect((await t.db.query('INSERT INTO port_rows VALUES ($1, $2) RETURNING k', [4, 'd'])).rows).toEqual([{ k: 4 }]);
  });

  it('a transaction commits what it did, or nothing when it throws; inTransaction joins a transaction it is given', async () => {
    await t.db.exec('CREATE TABLE port_tx (k int PRIMARY KEY)');
    expect(await t.db.tx(async (q) => (await q.query('INSERT INTO port_tx VALUES (1) RETURNING k')).rowCount)).toBe(1);
    const err = await t.db.tx(async (q) => {
      await q.query('INSERT INTO port_tx VALUES (2)');
      throw new Error('changed my mind');
    }).catch((e: unknown) => e);
    expect(String(err)).toMatch(/changed my mind/);
    expect(await count(t.db, 'port_tx')).toBe(1);
    // Given the Db, inTransaction opens a transaction; given a transaction, it runs inside it (and goes with its rollback).
    await inTransaction(t.db, (q) => q.query('INSERT INTO port_tx VALUES (3)'));
    await t.db.tx(async (q) => {
      await inTransaction(q, (inner) => inner.query('INSERT INTO port_tx VALUES (4)'));
      throw new Error('undo');
    }).catch(() => undefined);
    expect((await t.db.query<{ k: number }>('SELECT k FROM port_tx ORDER BY k')).rows.map((r) => r.k)).toEqual([1, 3]);
  });

  it("a database error keeps its SQLSTATE, and is not taken for the database's absence", async () => {
    const err = await t.db.query('SELECT 1/0').catch((e: unknown) => e);
    expect(errorCode(err)).toBe('22012');
    expect(isDatabaseUnavailable(err)).toBe(false);
    const raised = await t.db.query(`SELECT mmgen_require(false, 'no credits')`).catch((e: unknown) => e);
    expect(errorCode(raised)).toBe('MM402');
    await ping(t.db);
  });

  it('an advisory lock serializes the transactions that take it', async () => {
    await t.db.tx((q) => advisoryXactLock(q, 424_242));
    if (backend !== 'postgres') return;
    const held = deferred();
    const release = deferred();
    const order: string[] = [];
    const first = t.db.tx(async (q) => {
      await advisoryXactLock(q, 424_243);
      held.resolve();
      await release.promise;
      order.push('first');
    });
    await held.promise;
    const second = t.db.tx(async (q) => {
      await advisoryXactLock(q, 424_243);
      order.push('second');
    });
    await untilSomeoneWaitsOnALock(t.db, 'pg_advisory_xact_lock');
    release.resolve();
    await Promise.all([first, second]);
    expect(order).toEqual(['first', 'second']);
  });

  it('migrating a database that has every migration applies none', async () => {
    expect(await migrate(t.db)).toEqual([]);
    const applied = (await t.db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).rows.map((r) => r.version);
    expect(applied).toEqual(loadMigrations().map((m) => m.version));
  });

  it.runIf(backend === 'postgres')('PostgreSQL: of two transactions that deadlock, the one aborted is run again, and both take effect', async () => {
    await t.db.exec(`CREATE TABLE port_dl (k text PRIMARY KEY, v text NOT NULL); INSERT INTO port_dl VALUES ('a', ''), ('b', '');`);
    const attempts = { x: 0, y: 0 };
    const locked = { x: deferred(), y: deferred() };
    // x takes a then b; y takes b then a. Each waits, on its first attempt only, until the other holds its first row.
    const run = (me: 'x' | 'y', firstRow: string, secondRow: string, other: 'x' | 'y') =>
      t.db.tx(async (q) => {
        attempts[me]++;
        await q.query('UPDATE port_dl SET v = v || $2 WHERE k = $1', [firstRow, me]);
        if (attempts[me] === 1) {
          locked[me].resolve();
          await locked[other].promise;
        }
        await q.query('UPDATE port_dl SET v = v || $2 WHERE k = $1', [secondRow, me]);
      });
    await Promise.all([run('x', 'a', 'b', 'y'), run('y', 'b', 'a', 'x')]);
    // At least one was aborted and run again (under load a retry can meet the other again); each took effect once.
    expect(attempts.x + attempts.y).toBeGreaterThanOrEqual(3);
    const rows = (await t.db.query<{ k: string; v: string }>('SELECT k, v FROM port_dl ORDER BY k')).rows;
    expect(rows.map((r) => [...r.v].sort().join(''))).toEqual(['xy', 'xy']);
  });

  it.runIf(backend === 'postgres')('PostgreSQL: a transaction whose connection dies fails as the database gone away, and the pool serves on', async () => {
    const err = await t.db.tx((q) => q.query('SELECT pg_terminate_backend(pg_backend_pid())')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(err)).toBe(true);
    await ping(t.db);
    expect((await t.db.tx((q) => q.query<{ one: number }>('SELECT 1 AS one'))).rows).toEqual([{ one: 1 }]);
  });

  it.runIf(backend === 'postgres')('PostgreSQL: a server nobody answers at is the database unavailable', async () => {
    const db = new PostgresDb('postgres://postgres@127.0.0.1:1/none', { max: 1 });
    try {
      const err = await db.query('SELECT 1').catch((e: unknown) => e);
      expect(errorCode(err)).toBe('ECONNREFUSED');
      expect(isDatabaseUnavailable(err)).toBe(true);
    } finally {
      await db.close();
    }
  });

  it.runIf(backend === 'postgres')('PostgreSQL: openDb with a URL opens a pool; an empty database is migrated whole, once', async () => {
    const adminUrl = inject('pgAdminUrl')!;
    const name = `${inject('pgTemplate')!.replace('mmgen_tpl_', 'mmgen_t_')}_mig${Math.random().toString(36).slice(2, 8)}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const db = await openDb({ databaseUrl: withDatabase(adminUrl, name), poolSize: 2 });
    try {
      expect(db.kind).toBe('postgres');
      expect(await migrate(db)).toEqual(loadMigrations().map((m) => m.version));
      expect(await migrate(db)).toEqual([]);
    } finally {
      await db.close();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  }, 120_000);

  // From a dump, never afresh: a new embedded database runs initdb, some 20 s on this machine.
  const dump = () => new Blob([readFileSync(PGLITE_TEMPLATE)]);

  it.runIf(backend === 'pglite')('PGlite: a database loaded from a dump has what it had; emptied, it migrates whole, once', async () => {
    const db: Db = await PGliteDb.open(undefined, dump());
    try {
      expect(await migrate(db)).toEqual([]);
      await db.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public;');
      expect(await migrate(db)).toEqual(loadMigrations().map((m) => m.version));
      expect(await migrate(db)).toEqual([]);
    } finally {
      await db.close();
    }
  }, 120_000);

  it.runIf(backend === 'pglite')('PGlite: a database opened in a data directory makes the directory, and keeps what it was given', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mmgen-port-'));
    const dir = join(root, 'nested', 'data');
    try {
      const db: Db = await PGliteDb.open(dir, dump());
      expect(existsSync(dir)).toBe(true);
      await db.exec('CREATE TABLE kept (v text); INSERT INTO kept VALUES (1);');
      await db.close();
      const again = await openDb({ dataDir: dir });
      expect(again.kind).toBe('pglite');
      expect((await again.query('SELECT v FROM kept')).rows).toEqual([{ v: '1' }]);
      await again.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('store: migrations split into statements', () => {
  it('splits on semicolons outside comments, quotes and $$ bodies', () => {
    const sql = `-- a comment; with a semicolon
CREATE TABLE a (v text DEFAULT 'it''s; fine');
CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END; $$;

  ;
INSERT INTO a VALUES ('x') -- trailing comment without a newline`;
    expect(splitSql(sql)).toEqual([
      `CREATE TABLE a (v text DEFAULT 'it''s; fine')`,
      'CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END; $$',
      `INSERT INTO a VALUES ('x')`,
    ]);
  });

  it('refuses an unterminated $$ body', () => {
    expect(() => splitSql('CREATE FUNCTION f() AS $$ BEGIN')).toThrow(/unterminated/);
  });
});

describe("store: the embedded engine's data directory lock", () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const dataDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'mmgen-lock-'));
    dirs.push(d);
    return d;
  };
  /** A pid that is certainly not running: a process that has exited. */
  const deadPid = () => Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).toString());

  it('is taken with the pid in it, released once, and a release after someone else took it leaves theirs', () => {
    const dir = dataDir();
    expect(lockHolder(dir)).toBeNull();
    const release = acquireDataDirLock(dir);
    expect(readFileSync(lockPath(dir), 'utf8')).toBe(String(process.pid));
    // Its own lock is nobody else's.
    expect(lockHolder(dir)).toBeNull();
    release();
    expect(existsSync(lockPath(dir))).toBe(false);
    release();
    const again = acquireDataDirLock(dir);
    writeFileSync(lockPath(dir), String(process.ppid));
    again();
    expect(readFileSync(lockPath(dir), 'utf8')).toBe(String(process.ppid));
  });

  it("refuses a lock a live process holds, naming it", () => {
    const dir = dataDir();
    writeFileSync(lockPath(dir), String(process.ppid));
    expect(lockHolder(dir)).toBe(process.ppid);
    let err: unknown;
    try {
      acquireDataDirLock(dir);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DataDirLockedError);
    expect(err).toMatchObject({ pid: process.ppid, dataDir: dir });
  });

  it('takes over a lock whose process is gone, or that holds no pid', () => {
    for (const content of [String(deadPid()), 'not a pid']) {
      const dir = dataDir();
      writeFileSync(lockPath(dir), content);
      expect(lockHolder(dir)).toBeNull();
      const release = acquireDataDirLock(dir);
      expect(readFileSync(lockPath(dir), 'utf8')).toBe(String(process.pid));
      release();
    }
  });

  it('waits out a takeover under way, clears one left behind by a dead taker, and gives up on one that never ends', () => {
    const dir = dataDir();
    writeFileSync(lockPath(dir), String(deadPid()));
    const takeover = `${lockPath(dir)}.takeover`;
    writeFileSync(takeover, '1');
    const old = new Date(Date.now() - 60_000);
    utimesSync(takeover, old, old);
    const release = acquireDataDirLock(dir);
    expect(existsSync(takeover)).toBe(false);
    release();
    writeFileSync(lockPath(dir), String(deadPid()));
    writeFileSync(takeover, '1');
    expect(() => acquireDataDirLock(dir)).toThrow(/could not lock/);
  });

  it('fails at once when the directory cannot hold a lock', () => {
    const dir = join(dataDir(), 'missing');
    expect(() => acquireDataDirLock(dir)).toThrow(/ENOENT/);
    mkdirSync(dir);
    acquireDataDirLock(dir)();
  });
});
