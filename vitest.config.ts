import { defineConfig } from 'vitest/config';

// Test files run in parallel worker processes; each file gets its own fresh
// database (a copy of a migrated template), so files never share state.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
