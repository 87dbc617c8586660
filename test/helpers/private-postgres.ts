import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { postgresBinDir } from './needs.js';
import { freePort } from './server.js';

/**
 * A PostgreSQL server of a test's own (initdb into a temporary directory, on a
 * free loopback port), for tests that stop, crash and restart the database:
 * the shared server on 5432 serves every other test file at the same time.
 * Needs Debian's PostgreSQL binaries and root (the server runs as `postgres`): tag the tests `private-postgres`.
 */
const run = promisify(execFile);

export interface PrivatePostgres {
  /** postgres://… of its `postgres` database. */
  url: string;
  /** A crash: every backend killed at once, then crash recovery on start. */
  crashAndRestart(downMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('no PostgreSQL binaries');
  const root = mkdtempSync(join(tmpdir(), 'mmgen-pg-'));
  chmodSync(root, 0o755);
  const data = join(root, 'data');
  mkdirSync(data);
  const { uid, gid } = await ids();
  chownSync(root, uid, gid);
  chownSync(data, uid, gid);
  const asPostgres = (cmd: string, args: string[]) => run('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args], { timeout: 60_000 });
  await asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const opts = `-p ${port} -c listen_addresses=127.0.0.1 -k ${root} -c max_connections=200`;
  const start = () => asPostgres('pg_ctl', ['-D', data, '-o', opts, '-l', join(root, 'log'), '-w', '-t', '60', 'start']);
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async crashAndRestart(downMs = 500) {
      await asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      await new Promise((r) => setTimeout(r, downMs));
      await start();
    },
    async stop() {
      await asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      rmSync(root, { recursive: true, force: true });
    },
  };
}

async function ids(): Promise<{ uid: number; gid: number }> {
  const [u, g] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(u.stdout.trim()), gid: Number(g.stdout.trim()) };
}
