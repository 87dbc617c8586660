// One contender for a data directory lock (test/scenarios/data-dir-lock.test.ts):
// waits until a common instant, tries to lock, says whether it got it, holds it a moment.
import { acquireDataDirLock, DataDirLockedError } from '../../src/store/lock.js';

const [dir, startAt] = process.argv.slice(2);
while (Date.now() < Number(startAt)) {
  // spin: every contender tries within the same millisecond or so
}
try {
  const release = acquireDataDirLock(dir!);
  process.stdout.write('got\n');
  setTimeout(() => {
    release();
    process.exit(0);
  }, 1500);
} catch (err) {
  process.stdout.write(err instanceof DataDirLockedError ? `locked ${err.pid}\n` : `error ${String(err)}\n`);
  process.exit(0);
}
