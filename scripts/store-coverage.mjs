#!/usr/bin/env node
/**
 * The store on both backends (test/README.md): runs the store contract suite (test/store) once per backend, with
 * MMGEN_TEST_BACKENDS naming it, and V8 coverage of src/store/ only; prints each backend's line coverage of src/store/
 * and, per file, the lines no test reached on it.
 *
 *   npm run test:store-coverage                  both backends (PostgreSQL needs TEST_DATABASE_URL)
 *   npm run test:store-coverage -- pglite        one of them
 *   npm run test:store-coverage -- --maxWorkers=1   anything starting with -- goes to vitest
 *
 * Reports land in coverage/store-<backend>/ (coverage-final.json, Istanbul's format). Exits 1 when a run fails.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The suite, and the tests outside it that reach store lines it does not (loadMigrations' refusal of a duplicate). */
const TESTS = ['test/store', 'test/unit/migrations.test.ts'];
const BACKENDS = ['pglite', 'postgres'];

const args = process.argv.slice(2);
const named = args.filter((a) => !a.startsWith('-'));
const passed = args.filter((a) => a.startsWith('-'));
const backends = named.length > 0 ? named : BACKENDS;
for (const b of backends) if (!BACKENDS.includes(b)) fail(`unknown backend '${b}' (${BACKENDS.join(', ')})`);
if (backends.includes('postgres') && !process.env.TEST_DATABASE_URL) fail('postgres needs TEST_DATABASE_URL (or run: npm run test:store-coverage -- pglite)');
const workers = passed.some((a) => a.startsWith('--maxWorkers')) ? [] : ['--maxWorkers=2'];

const results = [];
for (const backend of backends) {
  const dir = join('coverage', `store-${backend}`);
  const run = spawnSync(
    'npx',
    [
      'vitest', 'run', '--project', 'unit', '--project', 'integration', ...TESTS, ...workers,
      '--coverage.enabled=true', '--coverage.provider=v8', '--coverage.include=src/store/**/*.ts', '--coverage.reporter=json',
      // A failed run still reports what it reached; the exit code says it failed.
      '--coverage.reportOnFailure=true',
      `--coverage.reportsDirectory=${dir}`, ...passed,
    ],
    { stdio: 'inherit', env: { ...process.env, MMGEN_TEST_BACKENDS: backend } },
  );
  let lines = null;
  try {
    lines = linesOf(JSON.parse(readFileSync(join(dir, 'coverage-final.json'), 'utf8')));
  } catch {
    // The run ended before writing its report; said below.
  }
  results.push({ backend, ok: run.status === 0 && lines !== null, lines });
}

for (const { backend, ok, lines } of results) {
  if (lines === null) {
    console.log(`\nsrc/store/ on ${backend}: no coverage report was written (the test run FAILED)`);
    continue;
  }
  const total = lines.reduce((s, f) => s + f.total, 0);
  const covered = lines.reduce((s, f) => s + f.covered, 0);
  console.log(`\nsrc/store/ on ${backend}: lines ${percent(covered, total)} (${covered}/${total})${ok ? '' : '  (the test run FAILED)'}`);
  for (const f of lines) if (f.uncovered.length > 0) console.log(`  ${f.file.padEnd(30)} ${percent(f.covered, f.total).padStart(7)}  not reached: ${ranges(f.uncovered)}`);
}
process.exit(results.every((r) => r.ok) ? 0 : 1);

/** Per file, its lines as Istanbul counts them: a line is covered when a statement starting on it ran. */
function linesOf(coverage) {
  return Object.values(coverage)
    .map((fc) => {
      const hits = new Map();
      for (const [id, count] of Object.entries(fc.s)) {
        const line = fc.statementMap[id].start.line;
        hits.set(line, Math.max(hits.get(line) ?? 0, count));
      }
      const uncovered = [...hits].filter(([, n]) => n === 0).map(([line]) => line).sort((a, b) => a - b);
      return { file: relative(process.cwd(), fc.path), total: hits.size, covered: hits.size - uncovered.length, uncovered };
    })
    .sort((a, b) => a.file.localeCompare(b.file));
}

function percent(n, of) {
  return `${of === 0 ? '100.0' : ((100 * n) / of).toFixed(1)}%`;
}

function ranges(lines) {
  const out = [];
  for (const line of lines) {
    const last = out[out.length - 1];
    if (last && line === last[1] + 1) last[1] = line;
    else out.push([line, line]);
  }
  return out.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(', ');
}

function fail(message) {
  console.error(`store-coverage: ${message}`);
  process.exit(2);
}
