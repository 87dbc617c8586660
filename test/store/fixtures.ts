import { afterAll, beforeAll } from 'vitest';
import type { Plan } from '../../src/domain/access.js';
import { operatorOrigin } from '../../src/domain/audit.js';
import { createOrganization } from '../../src/domain/organizations.js';
import { newId } from '../../src/ids.js';
import { reserveAndAccept, type Acceptance, type AcceptOutcome } from '../../src/store/accepting.js';
import type { Db, Queryable } from '../../src/store/db.js';
import { freshDb, type BackendName } from '../helpers/server.js';

/**
 * What the store contract suite builds its cases on: a fresh database of the backend per file, and organizations and
 * generations made the way mmgen makes them (the domain's createOrganization, the store's accepting statement).
 */

/** A fresh migrated database for the enclosing describe, dropped after it; read `.db` (and `.url` on PostgreSQL) inside the tests. */
export function useDb(backend: BackendName): { readonly db: Db; readonly url: string | undefined } {
  const holder: { db?: Db; url?: string | undefined; drop?: () => Promise<void> } = {};
  beforeAll(async () => {
    const made = await freshDb(backend);
    holder.db = made.db;
    holder.url = made.url;
    holder.drop = async () => {
      await made.db.close();
      await made.drop();
    };
  });
  afterAll(async () => {
    await holder.drop?.();
  });
  return {
    get db(): Db {
      if (!holder.db) throw new Error('the database is made in beforeAll');
      return holder.db;
    },
    get url(): string | undefined {
      return holder.url;
    },
  };
}

export interface Org {
  id: string;
  /** organizations.seq */
  seq: number;
  /** The owner member (users.id). */
  ownerId: string;
  liveKeyId: string;
  testKeyId: string;
}

/** An organization with its owner, wallet (`credits` in it) and owner keys, as createOrganization makes it. */
export async function makeOrg(db: Db, opts: { credits?: number; plan?: Plan; name?: string } = {}): Promise<Org> {
  const created = await createOrganization(
    db,
    { name: opts.name ?? 'store contract', plan: opts.plan ?? 'team', enterprise: false, credits: opts.credits ?? 0 },
    operatorOrigin('store-contract'),
  );
  const id = created.organization.id;
  const keys = await db.query<{ id: string; mode: string }>('SELECT id, mode FROM api_keys WHERE organization_id = $1', [id]);
  const seq = await db.query<{ seq: number }>('SELECT seq FROM organizations WHERE id = $1', [id]);
  return {
    id,
    seq: seq.rows[0]!.seq,
    ownerId: created.user.id,
    liveKeyId: keys.rows.find((k) => k.mode === 'live')!.id,
    testKeyId: keys.rows.find((k) => k.mode === 'test')!.id,
  };
}

/** An acceptance of a queued, free image generation of `org` in live mode; `over` changes any of it. */
export function acceptance(org: Org, over: Partial<Acceptance> = {}): Acceptance {
  return {
    id: newId('gen'), organizationId: org.id, apiKeyId: org.liveKeyId, mode: 'live', modality: 'image', model: 'test-image',
    sync: false, prompt: 'a lighthouse', paramsJson: JSON.stringify({ prompt: 'a lighthouse', size: '1024x1024' }), price: 0,
    priceVersion: 'pv1', cacheKey: null, provider: 'simulator', resultJson: null, comparisonId: null, nodeId: 'node-a',
    leaseSeconds: 60, ...over,
  };
}

/** Accepts a generation through the store's accepting statement; fails the test unless it was written. */
export async function accept(q: Queryable, org: Org, over: Partial<Acceptance> = {}): Promise<Acceptance & { createdAt: Date }> {
  const a = acceptance(org, over);
  const outcome: AcceptOutcome = await reserveAndAccept(q, a);
  if (!outcome.written) throw new Error(`not accepted: ${outcome.reason}`);
  return { ...a, createdAt: outcome.createdAt };
}

/** One row of a table, by a column's value (the tests' window on what the store left behind). */
export async function row<T = Record<string, unknown>>(q: Queryable, table: string, where: string, params: unknown[]): Promise<T | undefined> {
  return (await q.query<T>(`SELECT * FROM ${table} WHERE ${where}`, params)).rows[0];
}

/** How many rows of a table match. */
export async function count(q: Queryable, table: string, where = 'true', params: unknown[] = []): Promise<number> {
  const r = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, params);
  return r.rows[0]!.n;
}

/** A promise with its resolver, for ordering two transactions' steps without sleeping. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * Waits until some session of this PostgreSQL database waits on a lock (pg_stat_activity), i.e. a concurrent
 * statement has reached the lock another transaction holds. Polls the database; no fixed delay.
 */
export async function untilSomeoneWaitsOnALock(db: Db, matching: string): Promise<void> {
  for (;;) {
    const r = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1`,
      [`%${matching}%`],
    );
    if (r.rows[0]!.n > 0) return;
    await new Promise((r) => setImmediate(r));
  }
}
