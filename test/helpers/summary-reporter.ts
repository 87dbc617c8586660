import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints one plain closing line, "tests: N passed, N failed, N skipped", that
 * CI reads whatever the test runner (vitest's own summary is not read there).
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      let failedHere = 0;
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failedHere++;
        else skipped++;
      }
      failed += failedHere;
      // A file that failed with no failed test (it did not load, or a beforeAll threw and its tests were
      // skipped) is a failure too: counted once, so that this line never says 0 failed for a red run.
      if (mod.state() === 'failed' && failedHere === 0) failed++;
    }
    failed += unhandledErrors.length;
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
