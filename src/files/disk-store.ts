import * as fs from 'node:fs';
import { mkdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { dirname, join, resolve, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import { assertBlobKey, MAX_DELETE_BATCH, type BlobStore } from './types.js';

// The callback forms, promisified: fs/promises' writeFile runs its open, write and close as three promise steps in
// JavaScript, which took about twice the event loop's time per stored output (an async job's largest cost after
// its statements; bench/README.md, issue 30).
const writeFileCb = promisify(fs.writeFile);
const mkdirCb = promisify(fs.mkdir);
const renameCb = promisify(fs.rename);

/** Blobs as files under one directory; the content type is kept in a sidecar file. */
export class DiskBlobStore implements BlobStore {
  readonly kind = 'disk';
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  private path(key: string): string {
    assertBlobKey(key);
    const p = resolve(join(this.root, key));
    if (!p.startsWith(this.root + sep)) throw new Error(`invalid blob key: ${key}`);
    return p;
  }

  async put(key: string, bytes: Buffer, contentType: string): Promise<void> {
    const p = this.path(key);
    await mkdirCb(dirname(p), { recursive: true });
    // Write then rename, so a reader never sees half a file; the sidecar is written by then too.
    const tmp = `${p}.${randomBytes(6).toString('hex')}.tmp`;
    await Promise.all([writeFileCb(tmp, bytes), writeFileCb(`${p}.type`, contentType)]);
    await renameCb(tmp, p);
  }

  async get(key: string): Promise<{ bytes: Buffer; contentType: string } | null> {
    const p = this.path(key);
    try {
      const [bytes, contentType] = await Promise.all([readFile(p), readFile(`${p}.type`, 'utf8')]);
      return { bytes, contentType };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    const p = this.path(key);
    await rm(p, { force: true });
    await rm(`${p}.type`, { force: true });
  }

  async deleteMany(keys: readonly string[]): Promise<void> {
    if (keys.length > MAX_DELETE_BATCH) throw new Error(`at most ${MAX_DELETE_BATCH} keys a call`);
    await Promise.all(keys.map((k) => this.delete(k)));
    // A generation's outputs share a directory (outputs/gen_…/): once they are gone it goes too, so retention leaves
    // no empty directories behind. A directory still holding something is left.
    const dirs = new Set(keys.map((k) => dirname(this.path(k))).filter((d) => d !== this.root));
    await Promise.all([...dirs].map((d) => rmdir(d).catch(() => {})));
  }

  /** The directory can be written (a full or read-only disk fails here rather than in a generation). */
  async ping(): Promise<void> {
    await mkdir(this.root, { recursive: true });
    const probe = join(this.root, `.ready-${randomBytes(6).toString('hex')}`);
    await writeFile(probe, 'ok');
    await rm(probe, { force: true });
  }
}
