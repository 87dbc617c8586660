import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PGliteDb, type Queryable } from '../../src/store/db.js';
import { mmgen } from '../helpers/processes.js';
import { freshDb } from '../helpers/server.js';

// Real processes, each opening a database: slow under a loaded machine, so generous limits.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });

/**
 * `mmgen audit verify` as the operator runs it: passes on an untouched log, then exits 1 naming the entry after one
 * row is UPDATEd in the database behind mmgen's back (the append-only trigger turned off, as the database's owner
 * can), passes again once it is put back, and exits 1 naming the gap after one row is DELETEd.
 */
async function walkthrough(env: Record<string, string>, tamper: (fn: (q: Queryable) => Promise<void>) => Promise<void>): Promise<void> {
  const created = await mmgen(['org', 'create', '--name', 'Audited', '--plan', 'pro', '--credits', '100', '--json'], env, 120_000);
  expect(created.code, created.stderr).toBe(0);
  const org = JSON.parse(created.stdout).organization.id as string;
  for (const credits of ['5', '7']) {
    const topup = await mmgen(['wallet', 'topup', '--org', org, '--credits', credits, '--json'], env, 120_000);
    expect(topup.code, topup.stderr).toBe(0);
  }

  const clean = await mmgen(['audit', 'verify', '--json'], env, 120_000);
  expect(clean.code, clean.stderr).toBe(0);
  const reports = JSON.parse(clean.stdout) as Array<{ organization_id: string | null; ok: boolean; entries: number }>;
  expect(reports.find((r) => r.organization_id === org)).toMatchObject({ ok: true, entries: 4 });
  const human = await mmgen(['audit', 'verify'], env, 120_000);
  expect(human.code, human.stderr).toBe(0);
  expect(human.stdout).toMatch(new RegExp(`ok +${org}: 4 entries, head [0-9a-f]{64}`));

  // seq 3 is the first top-up (5 credits): someone makes it read 500.
  let original: unknown;
  await tamper(async (q) => {
    original = (await q.query<{ after: unknown }>('SELECT after FROM audit_events WHERE chain = $1 AND seq = 3', [org])).rows[0]!.after;
    await q.query(`UPDATE audit_events SET after = jsonb_set(after, '{credits}', '500') WHERE chain = $1 AND seq = 3`, [org]);
  });
  const changed = await mmgen(['audit', 'verify'], env, 120_000);
  expect(changed.code).toBe(1);
  expect(changed.stdout).toMatch(new RegExp(`BROKEN +${org}: entry aud_\\w+ \\(seq 3, wallet.topped_up\\) does not match its hash: it was changed`));
  expect(changed.stdout).toMatch(/1 of \d+ chains are broken/);

  await tamper(async (q) => {
    await q.query('UPDATE audit_events SET after = $2::jsonb WHERE chain = $1 AND seq = 3', [org, JSON.stringify(original)]);
  });
  expect((await mmgen(['audit', 'verify'], env, 120_000)).code).toBe(0);

  await tamper(async (q) => {
    await q.query('DELETE FROM audit_events WHERE chain = $1 AND seq = 2', [org]);
  });
  const deleted = await mmgen(['audit', 'verify', '--json'], env, 120_000);
  expect(deleted.code).toBe(1);
  expect((JSON.parse(deleted.stdout) as Array<{ organization_id: string | null; problem: unknown }>).find((r) => r.organization_id === org)?.problem).toMatchObject({
    kind: 'deleted',
    seq: 2,
  });
}

/** Runs fn with the append-only trigger off, as someone with the database's owner rights could. */
async function behindTheTrigger(q: Queryable & { exec(sql: string): Promise<void> }, fn: (q: Queryable) => Promise<void>): Promise<void> {
  await q.exec('ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_change');
  try {
    await fn(q);
  } finally {
    await q.exec('ALTER TABLE audit_events ENABLE TRIGGER audit_events_no_change');
  }
}

describe('mmgen audit verify on the embedded database', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mmgen-audit-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('passes, then names the entry changed, then the entry deleted', async () => {
    await walkthrough({ MMGEN_DATA_DIR: dataDir }, async (fn) => {
      // No mmgen process runs between commands: the test opens the data directory itself.
      const db = await PGliteDb.open(join(dataDir, 'pgdata'));
      try {
        await behindTheTrigger(db, fn);
      } finally {
        await db.close();
      }
    });
  });
});

describe('mmgen audit verify on PostgreSQL', () => {
  it('passes, then names the entry changed, then the entry deleted', { tags: ['postgres'] }, async () => {
    const { db, drop, url } = await freshDb('postgres');
    try {
      await walkthrough({ DATABASE_URL: url!, MMGEN_DATA_DIR: join(tmpdir(), 'unused') }, (fn) => behindTheTrigger(db, fn));
    } finally {
      await db.close();
      await drop();
    }
  });
});
