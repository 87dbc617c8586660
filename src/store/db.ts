import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

/**
 * One SQL dialect (PostgreSQL) over two engines: PGlite embedded in the
 * process, or a PostgreSQL server through `pg`. Both return int8 as a JS
 * number (credits stay far below 2^53), numeric as a string, timestamptz as a
 * Date, arrays and jsonb parsed.
 */
export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>>;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs fn in one transaction (READ COMMITTED); retried on deadlock or serialization failure. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** Several statements in one string (migrations). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

const RETRYABLE_SQLSTATE = new Set(['40001', '40P01']);
const MAX_TX_ATTEMPTS = 5;

/** The error's `code`: a SQLSTATE from the database, or a Node.js system error code from the connection. */
export function errorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

function isRetryable(err: unknown): boolean {
  return RETRYABLE_SQLSTATE.has(errorCode(err) ?? '');
}

/** A transaction's client's error event: the error reaches the transaction through its failing query. */
function ignoreClientError(): void {}

/**
 * The database cannot be reached or is going away (a restart, a failover, a
 * full connection table): the request may succeed if sent again, so callers
 * answer 503 rather than 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = errorCode(err);
  if (code !== undefined) {
    // SQLSTATE class 08 (connection exception), 57P01-03 (shutdown, crash, not yet accepting), 53300 (too many connections).
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300') return true;
    if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'ETIMEDOUT' || code === 'EPIPE' || code === 'ENOTFOUND') return true;
  }
  const message = (err as { message?: unknown }).message;
  return typeof message === 'string' && /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(message);
}

/**
 * Statements are prepared once per connection under a name derived from their
 * text, so PostgreSQL plans each of mmgen's few fixed statements once rather
 * than on every call.
 */
const statementNames = new Map<string, string>();
function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (!name) {
    name = `mm_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    if (statementNames.size < 10_000) statementNames.set(sql, name);
  }
  return name;
}

// int8 as number; the default (string) would make every credit column a string.
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));

export class PostgresDb implements Db {
  readonly kind = 'postgres' as const;
  readonly pool: pg.Pool;

  constructor(connectionString: string, opts: { max?: number } = {}) {
    // A database that accepts no connection fails requests within seconds instead of queueing them forever.
    this.pool = new pg.Pool({ connectionString, max: opts.max ?? 20, connectionTimeoutMillis: 5_000 });
    // An idle client losing its connection (server restart) must not crash the process.
    this.pool.on('error', () => {});
  }

  async query<T>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<T>> {
    const r = await this.pool.query({ name: statementName(sql), text: sql, values: params as unknown[] });
    return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
  }

  async exec(sql: string): Promise<void> {
    await this.pool.query(sql);
  }

  async tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.pool.connect();
      // The pool listens for a client's errors only while it is idle: a connection that dies under a transaction (a
      // restart, a failover, a terminated backend) would emit an 'error' nobody hears, an uncaught exception that stops
      // the process. Its queries fail on their own, and the catch below drops it.
      client.on('error', ignoreClientError);
      let released = false;
      try {
        await client.query('BEGIN');
        const q: Queryable = {
          query: async <R>(sql: string, params: readonly unknown[] = []) => {
            const r = await client.query({ name: statementName(sql), text: sql, values: params as unknown[] });
            return { rows: r.rows as R[], rowCount: r.rowCount ?? 0 };
          },
        };
        const result = await fn(q);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        try {
          await client.query('ROLLBACK');
        } catch {
          // The connection is broken; drop it from the pool instead of reusing it.
          client.release(true);
          released = true;
        }
        if (isRetryable(err) && attempt < MAX_TX_ATTEMPTS) continue;
        throw err;
      } finally {
        client.removeListener('error', ignoreClientError);
        if (!released) client.release();
      }
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

export class PGliteDb implements Db {
  readonly kind = 'pglite' as const;
  constructor(readonly pglite: PGlite) {}

  static async open(dataDir: string | undefined, loadDataDir?: Blob): Promise<PGliteDb> {
    if (dataDir) mkdirSync(dataDir, { recursive: true });
    const pglite = await PGlite.create(dataDir ?? 'memory://', loadDataDir ? { loadDataDir } : {});
    return new PGliteDb(pglite);
  }

  async query<T>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<T>> {
    const r = await this.pglite.query<T>(sql, params as unknown[]);
    return { rows: r.rows, rowCount: Math.max(r.affectedRows ?? 0, r.rows.length) };
  }

  async exec(sql: string): Promise<void> {
    await this.pglite.exec(sql);
  }

  async tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    // PGlite runs one transaction at a time, so there are no deadlocks to retry.
    return this.pglite.transaction(async (t) =>
      fn({
        query: async <R>(sql: string, params: readonly unknown[] = []) => {
          const r = await t.query<R>(sql, params as unknown[]);
          return { rows: r.rows, rowCount: Math.max(r.affectedRows ?? 0, r.rows.length) };
        },
      }),
    );
  }

  async close(): Promise<void> {
    await this.pglite.close();
  }
}

export async function openDb(opts: { databaseUrl?: string | undefined; dataDir?: string | undefined; poolSize?: number }): Promise<Db> {
  if (opts.databaseUrl) return new PostgresDb(opts.databaseUrl, { max: opts.poolSize });
  return PGliteDb.open(opts.dataDir);
}

/** Holds a transaction-scoped advisory lock: the same key in every process serializes what runs under it. */
export async function advisoryXactLock(q: Queryable, key: number): Promise<void> {
  await q.query('SELECT pg_advisory_xact_lock($1)', [key]);
}

/** The cheapest round trip that proves the database answers (readiness). */
export async function ping(q: Queryable): Promise<void> {
  await q.query('SELECT 1');
}

/** Runs fn in the caller's transaction when `q` is one, else in a new transaction of the Db `q`. */
export async function inTransaction<T>(q: Queryable, fn: (t: Queryable) => Promise<T>): Promise<T> {
  return typeof (q as Partial<Db>).tx === 'function' ? (q as Db).tx(fn) : fn(q);
}
