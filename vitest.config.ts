import { configDefaults, defineConfig } from 'vitest/config';
import { NEEDS } from './test/helpers/needs.js';

/**
 * The suite in four tiers (vitest projects), fastest-failing first: unit, then integration, then e2e and scenarios
 * together (a broken unit shows in seconds, not after the scenarios). The last two share a group because each is
 * bound by a few long files (the dashboard's, the fuzz): run apart, each would leave the other's workers idle for
 * minutes. `npm run test:quick` runs the first two on PGlite alone.
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
    // A worker runs its files one after another in one module graph: each file's imports (mmgen's whole source and
    // its dependencies, about 2.5 s of CPU a file) are loaded once per worker, not once per file. Safe because no
    // src/ module keeps an installation's state at module level (docs/architecture.md), and each file starts its own
    // servers on its own database.
    isolate: false,
    include: ['test/integration/**/*.test.ts', 'test/providers/**/*.test.ts', 'test/store/**/*.test.ts', 'sdk/test/**/*.test.ts'],
    exclude: ['sdk/test/portability.test.ts'],
  },
  // The SDK's portability test runs the bundle in Chromium (and in Node processes). The tier's one Chromium, which
  // every file connects to, is started by its own global setup.
  { name: 'e2e', include: ['test/e2e/**/*.test.ts', 'sdk/test/portability.test.ts'], globalSetup: ['test/helpers/chromium-server.ts'] },
  { name: 'scenarios', include: ['test/scenarios/**/*.test.ts'], group: 2 },
] as const satisfies ReadonlyArray<{
  name: string;
  include: readonly string[];
  exclude?: readonly string[];
  isolate?: boolean;
  globalSetup?: readonly string[];
  /** Its place in the order (sequence.groupOrder); by default its place in this list. */
  group?: number;
}>;

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
        isolate: 'isolate' in tier ? tier.isolate : true,
        sequence: { groupOrder: 'group' in tier ? tier.group : order },
        // On top of the root's (vitest concatenates a project's list to the one it extends).
        ...('globalSetup' in tier ? { globalSetup: [...tier.globalSetup] } : {}),
      },
    })),
  },
});
