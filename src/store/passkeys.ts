import type { Queryable } from './db.js';

/** Passkeys and the WebAuthn challenges under way (0041_passkeys.sql; second_factor: 0080). */
export type ChallengePurpose = 'registration' | 'sign_in' | 'second_factor';

export interface PasskeyRow {
  id: string;
  account_id: string;
  credential_id: string;
  public_key: string;
  counter: number;
  transports: string[];
  device_type: 'singleDevice' | 'multiDevice';
  backed_up: boolean;
  aaguid: string | null;
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

/** A passkey found by its credential id, with its person's email (what the sign-in brake counts against). */
export interface PasskeyForSignIn extends PasskeyRow {
  email: string;
}

// bigint comes back as a string from pg; a counter fits a JS number (the authenticator's is 32 bits).
const COLUMNS = `p.id, p.account_id, p.credential_id, p.public_key, p.counter::float8 AS counter, p.transports, p.device_type,
  p.backed_up, p.aaguid, p.name, p.created_at, p.last_used_at`;

export async function insertPasskey(
  q: Queryable,
  p: { id: string; accountId: string; credentialId: string; publicKey: string; counter: number; transports: string[]; deviceType: string; backedUp: boolean; aaguid: string | null; name: string },
): Promise<PasskeyRow | null> {
  const r = await q.query<PasskeyRow>(
    `INSERT INTO passkeys AS p (id, account_id, credential_id, public_key, counter, transports, device_type, backed_up, aaguid, name)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (credential_id) DO NOTHING RETURNING ${COLUMNS}`,
    [p.id, p.accountId, p.credentialId, p.publicKey, p.counter, p.transports, p.deviceType, p.backedUp, p.aaguid, p.name],
  );
  return r.rows[0] ?? null;
}

export async function listAccountPasskeys(q: Queryable, accountId: string): Promise<PasskeyRow[]> {
  const r = await q.query<PasskeyRow>(`SELECT ${COLUMNS} FROM passkeys p WHERE p.account_id = $1 ORDER BY p.created_at, p.id`, [accountId]);
  return r.rows;
}

export async function findPasskeyByCredentialId(q: Queryable, credentialId: string): Promise<PasskeyForSignIn | null> {
  const r = await q.query<PasskeyForSignIn>(
    `SELECT ${COLUMNS}, a.email FROM passkeys p JOIN accounts a ON a.id = p.account_id WHERE p.credential_id = $1`,
    [credentialId],
  );
  return r.rows[0] ?? null;
}

/** Deletes one of the person's passkeys; null when it is not theirs (or gone). */
export async function deleteAccountPasskey(q: Queryable, accountId: string, id: string): Promise<PasskeyRow | null> {
  const r = await q.query<PasskeyRow>(`DELETE FROM passkeys p WHERE p.id = $1 AND p.account_id = $2 RETURNING ${COLUMNS}`, [id, accountId]);
  return r.rows[0] ?? null;
}

/**
 * Records a sign-in's counter, only if it moved forward (or both are 0: an authenticator without a counter). False
 * when another sign-in already recorded this counter or a later one: the same assertion twice, or a cloned
 * authenticator, whichever won the race.
 */
export async function advancePasskeyCounter(q: Queryable, id: string, counter: number, backedUp: boolean): Promise<boolean> {
  const r = await q.query(
    `UPDATE passkeys SET counter = $2, backed_up = $3, last_used_at = now()
     WHERE id = $1 AND (counter < $2 OR (counter = 0 AND $2 = 0))`,
    [id, counter, backedUp],
  );
  return r.rowCount === 1;
}

/** Stores a challenge handed out, first clearing the ones that expired (so the table holds only ceremonies under way). */
export async function insertChallenge(
  q: Queryable, c: { challenge: string; purpose: ChallengePurpose; accountId: string | null; expiresAt: Date; now: Date },
): Promise<void> {
  await q.query('DELETE FROM webauthn_challenges WHERE expires_at < $1', [c.now]);
  await q.query('INSERT INTO webauthn_challenges (challenge, purpose, account_id, expires_at) VALUES ($1, $2, $3, $4)', [
    c.challenge, c.purpose, c.accountId, c.expiresAt,
  ]);
}

/** Takes (deletes) a challenge: it works once, whatever the verification's outcome. Null when unknown or already used. */
export async function takeChallenge(
  q: Queryable, challenge: string, purpose: ChallengePurpose,
): Promise<{ account_id: string | null; expires_at: Date } | null> {
  const r = await q.query<{ account_id: string | null; expires_at: Date }>(
    'DELETE FROM webauthn_challenges WHERE challenge = $1 AND purpose = $2 RETURNING account_id, expires_at',
    [challenge, purpose],
  );
  return r.rows[0] ?? null;
}
