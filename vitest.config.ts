import { configDefaults, defineConfig } from 'vitest/config';

// Test files run in parallel worker processes; each file gets its own fresh
// database (a copy of a migrated template), so files never share state.
export default defineConfig({
  // Workspace packages (the SDK) are tested from their TypeScript source (sdk/package.json
  // "exports"); the others are Vite's server defaults without 'module', which would hand Node
  // bundler-only ESM builds (e.g. @aws-sdk's dist-es, whose imports have no file extensions).
  ssr: { resolve: { conditions: ['mmgen-source', 'node', 'development|production'] } },
  test: {
    include: ['test/**/*.test.ts', 'sdk/test/**/*.test.ts'],
    // The container test builds images with Podman as root: `npm run test:container`, run by .ci/run.
    exclude: [...configDefaults.exclude, 'test/container/**'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
