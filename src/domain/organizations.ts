import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import type { Db, Queryable } from '../store/db.js';
import type { Plan } from './access.js';
import { insertApiKey } from './api-keys.js';
import { topUp, type Wallet, getWallet } from './credits.js';

/**
 * Organization glossary
 * - organization: the tenant. It owns one wallet, its users and their keys.
 * - plan: free, pro, studio or team; sets rate limits and comparison width.
 * - enterprise: a flag that unlocks per-key IP allowlists.
 * - paused: set by the spending anomaly detector; credit-consuming requests are
 *   refused until an operator or an owner key unpauses.
 */
export interface OrganizationView {
  id: string;
  object: 'organization';
  name: string;
  plan: Plan;
  enterprise: boolean;
  paused: boolean;
  created_at: string;
}

interface OrgRow {
  id: string;
  name: string;
  plan: Plan;
  enterprise: boolean;
  paused: boolean;
  created_at: Date;
}

function toView(r: OrgRow): OrganizationView {
  return { id: r.id, object: 'organization', name: r.name, plan: r.plan, enterprise: r.enterprise, paused: r.paused, created_at: r.created_at.toISOString() };
}

export async function getOrganization(q: Queryable, id: string): Promise<OrganizationView> {
  const r = await q.query<OrgRow>('SELECT * FROM organizations WHERE id = $1', [id]);
  if (!r.rows[0]) throw new ApiError('resource_not_found', `No such organization: '${id}'`, 'id');
  return toView(r.rows[0]);
}

export interface CreatedOrganization {
  organization: { id: string; name: string; plan: Plan; enterprise: boolean };
  user: { id: string; role: 'owner' };
  keys: { live: string; test: string };
  wallet: Wallet;
}

/** An organization with its owner, its wallet (with `credits` topped up) and one live and one test owner key. */
export async function createOrganization(
  db: Db,
  input: { name: string; plan: Plan; enterprise: boolean; credits: number },
): Promise<CreatedOrganization> {
  return db.tx((q) => insertOrganization(q, input));
}

/** createOrganization inside a transaction the caller holds. */
export async function insertOrganization(
  q: Queryable,
  input: { name: string; plan: Plan; enterprise: boolean; credits: number },
): Promise<CreatedOrganization> {
  const orgId = newId('org');
  const userId = newId('usr');
  await q.query('INSERT INTO organizations (id, name, plan, enterprise) VALUES ($1, $2, $3, $4)', [orgId, input.name, input.plan, input.enterprise]);
  await q.query('INSERT INTO users (id, organization_id, role, name) VALUES ($1, $2, $3, $4)', [userId, orgId, 'owner', 'owner']);
  await q.query('INSERT INTO wallets (organization_id) VALUES ($1)', [orgId]);
  const keyInput = { organizationId: orgId, userId, role: 'owner' as const, scopes: [], ipAllowlist: [], monthlyBudgetUsd: null };
  const live = await insertApiKey(q, { ...keyInput, name: 'Owner key (live)', mode: 'live' });
  const test = await insertApiKey(q, { ...keyInput, name: 'Owner key (test)', mode: 'test' });
  const wallet = input.credits > 0
    ? await topUp(q, { organizationId: orgId, credits: input.credits, reference: `org-create:${orgId}`, note: 'initial credits' })
    : await getWallet(q, orgId);
  return {
    organization: { id: orgId, name: input.name, plan: input.plan, enterprise: input.enterprise },
    user: { id: userId, role: 'owner' },
    keys: { live: live.secret, test: test.secret },
    wallet,
  };
}

export async function setPlan(q: Queryable, id: string, plan: Plan, enterprise?: boolean): Promise<OrganizationView> {
  const r = await q.query<OrgRow>(
    'UPDATE organizations SET plan = $2, enterprise = coalesce($3, enterprise) WHERE id = $1 RETURNING *',
    [id, plan, enterprise ?? null],
  );
  if (!r.rows[0]) throw new ApiError('resource_not_found', `No such organization: '${id}'`, 'id');
  return toView(r.rows[0]);
}

export async function setPaused(q: Queryable, id: string, paused: boolean): Promise<OrganizationView> {
  const r = await q.query<OrgRow>(
    'UPDATE organizations SET paused = $2, paused_at = CASE WHEN $2 THEN now() ELSE NULL END WHERE id = $1 RETURNING *',
    [id, paused],
  );
  if (!r.rows[0]) throw new ApiError('resource_not_found', `No such organization: '${id}'`, 'id');
  return toView(r.rows[0]);
}

export async function countOrganizations(q: Queryable): Promise<number> {
  const r = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM organizations');
  return r.rows[0]?.n ?? 0;
}
