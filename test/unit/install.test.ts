import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { transform, version as esbuildVersion } from 'esbuild';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { getFfmpegPath } from '../../src/media/ffmpeg.js';

/**
 * What `npm install` leaves on a fresh machine: the binaries that install scripts would have
 * prepared work, every dependency accepts the Node versions the project declares, and every
 * install script is decided in package.json (npm 11 skips undecided ones silently).
 */
const run = promisify(execFile);
const ROOT = process.cwd();

interface LockPackage {
  version?: string;
  engines?: { node?: string } | string[];
  hasInstallScript?: boolean;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
}
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string }; allowScripts: Record<string, boolean> };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockPackage> };
const installed = Object.entries(lock.packages).filter(([path]) => path.startsWith('node_modules/') || path.includes('/node_modules/'));
const nameOf = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
/** Packages built for another platform are never installed here (npm skips them by os and cpu). */
const forThisPlatform = ([, p]: [string, LockPackage]) =>
  (!p.os || p.os.includes(process.platform)) && (!p.cpu || p.cpu.includes(process.arch));

describe('a clean install', () => {
  it('the ffmpeg that @ffmpeg-installer ships is executable and runs', async () => {
    const path = getFfmpegPath();
    expect(statSync(path).mode & 0o100).not.toBe(0);
    const { stdout } = await run(path, ['-hide_banner', '-version']);
    expect(stdout).toMatch(/^ffmpeg version \S+/);
    // A real encode, not just a banner: one second of a test tone to WAV on stdout.
    const wav = await new Promise<Buffer>((resolve, reject) => {
      execFile(path, ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-f', 'wav', '-'], { encoding: 'buffer', maxBuffer: 1 << 24 }, (e, out) => (e ? reject(e) : resolve(out)));
    });
    expect(wav.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(wav.length).toBeGreaterThan(44_100);
  });

  it("esbuild's native binary answers (its install script is approved)", async () => {
    const out = await transform('const x: number = 1; export default x;', { loader: 'ts' });
    expect(out.code).toContain('x = 1');
    expect(semver.valid(esbuildVersion)).not.toBeNull();
  });

  it('every installed dependency accepts every Node version package.json declares', () => {
    const ours = pkg.engines.node;
    expect(semver.satisfies(process.version, ours), `this Node (${process.version}) is outside engines.node ${ours}`).toBe(true);
    // No exceptions: npm prints EBADENGINE for any of these, and a newcomer reads warnings as breakage (issue 29).
    // nsfwjs is pinned to 4.3.0 for this (4.4.0 declares node "22.13.0" exactly, with the same weights and code).
    const refusing = installed
      .filter(forThisPlatform)
      .flatMap(([path, p]) => {
        const theirs = !Array.isArray(p.engines) ? p.engines?.node : undefined;
        return theirs && !semver.subset(ours, theirs) ? [`${nameOf(path)}@${p.version} wants node ${theirs}`] : [];
      });
    expect(refusing).toEqual([]);
  });

  it('every dependency with an install script is approved or denied in allowScripts', () => {
    const undecided = installed
      .filter(([, p]) => p.hasInstallScript)
      .map(([path]) => nameOf(path))
      .filter((name) => !(name in pkg.allowScripts));
    expect(undecided).toEqual([]);
  });
});
