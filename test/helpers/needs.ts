import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What some tests need beyond Node and npm, as vitest tags (vitest.config.ts defines them): a test or suite tagged
 * with one whose need is missing is skipped, and the summary counts the skips by tag, so that a fresh machine's run
 * says how many tests did not run and why. Read from the environment when the config loads: one answer per run.
 */
export interface Need {
  name: string;
  /** What the tests need, as the summary prints it after a count: "12  need <description>". */
  description: string;
  skip: boolean;
}

/** Debian's PostgreSQL binaries, for a server of a test's own (test/helpers/private-postgres.ts). */
export function postgresBinDir(): string | null {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  for (const v of ['17', '16', '15', '14', '13']) if (existsSync(join(base, v, 'bin', 'initdb'))) return join(base, v, 'bin');
  return null;
}

export const NEEDS: Need[] = [
  { name: 'postgres', description: 'PostgreSQL (set TEST_DATABASE_URL)', skip: !process.env.TEST_DATABASE_URL },
  { name: 'redis', description: 'Redis (set TEST_REDIS_URL)', skip: !process.env.TEST_REDIS_URL },
  {
    name: 'private-postgres',
    description: "a PostgreSQL server of their own (Debian's PostgreSQL binaries, run as root)",
    skip: postgresBinDir() === null || process.getuid?.() !== 0,
  },
];
