import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { lockPath } from '../../src/store/lock.js';

vi.setConfig({ testTimeout: 120_000 });
const run = promisify(execFile);
const CONTENDER = join(process.cwd(), 'test', 'helpers', 'lock-contender.ts');

/** A pid that is certainly not running: a process that has exited. */
async function deadPid(): Promise<number> {
  const child = execFile(process.execPath, ['-e', '']);
  await new Promise((r) => child.on('exit', r));
  return child.pid!;
}

async function race(dir: string, contenders: number): Promise<string[]> {
  // Far enough ahead for every process to have started (tsx compiles on the way).
  const startAt = Date.now() + 6000;
  const outs = await Promise.all(
    Array.from({ length: contenders }, () => run(process.execPath, ['--import', 'tsx', CONTENDER, dir, String(startAt)], { timeout: 60_000 })),
  );
  return outs.map((o) => o.stdout.trim());
}

describe('the embedded data directory lock', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('is held by exactly one of several processes trying at the same instant', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmgen-lock-'));
    dirs.push(dir);
    const results = await race(dir, 5);
    expect(results.filter((r) => r === 'got')).toHaveLength(1);
    expect(results.filter((r) => r.startsWith('locked '))).toHaveLength(4);
  });

  // The removal of a stale lock takes turns through a takeover file (src/store/lock.ts): without it, a
  // process could remove the lock another had just made. That window is microseconds wide, so this test
  // shows the property holds under real contention rather than reproducing the old race on demand.
  it('a stale lock (its process gone) is taken over by exactly one of several at once', async () => {
    for (let round = 0; round < 2; round++) {
      const dir = mkdtempSync(join(tmpdir(), 'mmgen-lock-stale-'));
      dirs.push(dir);
      writeFileSync(lockPath(dir), String(await deadPid()));
      const results = await race(dir, 5);
      expect(results.filter((r) => r === 'got'), results.join(', ')).toHaveLength(1);
      expect(results.filter((r) => r.startsWith('locked ')), results.join(', ')).toHaveLength(4);
    }
  });
});
