// @ts-check
/**
 * Compiles the server (src/) and the SDK it uses (sdk/src/) from TypeScript to JavaScript with esbuild's JS API
 * (a runtime dependency, the version tsx brings anyway), one file per file, into a mirror tree under .build/.
 * bin/mmgen runs that tree: tsx compiles with keepNames, which wraps every function and closure created on a
 * request in a `__name()` call, and that cost CPU on every request.
 *
 *   .build/<key>/src/…          the compiled server, with linked source maps (stack traces name the .ts files)
 *   .build/<key>/sdk/src/…      the compiled SDK (the user CLI imports it by relative path)
 *   .build/<key>/web/dist       a link to the dashboard's build, for src/http/dashboard.ts's '../../web/dist'
 *
 * Every other file of src/ (migrations, provider records, the moderation workers) is a relative symbolic link
 * to its source, so `import.meta.url`-relative reads find it, and `catalog sync --write-records` writes into the
 * repository's record files rather than into a copy.
 *
 * <key> is a hash of the sources' contents (and of this script, the tsconfigs and esbuild's version): a tree is
 * up to date exactly when a tree of that name exists. A build writes into a temporary directory and renames it
 * into place, so many processes starting at once (the test suite spawns many `bin/mmgen serve`) never see a
 * half-written tree; the ones that lose the race drop their copy.
 *
 *   npm run build:server      build unless up to date (also run by `npm install`'s prepare script)
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const BUILD_DIR = join(ROOT, '.build');
const SOURCE_DIRS = ['src', join('sdk', 'src')];
/** Besides the sources, what changes the output. */
const EXTRA_INPUTS = ['tsconfig.json', join('sdk', 'tsconfig.json'), join('scripts', 'build-server.mjs')];
/** Trees kept besides the current one (a checkout switched back and forth reuses them). */
const KEEP = 3;
/** A temporary tree older than this is a crashed build's. */
const STALE_TMP_MS = 10 * 60_000;

/** @param {string} dir @param {string[]} out @returns {string[]} */
function filesUnder(dir, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) filesUnder(path, out);
    else out.push(path);
  }
  return out;
}

/** The source files, relative to the root, in a stable order. */
function sourceFiles() {
  return SOURCE_DIRS.flatMap((d) => filesUnder(join(ROOT, d), [])).map((f) => relative(ROOT, f)).sort();
}

function esbuildVersion() {
  try {
    return /** @type {{ version: string }} */ (createRequire(join(ROOT, 'package.json'))('esbuild/package.json')).version;
  } catch {
    return 'none';
  }
}

/**
 * The hash that names the tree built from the sources as they are now. Contents, not modification times, so that
 * a checkout or an image layer that resets times does not make a fresh tree look stale (about 20 ms at a start).
 * @param {string[]} [files]
 */
export function sourceKey(files = sourceFiles()) {
  const h = createHash('sha256').update(`esbuild ${esbuildVersion()}\0`);
  for (const file of [...EXTRA_INPUTS, ...files]) {
    const path = join(ROOT, file);
    if (!existsSync(path)) continue;
    h.update(file).update('\0').update(readFileSync(path)).update('\0');
  }
  return h.digest('hex').slice(0, 20);
}

/** @param {string} from @param {string} to */
function linkRelative(from, to) {
  mkdirSync(dirname(from), { recursive: true });
  symlinkSync(relative(dirname(from), to), from);
}

/** @param {string} dir */
function removeTree(dir) {
  // Renamed out of the way first: a tree under its key is either whole or absent.
  const trash = join(BUILD_DIR, `trash-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    renameSync(dir, trash);
    rmSync(trash, { recursive: true, force: true });
  } catch {
    // Another process removed it first.
  }
}

/** Drops the oldest trees beyond KEEP and what crashed builds left behind. @param {string} current */
function prune(current) {
  const entries = readdirSync(BUILD_DIR, { withFileTypes: true })
    .filter((e) => e.isDirectory() && join(BUILD_DIR, e.name) !== current)
    .map((e) => ({ path: join(BUILD_DIR, e.name), name: e.name, mtime: statSync(join(BUILD_DIR, e.name)).mtimeMs }));
  const now = Date.now();
  for (const e of entries) {
    if (/^(tmp|trash)-/.test(e.name) && now - e.mtime > STALE_TMP_MS) rmSync(e.path, { recursive: true, force: true });
  }
  const trees = entries.filter((e) => /^[0-9a-f]{20}$/.test(e.name)).sort((a, b) => b.mtime - a.mtime);
  for (const old of trees.slice(KEEP)) removeTree(old.path);
}

/**
 * Builds the tree for the sources as they are now unless it exists; returns its directory and whether this call
 * built it.
 * @returns {Promise<{ tree: string; built: boolean }>}
 */
export async function ensureServerBuilt() {
  const files = sourceFiles();
  const key = sourceKey(files);
  const tree = join(BUILD_DIR, key);
  if (existsSync(tree)) return { tree, built: false };
  const esbuild = await import('esbuild');
  mkdirSync(BUILD_DIR, { recursive: true });
  const tmp = join(BUILD_DIR, `tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const ts = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
    await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: ts,
      outbase: ROOT,
      outdir: tmp,
      bundle: false,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      // Maps beside the files, without the sources' text: Node reads them to point stack traces at the .ts lines.
      sourcemap: 'linked',
      sourcesContent: false,
      logLevel: 'silent',
    });
    for (const f of files) {
      if (f.endsWith('.ts') || f.endsWith('.d.mts')) continue;
      linkRelative(join(tmp, f), join(ROOT, f));
    }
    linkRelative(join(tmp, 'web', 'dist'), join(ROOT, 'web', 'dist'));
    try {
      renameSync(tmp, tree);
    } catch (err) {
      // Another process renamed the same tree into place first; theirs is as good as ours.
      if (!existsSync(tree)) throw err;
      rmSync(tmp, { recursive: true, force: true });
      return { tree, built: false };
    }
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  prune(tree);
  return { tree, built: true };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  const { tree, built } = await ensureServerBuilt();
  const where = relative(ROOT, tree);
  if (built) console.log(`server: built ${where} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  else console.log(`server: ${where} is up to date`);
}
