import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMigrations } from '../../src/store/migrate.js';

describe('migrations', () => {
  // Branches are given number ranges of their own (0040-0049, …), so gaps are expected; order and uniqueness are not negotiable.
  it('are numbered in strictly increasing order, without duplicates', () => {
    const versions = loadMigrations().map((m) => m.version);
    expect(versions.slice(0, 19)).toEqual(versions.slice(0, 19).map((_, i) => i + 1));
    for (let i = 1; i < versions.length; i++) expect(versions[i]!).toBeGreaterThan(versions[i - 1]!);
  });

  it('refuse two files with one number (two branches merged) instead of skipping one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmgen-mig-'));
    try {
      writeFileSync(join(dir, '0001_a.sql'), 'SELECT 1;');
      writeFileSync(join(dir, '0002_b.sql'), 'SELECT 1;');
      writeFileSync(join(dir, '0002_c.sql'), 'SELECT 1;');
      expect(() => loadMigrations(dir)).toThrow(/Two migrations are numbered 2: b and c/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
