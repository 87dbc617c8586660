import type { Queryable } from './db.js';

/**
 * Keeps `candidate` as the URL-signing secret unless one is kept already, and
 * returns the kept one: of nodes starting together, the first to insert wins
 * and every node signs with its secret.
 */
export async function keepUrlSigningSecret(q: Queryable, candidate: string): Promise<string> {
  await q.query(`INSERT INTO settings (name, value) VALUES ('url_signing_secret', $1) ON CONFLICT (name) DO NOTHING`, [candidate]);
  const r = await q.query<{ value: string }>(`SELECT value FROM settings WHERE name = 'url_signing_secret'`);
  return r.rows[0]!.value;
}
