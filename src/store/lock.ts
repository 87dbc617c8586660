import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
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
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
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
      try {
        unlinkSync(path); // stale: its process is gone
      } catch {
        // another process removed it first; try again
      }
    }
  }
  throw new Error(`could not lock ${dataDir}`);
}
