import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMigrations } from '../../src/store/migrate.js';

describe('migrations', () => {
  // Branches take numbers from ranges of their own (0060-0069, …), so gaps are expected; duplicates never are.
  it('are numbered from 1, without duplicates, in order', () => {
    const versions = loadMigrations().map((m) => m.version);
    expect(versions[0]).toBe(1);
    expect(versions).toEqual([...new Set(versions)].sort((a, b) => a - b));
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
