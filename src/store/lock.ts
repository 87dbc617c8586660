import { closeSync, linkSync, openSync, readFileSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * PGlite lets any number of processes open one data directory and corrupt it.
 * This lock file holds the owner's pid; a lock whose process is gone (killed
 * with -9, say) is stale and taken over at once.
 */
export class DataDirLockedError extends Error {
  constructor(readonly pid: number, readonly dataDir: string) {
    super(`The data directory ${dataDir} is in use by mmgen process ${pid}.`);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function lockPath(dataDir: string): string {
  return join(dataDir, 'mmgen.lock');
}

/** Returns the pid holding the lock, or null when nobody live holds it. */
export function lockHolder(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(lockPath(dataDir), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid) ? pid : null;
  } catch {
    return null;
  }
}

export function acquireDataDirLock(dataDir: string): () => void {
  const path = lockPath(dataDir);
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      // The lock appears with its pid already in it (written aside, then hard-linked into place,
      // which fails if the lock exists): an empty lock file, mid-write, would look stale to others.
      const aside = `${path}.${process.pid}`;
      writeFileSync(aside, String(process.pid), { mode: 0o600 });
      try {
        linkSync(aside, path);
      } finally {
        unlinkSync(aside);
      }
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(path, 'utf8').trim() === String(process.pid)) unlinkSync(path);
        } catch {
          // already gone
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = lockHolder(dataDir);
      if (holder !== null) throw new DataDirLockedError(holder, dataDir);
      removeStaleLock(dataDir);
    }
  }
  throw new Error(`could not lock ${dataDir}`);
}

/** A takeover left by a process that died in the middle of one (a few statements long) is this old at least. */
const TAKEOVER_STALE_MS = 10_000;

/**
 * Removes a lock whose process is gone. Two processes may find the same stale
 * lock at once; without care the second would remove the lock the first had
 * just made. So removals take turns through a second exclusive file, and a
 * lock is removed only while it is still the stale one (its holder dead).
 */
function removeStaleLock(dataDir: string): void {
  const takeover = `${lockPath(dataDir)}.takeover`;
  let fd: number;
  try {
    fd = openSync(takeover, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    try {
      if (Date.now() - statSync(takeover).mtimeMs > TAKEOVER_STALE_MS) unlinkSync(takeover);
    } catch {
      // gone meanwhile
    }
    sleepSync(20); // someone else is taking over: look again shortly
    return;
  }
  try {
    writeSync(fd, String(process.pid));
    closeSync(fd);
    if (lockHolder(dataDir) === null) {
      try {
        unlinkSync(lockPath(dataDir));
      } catch {
        // released by its holder meanwhile
      }
    }
  } finally {
    try {
      unlinkSync(takeover);
    } catch {
      // already gone
    }
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
