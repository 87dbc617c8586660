import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { spawnMmgen, type MmgenProcess } from '../helpers/processes.js';
import { freshDb } from '../helpers/server.js';

// Real first builds and four server starts at once, on a machine shared with others: generous limits.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });

const run = promisify(execFile);
const ROOT = process.cwd();

/**
 * bin/mmgen runs the server compiled into .build/ (scripts/build-server.mjs). The tests run a copy of the
 * checkout's sources (its node_modules linked), so that their builds and edits never touch the repository's tree
 * that other test files' processes run.
 */
describe('bin/mmgen runs the compiled server', () => {
  let checkout: string;
  let bin: string;
  let databaseUrl: string | undefined;
  let drop: () => Promise<void>;
  const dirs: string[] = [];

  const trees = () => readdirSync(join(checkout, '.build')).sort();
  const help = async (env: Record<string, string> = {}) => {
    const { stdout, stderr } = await run(bin, ['--help'], { env: { ...process.env, ...env }, timeout: 120_000 });
    return { stdout, stderr };
  };

  beforeAll(async () => {
    checkout = mkdtempSync(join(tmpdir(), 'mmgen-checkout-'));
    for (const path of ['src', 'sdk/src', 'bin', 'scripts']) cpSync(join(ROOT, path), join(checkout, path), { recursive: true });
    for (const file of ['package.json', 'tsconfig.json', 'sdk/package.json', 'sdk/tsconfig.json']) cpSync(join(ROOT, file), join(checkout, file));
    symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'));
    bin = join(checkout, 'bin', 'mmgen');
    // PostgreSQL when the run has it; without it (a fresh machine) each node keeps PGlite in its own data directory,
    // which is all these tests need of a database: what they test is the build.
    if (inject('pgTemplate')) {
      const fresh = await freshDb('postgres');
      await fresh.db.close();
      databaseUrl = fresh.url!;
      drop = fresh.drop;
    }
  });

  afterAll(async () => {
    await drop?.();
    for (const dir of [checkout, ...dirs]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('four first starts at once on an empty build directory build one tree, and all serve from it', async () => {
    const env = () => {
      const dir = mkdtempSync(join(tmpdir(), 'mmgen-node-'));
      dirs.push(dir);
      return { ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), MMGEN_DATA_DIR: dir };
    };
    const started = await Promise.allSettled(Array.from({ length: 4 }, () => spawnMmgen(['serve', '--no-worker'], env(), 240_000, bin)));
    const procs = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    try {
      expect(started.filter((s) => s.status === 'rejected').map((s) => String((s as PromiseRejectedResult).reason))).toEqual([]);
      for (const p of procs) {
        const listening = p.logs().find((l) => l.msg === 'mmgen is listening');
        expect(listening?.code).toBe('compiled');
        expect(p.output()).not.toMatch(/could not build the server/);
        const res = await fetch(`${p.url}/healthz`);
        expect(res.status).toBe(200);
      }
      // One tree under the sources' hash, and nothing half-written left beside it.
      expect(trees()).toHaveLength(1);
      expect(trees()[0]).toMatch(/^[0-9a-f]{20}$/);
      // Its map points stack traces at the TypeScript source.
      const map = JSON.parse(readFileSync(join(checkout, '.build', trees()[0]!, 'src', 'cli.js.map'), 'utf8')) as { sources: string[] };
      expect(map.sources).toEqual(['../../../src/cli.ts']);
    } finally {
      await Promise.all(procs.map((p: MmgenProcess) => p.stop()));
    }
  });

  it('a source file touched but not changed keeps the tree; a changed one is rebuilt at the next start and runs', async () => {
    const before = trees();
    const cli = join(checkout, 'src', 'cli.ts');
    const later = new Date(Date.now() + 60_000);
    utimesSync(cli, later, later);
    expect((await help()).stdout).toMatch(/^mmgen — multi-modality generation service$/m);
    expect(trees()).toEqual(before);

    writeFileSync(cli, readFileSync(cli, 'utf8').replace('mmgen — multi-modality generation service', 'mmgen — edited since the last build'));
    const { stdout, stderr } = await help();
    expect(stdout).toMatch(/^mmgen — edited since the last build$/m);
    expect(stderr).toBe('');
    expect(trees()).toHaveLength(2);
  });

  it('MMGEN_RUN_TS=1 runs the sources through tsx, building nothing', async () => {
    const before = trees();
    appendFileSync(join(checkout, 'src', 'cli.ts'), '\n// An edit no tree has.\n');
    const { stdout } = await help({ MMGEN_RUN_TS: '1' });
    expect(stdout).toMatch(/^mmgen — edited since the last build$/m);
    expect(trees()).toEqual(before);
  });

  it('a build that fails runs the sources through tsx, with a one-line warning', async () => {
    rmSync(join(checkout, '.build'), { recursive: true, force: true });
    // A file where the build directory would be: nothing can be built there.
    writeFileSync(join(checkout, '.build'), 'not a directory\n');
    const { stdout, stderr } = await help();
    expect(stdout).toMatch(/^mmgen — edited since the last build$/m);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^mmgen: could not build the server \(.+\); running the TypeScript sources through tsx$/m);
  });
});
