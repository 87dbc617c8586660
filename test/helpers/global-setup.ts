import { mkdirSync, writeFileSync } from 'node:fs';

import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { PGliteDb, PostgresDb } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { ensureServerBuilt } from '../../scripts/build-server.mjs';
import { ARTIFACTS_DIR, PGLITE_TEMPLATE } from './paths.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgTemplate: string | null;
    pgAdminUrl: string | null;
  }
}

interface Prepared {
  template: string | null;
  adminUrl: string | null;
  teardown: () => Promise<void>;
}

/** Shared by every tier (vitest project) of one run: each runs this global setup, and the work is done once. */
const ONCE = Symbol.for('mmgen.test.globalSetup');
type Shared = { prepared: Promise<Prepared>; users: number };

/**
 * Once per run: the compiled server that bin/mmgen runs (scripts/build-server.mjs),
 * a migrated PGlite dumped to a file (each test file loads a copy in ~0.3 s instead
 * of creating one in seconds) and, when TEST_DATABASE_URL is set, a migrated
 * PostgreSQL template database that each test file clones.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const holder = globalThis as unknown as Record<symbol, Shared | undefined>;
  const shared = (holder[ONCE] ??= { prepared: prepare(), users: 0 });
  shared.users++;
  const { template, adminUrl } = await shared.prepared;
  project.provide('pgTemplate', template);
  project.provide('pgAdminUrl', adminUrl);
  return async () => {
    if (--shared.users > 0) return;
    holder[ONCE] = undefined;
    await (await shared.prepared).teardown();
  };
}

async function prepare(): Promise<Prepared> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  // The compiled server, once, before the files spawn bin/mmgen in parallel (after an edit each would build it).
  await ensureServerBuilt().catch((err: unknown) => console.warn(`the compiled server could not be built (bin/mmgen will run tsx): ${String(err)}`));
  const lite = await PGliteDb.open(undefined);
  await migrate(lite);
  const dump = await lite.pglite.dumpDataDir('none');
  writeFileSync(PGLITE_TEMPLATE, Buffer.from(await dump.arrayBuffer()));
  await lite.close();

  const adminUrl = process.env.TEST_DATABASE_URL || null;
  let template: string | null = null;
  if (adminUrl) {
    template = `mmgen_tpl_${process.pid}_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${template}`);
    await admin.end();
    const db = new PostgresDb(withDatabase(adminUrl, template), { max: 2 });
    await migrate(db);
    await db.close();
  }
  return { template, adminUrl, teardown: () => dropDatabases(adminUrl, template) };
}

async function dropDatabases(adminUrl: string | null, template: string | null): Promise<void> {
  if (!adminUrl || !template) return;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const dbs = await admin.query<{ datname: string }>(
    `SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`,
    [template, `${template.replace('mmgen_tpl_', 'mmgen_t_')}_%`],
  );
  for (const { datname } of dbs.rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  await admin.end();
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

