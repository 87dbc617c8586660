import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createBrotliDecompress } from 'node:zlib';

const run = promisify(execFile);

/**
 * The browser the dashboard and SDK browser tests drive, with nothing installed by hand.
 *
 * `CHROMIUM_PATH` names one to use. Otherwise the tests use the Chromium that the
 * `@sparticuz/chromium` devDependency carries inside its npm package (brotli-compressed, with
 * the few shared libraries it links to: NSS, NSPR, expat). A fresh machine gets it from
 * `npm install` like any other dependency, and every machine runs the same, lockfile-pinned build.
 * It is unpacked once per version under node_modules/.cache, never into a shared /tmp.
 */
export interface ChromiumLaunch {
  executablePath: string;
  /** Environment the browser needs on top of the caller's (its own library and font paths). */
  env: Record<string, string>;
  /** Where it came from, for the test log. */
  source: string;
}

/** Flags every test launches Chromium with; the background-networking ones keep it off a closed network. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--no-zygote',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function resolveChromium(): Promise<ChromiumLaunch> {
  const named = process.env.CHROMIUM_PATH;
  if (named) {
    if (!existsSync(named)) throw new Error(`CHROMIUM_PATH=${named} does not exist`);
    return { executablePath: named, env: {}, source: `CHROMIUM_PATH (${named})` };
  }
  return unpackPackagedChromium();
}

async function unpackPackagedChromium(): Promise<ChromiumLaunch> {
  const pkgDir = packageDir('@sparticuz/chromium');
  const { version } = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version: string };
  const bin = join(pkgDir, 'bin');
  const root = join(pkgDir, '..', '..', '.cache', `mmgen-chromium-${version}`);
  const launch: ChromiumLaunch = {
    executablePath: join(root, 'chromium'),
    env: { LD_LIBRARY_PATH: [join(root, 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':'), FONTCONFIG_PATH: join(root, 'fonts') },
    source: `@sparticuz/chromium ${version} (${root})`,
  };
  const done = join(root, '.unpacked');
  if (existsSync(done)) return launch;

  // Unpacked beside the final folder, then renamed into place: a run that dies half-way leaves no half-made browser.
  const staging = `${root}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    await pipeline(createReadStream(join(bin, 'chromium.br')), createBrotliDecompress(), createWriteStream(join(staging, 'chromium'), { mode: 0o755 }));
    // swiftshader (GL libraries beside the binary), fonts (with their fonts.conf) and the shared libraries.
    await untarBrotli(join(bin, 'swiftshader.tar.br'), staging);
    mkdirSync(join(staging, 'fonts'));
    await untarBrotli(join(bin, 'fonts.tar.br'), join(staging, 'fonts'));
    // The package's fonts.conf names /tmp/fonts (where a Lambda unpacks it); this one names where these fonts are.
    writeFileSync(
      join(staging, 'fonts', 'fonts.conf'),
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${join(root, 'fonts', 'fonts')}</dir>\n  <dir>/usr/share/fonts</dir>\n  <cachedir>${join(root, 'fonts-cache')}</cachedir>\n</fontconfig>\n`,
    );
    await untarBrotli(join(bin, 'al2023.tar.br'), staging); // → lib/
    writeFileSync(join(staging, '.unpacked'), `${version}\n`);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
  try {
    renameSync(staging, root);
  } catch (e) {
    // Another process unpacked the same version first: use its copy.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(done)) throw e;
  }
  return launch;
}

/** The folder of an installed package whose "exports" hide its package.json: up from its entry point. */
function packageDir(name: string): string {
  let dir = dirname(createRequire(import.meta.url).resolve(name));
  while (!existsSync(join(dir, 'package.json')) || (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name !== name) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the folder of ${name}`);
    dir = up;
  }
  return dir;
}

/** A brotli-compressed tar into a folder, through the system's tar (essential on Debian). */
async function untarBrotli(file: string, into: string): Promise<void> {
  // Whole to a file first: GNU tar stops reading at the end-of-archive marker, which breaks a pipe into it.
  const plain = join(into, `.${basename(file, '.br')}`);
  await pipeline(createReadStream(file), createBrotliDecompress(), createWriteStream(plain));
  try {
    await run('tar', ['-x', '-f', plain, '-C', into]);
  } finally {
    rmSync(plain, { force: true });
  }
}
