import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMigrations } from '../../src/store/migrate.js';

describe('migrations', () => {
  // Parallel branches take number ranges of their own (gaps are fine); what must hold is an order without duplicates.
  it('are numbered from 1, increasing, without duplicates', () => {
    const versions = loadMigrations().map((m) => m.version);
    expect(versions[0]).toBe(1);
    expect(versions.every((v, i) => i === 0 || v > versions[i - 1]!)).toBe(true);
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
