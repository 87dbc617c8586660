import { defineConfig } from 'vitest/config';

// The container test (npm run test:container): one file, one process. It builds images with
// rootful Podman, so it is not part of `npm test`; .ci/run runs it after the suite.
export default defineConfig({
  ssr: { resolve: { conditions: ['mmgen-source', 'node', 'development|production'] } },
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/container/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 180_000,
    hookTimeout: 1_200_000,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
