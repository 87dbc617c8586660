import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAULTS, occurrences, ROOT } from '../faults/plant.mjs';

/**
 * The planted faults of test/faults/plant.mjs (issue 43) still fit the source: each one's search text is in its file
 * exactly once (or, while it is planted, its planted text is), so a refactor that moves the code fails here, loudly,
 * instead of leaving a fault that no longer applies. A planted fault passes here on purpose: `plant <name> && npm
 * test` must fail by the behaviour tests alone. Nothing is written: the files are read, a fault is applied in memory.
 */
const AREAS = ['money', 'auth', 'isolation', 'idempotency', 'webhooks', 'moderation', 'catalog', 'store'];
/** The tiers a fault must be caught in: the quick ones (`npm run test:quick`), not e2e or the scenarios. */
const QUICK_TIERS = ['test/unit/', 'test/integration/', 'test/providers/', 'sdk/test/'];
const PLANT = join(ROOT, 'test', 'faults', 'plant.mjs');

describe('planted faults', () => {
  it('are ten, with distinct names, covering every area', () => {
    expect(FAULTS).toHaveLength(10);
    expect(new Set(FAULTS.map((f) => f.name)).size).toBe(FAULTS.length);
    for (const f of FAULTS) expect(f.name, f.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect([...new Set(FAULTS.map((f) => f.area))].sort()).toEqual([...AREAS].sort());
  });

  it.each(FAULTS.map((f) => [f.name, f] as const))('%s applies to the source exactly once', (_, f) => {
    expect(f.file.startsWith('src/'), f.file).toBe(true);
    expect(f.replace).not.toBe(f.search);
    const text = readFileSync(join(ROOT, f.file), 'utf8');
    const [search, planted] = [occurrences(text, f.search), occurrences(text, f.replace)];
    if (planted === 1 && search === 0) return; // planted now (`node test/faults/plant.mjs revert <name>`)
    expect({ search, planted }, `its search text in ${f.file}: moved or changed? update test/faults/plant.mjs`).toEqual({ search: 1, planted: 0 });
    // Planted, it is found again to be reverted.
    const after = text.replace(f.search, () => f.replace);
    expect({ search: occurrences(after, f.search), planted: occurrences(after, f.replace) }).toEqual({ search: 0, planted: 1 });
  });

  it('each is caught by test files of the quick tiers, and test/README.md lists it', () => {
    const readme = readFileSync(join(ROOT, 'test', 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Planted faults'));
    expect(section.length).toBeLessThan(readme.length);
    for (const f of FAULTS) {
      expect(f.caughtBy.length, f.name).toBeGreaterThan(0);
      for (const file of f.caughtBy) {
        expect(QUICK_TIERS.some((tier) => file.startsWith(tier)), `${f.name}: ${file}`).toBe(true);
        expect(existsSync(join(ROOT, file)), `${f.name}: ${file}`).toBe(true);
      }
      expect(section, f.name).toContain(`\`${f.name}\``);
    }
  });

  it('the script lists them, and refuses (exit 2) what does not apply, writing nothing', () => {
    const list = execFileSync(process.execPath, [PLANT, 'list'], { encoding: 'utf8' });
    for (const f of FAULTS) expect(list).toContain(f.name);
    // A fault not planted has nothing to revert: refused before any write.
    const f = FAULTS.find((x) => occurrences(readFileSync(join(ROOT, x.file), 'utf8'), x.replace) === 0)!;
    const before = readFileSync(join(ROOT, f.file), 'utf8');
    const revert = spawnSync(process.execPath, [PLANT, 'revert', f.name], { encoding: 'utf8' });
    expect(revert.status).toBe(2);
    expect(revert.stderr).toContain(`cannot revert ${f.name}`);
    expect(readFileSync(join(ROOT, f.file), 'utf8')).toBe(before);
    expect(spawnSync(process.execPath, [PLANT, 'no-such-fault'], { encoding: 'utf8' }).status).toBe(1);
  });
});
