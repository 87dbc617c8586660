import { configDefaults, defineConfig } from 'vitest/config';
import { NEEDS } from './test/helpers/needs.js';

/**
 * The suite in four tiers (vitest projects), run one after the other, fastest-failing first: a broken unit shows in
 * seconds, not after the scenarios. `npm run test:quick` runs the first two on PGlite alone.
 *
 * - unit: no server, no database of its own (or an in-memory one).
 * - integration: in-process servers and fakes on loopback.
 * - e2e: the dashboard in Chromium.
 * - scenarios: several processes, bin/mmgen launches, chaos, crashes, fuzzing every operation.
 *
 * The container test builds images with Podman as root: `npm run test:container`, run by .ci/run.
 */
const TIERS = [
  { name: 'unit', include: ['test/unit/**/*.test.ts'] },
  {
    name: 'integration',
    include: ['test/integration/**/*.test.ts', 'test/providers/**/*.test.ts', 'test/store/**/*.test.ts', 'sdk/test/**/*.test.ts'],
    exclude: ['sdk/test/portability.test.ts'],
  },
  // The SDK's portability test runs the bundle in Chromium (and in Node processes).
  { name: 'e2e', include: ['test/e2e/**/*.test.ts', 'sdk/test/portability.test.ts'] },
  { name: 'scenarios', include: ['test/scenarios/**/*.test.ts'] },
] as const satisfies ReadonlyArray<{ name: string; include: readonly string[]; exclude?: readonly string[] }>;

export default defineConfig({
  // Workspace packages (the SDK) are tested from their TypeScript source (sdk/package.json
  // "exports"); the others are Vite's server defaults without 'module', which would hand Node
  // bundler-only ESM builds (e.g. @aws-sdk's dist-es, whose imports have no file extensions).
  ssr: { resolve: { conditions: ['mmgen-source', 'node', 'development|production'] } },
  test: {
    exclude: [...configDefaults.exclude, 'test/container/**'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // A test tagged with a need this machine lacks is skipped, and counted by need in the summary.
    tags: NEEDS.map(({ name, description, skip }) => ({ name, description: `needs ${description}`, skip })),
    pool: 'forks',
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    projects: TIERS.map((tier, order) => ({
      extends: true,
      test: {
        name: tier.name,
        include: [...tier.include],
        exclude: [...configDefaults.exclude, 'test/container/**', ...('exclude' in tier ? tier.exclude : [])],
        sequence: { groupOrder: order },
      },
    })),
  },
});
