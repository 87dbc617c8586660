/**
 * Builds the dashboard into web/dist when its sources changed since the last
 * build. It runs from `npm install` (the root `prepare` script), so that
 * `npm install && npm start` serves /dashboard with no separate step, and from
 * the browser tests, so they never drive a stale build. An up-to-date build
 * costs one hash of the sources (milliseconds); a fresh one a few seconds.
 *
 *   node --import tsx web/build.ts           build if stale
 *   node --import tsx web/build.ts --force   always build
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const WEB_DIR = dirname(fileURLToPath(import.meta.url));
export const DIST_DIR = join(WEB_DIR, 'dist');
const STAMP = join(DIST_DIR, '.source-hash');
const ROOT = join(WEB_DIR, '..');

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

/** A hash of everything the build reads: the dashboard's sources and the locked dependency versions. */
export function sourceHash(): string {
  const h = createHash('sha256');
  const inputs = [
    ...filesUnder(join(WEB_DIR, 'src')),
    ...filesUnder(join(WEB_DIR, 'public')),
    join(WEB_DIR, 'index.html'),
    join(WEB_DIR, 'vite.config.ts'),
    join(ROOT, 'package-lock.json'),
  ];
  for (const file of inputs) {
    if (!existsSync(file)) continue;
    h.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return h.digest('hex');
}

export function isDashboardFresh(): boolean {
  return existsSync(join(DIST_DIR, 'index.html')) && existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === sourceHash();
}

export type BuildOutcome = 'fresh' | 'built' | 'unavailable';

/** Exit code of this script when vite is not installed (npm install --omit=dev). */
const NO_VITE = 3;

async function buildNow(quiet: boolean): Promise<BuildOutcome> {
  let vite: typeof import('vite');
  try {
    vite = await import('vite');
  } catch {
    return 'unavailable';
  }
  const hash = sourceHash();
  await vite.build({ configFile: join(WEB_DIR, 'vite.config.ts'), mode: 'production', logLevel: quiet ? 'error' : 'warn' });
  writeFileSync(STAMP, hash + '\n');
  return 'built';
}

/**
 * Builds web/dist unless it is up to date, in a child process: vite takes
 * NODE_ENV from the environment, and a caller such as vitest (NODE_ENV=test)
 * would otherwise get React's development build.
 */
export async function ensureDashboardBuilt(opts: { force?: boolean; quiet?: boolean } = {}): Promise<BuildOutcome> {
  if (!opts.force && isDashboardFresh()) return 'fresh';
  const args = ['--import', 'tsx', fileURLToPath(import.meta.url), '--force', ...(opts.quiet ? ['--quiet'] : [])];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, NODE_ENV: 'production' }, stdio: opts.quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit' });
    child.on('error', reject);
    child.on('exit', resolve);
  });
  if (code === NO_VITE) return 'unavailable';
  if (code !== 0) throw new Error(`building the dashboard failed (exit code ${code}); run npm run build:web to see why`);
  return 'built';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.env.NODE_ENV = 'production';
  const started = performance.now();
  const quiet = process.argv.includes('--quiet');
  const outcome = !process.argv.includes('--force') && isDashboardFresh() ? 'fresh' : await buildNow(quiet);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (outcome === 'fresh') console.log('dashboard: web/dist is up to date');
  else if (outcome === 'built') {
    if (!quiet) console.log(`dashboard: built web/dist in ${seconds} s`);
  } else {
    console.warn('dashboard: vite is not installed (production install?); /dashboard will say it is not built. Run `npm install` then `npm run build:web`.');
    // From npm install this must not fail the install; callers of ensureDashboardBuilt() learn it from the code.
    process.exitCode = process.env.npm_lifecycle_event === 'prepare' ? 0 : NO_VITE;
  }
}
