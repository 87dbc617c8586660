import type { Role } from '../domain/access.js';
import type { Queryable } from './db.js';

export interface SsoSettingsRow {
  organization_id: string;
  issuer: string;
  client_id: string;
  client_secret: string | null;
  auto_join_domains: string[];
  auto_join_role: Role;
  require_sso: boolean;
  break_glass_user: string | null;
  updated_at: Date;
}

export async function findSsoSettings(q: Queryable, organizationId: string): Promise<SsoSettingsRow | null> {
  const r = await q.query<SsoSettingsRow>('SELECT * FROM sso_connections WHERE organization_id = $1', [organizationId]);
  return r.rows[0] ?? null;
}

export async function upsertSsoSettings(q: Queryable, s: Omit<SsoSettingsRow, 'updated_at'>): Promise<SsoSettingsRow> {
  const r = await q.query<SsoSettingsRow>(
    `INSERT INTO sso_connections (organization_id, issuer, client_id, client_secret, auto_join_domains, auto_join_role, require_sso, break_glass_user)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (organization_id) DO UPDATE SET issuer = $2, client_id = $3, client_secret = $4, auto_join_domains = $5,
       auto_join_role = $6, require_sso = $7, break_glass_user = $8, updated_at = now()
     RETURNING *`,
    [s.organization_id, s.issuer, s.client_id, s.client_secret, s.auto_join_domains, s.auto_join_role, s.require_sso, s.break_glass_user],
  );
  return r.rows[0]!;
}

export async function deleteSsoSettings(q: Queryable, organizationId: string): Promise<boolean> {
  const r = await q.query('DELETE FROM sso_connections WHERE organization_id = $1', [organizationId]);
  return r.rowCount === 1;
}

export async function insertSsoFlow(q: Queryable, f: { state: string; organizationId: string; codeVerifier: string; nonce: string }): Promise<void> {
  await q.query('INSERT INTO sso_flows (state, organization_id, code_verifier, nonce) VALUES ($1, $2, $3, $4)', [
    f.state, f.organizationId, f.codeVerifier, f.nonce,
  ]);
}

/** Takes the flow (once: a replayed callback finds nothing); flows older than ten minutes are gone. */
export async function takeSsoFlow(q: Queryable, state: string): Promise<{ organization_id: string; code_verifier: string; nonce: string } | null> {
  await q.query(`DELETE FROM sso_flows WHERE created_at < now() - interval '10 minutes'`);
  const r = await q.query<{ organization_id: string; code_verifier: string; nonce: string }>(
    'DELETE FROM sso_flows WHERE state = $1 RETURNING organization_id, code_verifier, nonce',
    [state],
  );
  return r.rows[0] ?? null;
}

export async function findIdentity(q: Queryable, issuer: string, subject: string): Promise<string | null> {
  const r = await q.query<{ account_id: string }>('SELECT account_id FROM account_identities WHERE issuer = $1 AND subject = $2', [issuer, subject]);
  return r.rows[0]?.account_id ?? null;
}

export async function insertIdentity(q: Queryable, issuer: string, subject: string, accountId: string): Promise<void> {
  await q.query('INSERT INTO account_identities (issuer, subject, account_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [issuer, subject, accountId]);
}
