import type { Reporter, TestCase, TestModule } from 'vitest/node';
import { NEEDS } from './needs.js';

/** How many of the slowest files and tests the summary lists: MMGEN_TEST_PROFILE (npm run test:profile sets 30). */
const SHOWN = Number(process.env.MMGEN_TEST_PROFILE ?? 10) || 10;

/**
 * The skipped tests counted by why: the needs (test/helpers/needs.ts) this machine lacks that their tags name, then
 * the note of a test that skipped itself, then the rest (skipped by their own file's condition: one backend only, an
 * encoder this ffmpeg lacks).
 */
function skipReasons(skips: readonly TestCase[]): string[] {
  if (skips.length === 0) return [];
  const counts = new Map<string, number>();
  for (const test of skips) {
    const needs = NEEDS.filter((n) => n.skip && test.tags.includes(n.name)).map((n) => n.description);
    const result = test.result();
    const note = result.state === 'skipped' ? result.note : undefined;
    const why = needs.length > 0 ? `need ${needs.join(' and ')}` : note ? `skipped themselves: ${note}` : "skipped by their file's own condition (one backend only, a missing encoder, …)";
    counts.set(why, (counts.get(why) ?? 0) + 1);
  }
  const rows = [...counts].sort((a, b) => b[1] - a[1]).map(([why, n]) => `${String(n).padStart(8)}  ${why}`);
  return [`skipped (${skips.length}):`, ...rows];
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`.padStart(8);

/**
 * Prints where the time went (the slowest files, with their collect time, and the slowest tests), why tests were
 * skipped (how many, by the need they lack), and then one plain closing line, "tests: N passed, N failed, N skipped", that
 * CI reads whatever the test runner (vitest's own summary is not read there). The closing line stays last.
 */
export default class SummaryReporter implements Reporter {
  /** Each tier's (vitest project's) wall time: from its first file's start to its last file's end. */
  private readonly tiers = new Map<string, { start: number; end: number; files: number }>();

  onTestModuleStart(mod: TestModule): void {
    const now = performance.now();
    const tier = this.tiers.get(mod.project.name) ?? { start: now, end: now, files: 0 };
    tier.start = Math.min(tier.start, now);
    this.tiers.set(mod.project.name, tier);
  }

  onTestModuleEnd(mod: TestModule): void {
    const tier = this.tiers.get(mod.project.name);
    if (!tier) return;
    tier.end = Math.max(tier.end, performance.now());
    tier.files++;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const files: Array<{ name: string; ms: number; collectMs: number; tests: number }> = [];
    const tests: Array<{ name: string; ms: number }> = [];
    const skips: TestCase[] = [];
    for (const mod of testModules) {
      let failedHere = 0;
      let count = 0;
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failedHere++;
        else {
          skipped++;
          skips.push(test);
        }
        count++;
        const ms = test.diagnostic()?.duration;
        if (ms !== undefined) tests.push({ name: `${mod.relativeModuleId} > ${test.fullName}`, ms });
      }
      failed += failedHere;
      // A file that failed with no failed test (it did not load, or a beforeAll threw and its tests were
      // skipped) is a failure too: counted once, so that this line never says 0 failed for a red run.
      if (mod.state() === 'failed' && failedHere === 0) failed++;
      const d = mod.diagnostic();
      files.push({ name: mod.relativeModuleId, ms: d.collectDuration + d.duration, collectMs: d.collectDuration, tests: count });
    }
    failed += unhandledErrors.length;
    const out: string[] = [];
    if (files.length > 1) {
      out.push('', `slowest files (of ${files.length}; time in the file, its import and start-up included):`);
      for (const f of files.sort((a, b) => b.ms - a.ms).slice(0, SHOWN)) out.push(`${seconds(f.ms)}  ${f.name} (${f.tests} tests, ${seconds(f.collectMs).trim()} to load)`);
      out.push(`slowest tests (of ${tests.length}):`);
      for (const t of tests.sort((a, b) => b.ms - a.ms).slice(0, SHOWN)) out.push(`${seconds(t.ms)}  ${t.name}`);
    }
    if (this.tiers.size > 1) {
      out.push('tiers (wall time, first file started to last file ended):');
      for (const [name, t] of this.tiers) out.push(`${seconds(t.end - t.start)}  ${name} (${t.files} files)`);
    }
    out.push(...skipReasons(skips));
    out.push(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    process.stdout.write(`${out.join('\n')}`);
  }
}
