import type { Mode } from '../domain/access.js';
import type { Queryable } from './db.js';

/** A password sign-in waiting for its passkey (0080_second_factor_and_sign_up.sql). */
export interface PendingSignInRow {
  account_id: string;
  organization_id: string | null;
  mode: Mode | null;
  expires_at: Date;
}

/** Keeps a pending sign-in, first clearing the expired ones (the table holds only sign-ins under way). */
export async function insertPendingSignIn(
  q: Queryable, p: { tokenSha256: string; accountId: string; organizationId: string | null; mode: Mode | null; expiresAt: Date; now: Date },
): Promise<void> {
  await q.query('DELETE FROM sign_in_pending WHERE expires_at < $1', [p.now]);
  await q.query('INSERT INTO sign_in_pending (token_sha256, account_id, organization_id, mode, expires_at) VALUES ($1, $2, $3, $4, $5)', [
    p.tokenSha256, p.accountId, p.organizationId, p.mode, p.expiresAt,
  ]);
}

/** Reads a pending sign-in without using it up (the passkey options step). */
export async function findPendingSignIn(q: Queryable, tokenSha256: string): Promise<PendingSignInRow | null> {
  const r = await q.query<PendingSignInRow>('SELECT account_id, organization_id, mode, expires_at FROM sign_in_pending WHERE token_sha256 = $1', [tokenSha256]);
  return r.rows[0] ?? null;
}

/** Takes (deletes) a pending sign-in: it is answered once, whatever the passkey's outcome. Null when unknown or used. */
export async function takePendingSignIn(q: Queryable, tokenSha256: string): Promise<PendingSignInRow | null> {
  const r = await q.query<PendingSignInRow>(
    'DELETE FROM sign_in_pending WHERE token_sha256 = $1 RETURNING account_id, organization_id, mode, expires_at',
    [tokenSha256],
  );
  return r.rows[0] ?? null;
}
