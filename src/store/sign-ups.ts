import type { Queryable } from './db.js';

/** Sign-ups waiting for their email to be verified (0080_second_factor_and_sign_up.sql). */
export interface SignUpRow {
  id: string;
  email: string;
  email_key: string;
  password_hash: string;
  expires_at: Date;
}

/** Unverified sign-ups whose link expired, and with them their password hashes: deleted; answers how many. */
export async function deleteExpiredSignUps(q: Queryable, now: Date): Promise<number> {
  return (await q.query('DELETE FROM sign_ups WHERE verified_at IS NULL AND expires_at < $1', [now])).rowCount;
}

/** Keeps a sign-up, first clearing the unverified ones that expired. */
export async function insertSignUp(
  q: Queryable, s: { id: string; email: string; emailKey: string; passwordHash: string; tokenSha256: string; expiresAt: Date; now: Date },
): Promise<void> {
  await deleteExpiredSignUps(q, s.now);
  await q.query('INSERT INTO sign_ups (id, email, email_key, password_hash, token_sha256, expires_at) VALUES ($1, $2, $3, $4, $5, $6)', [
    s.id, s.email, s.emailKey, s.passwordHash, s.tokenSha256, s.expiresAt,
  ]);
}

/** Claims an unverified sign-up by its token (row-locked for the caller's transaction); null when unknown or used. */
export async function claimSignUp(q: Queryable, tokenSha256: string): Promise<SignUpRow | null> {
  const r = await q.query<SignUpRow>(
    'SELECT id, email, email_key, password_hash, expires_at FROM sign_ups WHERE token_sha256 = $1 AND verified_at IS NULL FOR UPDATE',
    [tokenSha256],
  );
  return r.rows[0] ?? null;
}

/** The sign-up made its account: its copy of the password hash goes (the account keeps its own). */
export async function markSignUpVerified(q: Queryable, id: string, accountId: string): Promise<void> {
  await q.query('UPDATE sign_ups SET verified_at = now(), account_id = $2, password_hash = NULL WHERE id = $1', [id, accountId]);
}
