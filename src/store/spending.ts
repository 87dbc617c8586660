import type { Queryable } from './db.js';

/** Records that a key crossed a threshold in a period; false if that was already recorded, so each notice fires once. */
export async function insertBudgetNotice(q: Queryable, apiKeyId: string, period: string, threshold: number): Promise<boolean> {
  const n = await q.query('INSERT INTO budget_notices (api_key_id, period, threshold) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1', [apiKeyId, period, threshold]);
  return n.rowCount === 1;
}

/**
 * Credits charged since `since` to each organization that is not paused (the
 * ledger, so settlements still pending count too). After an unpause only the
 * generations accepted from then on count: the queued ones that waited out the
 * pause are charged after it, but they are the burst already judged.
 */
export async function chargedSinceByRunningOrganization(q: Queryable, since: Date): Promise<{ organization_id: string; spent: string }[]> {
  const r = await q.query<{ organization_id: string; spent: string }>(
    `SELECT l.organization_id, -sum(l.balance_delta) AS spent FROM ledger_entries l JOIN organizations o ON o.id = l.organization_id
     WHERE l.kind = 'charge' AND l.created_at >= $1 AND NOT o.paused
       AND (o.spend_window_from IS NULL OR (l.created_at >= o.spend_window_from
         AND NOT EXISTS (SELECT 1 FROM generations g WHERE g.id = l.generation_id AND g.created_at < o.spend_window_from)))
     GROUP BY l.organization_id`,
    [since],
  );
  return r.rows;
}

/** Live credits charged to an organization from day `from` up to, not including, day `before` (YYYY-MM-DD); null if none. */
export async function liveChargedBetween(q: Queryable, organizationId: string, from: string, before: string): Promise<string | null> {
  const r = await q.query<{ charged: string | null }>(
    `SELECT sum(charged_credits) AS charged FROM usage_rollups WHERE organization_id = $1 AND mode = 'live' AND day >= $2::date AND day < $3::date`,
    [organizationId, from, before],
  );
  return r.rows[0]?.charged ?? null;
}

/** Whose spend monthSpendSql sums: the whole organization, one key, or every key of one member (revoked ones too). */
type Spender = null | { key: string } | { member: string };

/**
 * A month's live spend in credits, as SQL: charged since the month began (the
 * usage rollups plus the settlements still pending) plus what is held now (the
 * price of generations still queued or running). `of` null: the whole
 * organization. Read in one snapshot, it always agrees with the ledger: the
 * statement that finishes a generation ends its hold and writes its charge
 * (pending) together, and settling moves a pending row into the rollups in one step.
 * A member's is the sum over the keys they made and their dashboard session keys (a signed-in person's
 * generations are made with their session key), so it is what their keys' spends add up to.
 */
function monthSpendSql(orgParam: string, of: Spender): string {
  const key = of === null ? ''
    : 'key' in of ? ` AND api_key_id = ${of.key}`
    : ` AND api_key_id IN (SELECT mk.id FROM api_keys mk WHERE mk.user_id = ${of.member})`;
  const month = `date_trunc('month', now() AT TIME ZONE 'UTC')::date`;
  return `(SELECT coalesce(sum(charged_credits), 0) FROM usage_rollups WHERE organization_id = ${orgParam} AND mode = 'live' AND day >= ${month}${key})
    + (SELECT coalesce(sum(charged_credits), 0) FROM wallet_pending WHERE organization_id = ${orgParam} AND mode = 'live' AND day >= ${month}${key})
    + (SELECT coalesce(sum(price_credits), 0) FROM generations WHERE organization_id = ${orgParam} AND status IN ('queued', 'running')
         AND price_credits > 0 AND mode = 'live'${key})`;
}

/** The budgets of a key, its member and its organization, and the month's spend (credits) of each. */
export interface BudgetState {
  key_budget_usd: string | null;
  key_action: 'notify' | 'block';
  key_spent: number;
  member_id: string;
  member_budget_usd: string | null;
  member_action: 'notify' | 'block';
  /** 0 unless the member has a blocking budget: summing every key of a member is only worth it for the check. */
  member_spent: number;
  org_budget_usd: string | null;
  org_action: 'notify' | 'block';
  org_spent: number;
}

/**
 * Budgets and spends of a key, its member and its organization. The blocking check reads
 * this after taking lockOrganizationForBudget in the same transaction, so that
 * this statement's snapshot already holds every reservation that passed the
 * check before it (every key of the member is of the same organization, so takes the same lock).
 */
export async function selectBudgetState(q: Queryable, organizationId: string, apiKeyId: string): Promise<BudgetState | undefined> {
  const r = await q.query<BudgetState>(
    `SELECT k.monthly_budget_usd AS key_budget_usd, k.budget_action AS key_action, (${monthSpendSql('$1', { key: '$2' })})::bigint AS key_spent,
       u.id AS member_id, u.monthly_budget_usd AS member_budget_usd, u.budget_action AS member_action,
       (CASE WHEN u.budget_action = 'block' AND u.monthly_budget_usd IS NOT NULL THEN ${monthSpendSql('$1', { member: 'u.id' })} ELSE 0 END)::bigint AS member_spent,
       o.monthly_budget_usd AS org_budget_usd, o.budget_action AS org_action, (${monthSpendSql('$1', null)})::bigint AS org_spent
     FROM api_keys k JOIN users u ON u.id = k.user_id JOIN organizations o ON o.id = k.organization_id WHERE k.id = $2 AND o.id = $1`,
    [organizationId, apiKeyId],
  );
  const row = r.rows[0];
  return row && { ...row, key_spent: Number(row.key_spent), member_spent: Number(row.member_spent), org_spent: Number(row.org_spent) };
}

/**
 * Serializes an organization's budget-checked reservations (a transaction's
 * first statement; held until it ends). NO KEY UPDATE, so the foreign-key
 * checks of other requests' inserts (KEY SHARE) never wait on it.
 */
export async function lockOrganizationForBudget(q: Queryable, organizationId: string): Promise<void> {
  await q.query('SELECT 1 FROM organizations WHERE id = $1 FOR NO KEY UPDATE', [organizationId]);
}

/** The month's live spend (credits) of each of the given keys of an organization. */
export function keysMonthSpend(q: Queryable, organizationId: string, apiKeyIds: readonly string[]): Promise<Map<string, number>> {
  return eachMonthSpend(q, organizationId, apiKeyIds, (id) => ({ key: id }));
}

/** The month's live spend (credits) of each id, as `of` names the spender the id is. */
async function eachMonthSpend(q: Queryable, organizationId: string, ids: readonly string[], of: (id: string) => Exclude<Spender, null>): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const r = await q.query<{ id: string; spent: string }>(
    `SELECT x.id, (${monthSpendSql('$1', of('x.id'))})::bigint AS spent FROM unnest($2::text[]) AS x(id)`,
    [organizationId, ids],
  );
  return new Map(r.rows.map((x) => [x.id, Number(x.spent)]));
}

/** The organization's month's live spend (credits). */
export async function organizationMonthSpend(q: Queryable, organizationId: string): Promise<number> {
  const r = await q.query<{ spent: string }>(`SELECT (${monthSpendSql('$1', null)})::bigint AS spent`, [organizationId]);
  return Number(r.rows[0]?.spent ?? 0);
}

/** The month's live spend (credits) of each of the given members of an organization (all their keys). */
export function membersMonthSpend(q: Queryable, organizationId: string, memberIds: readonly string[]): Promise<Map<string, number>> {
  return eachMonthSpend(q, organizationId, memberIds, (id) => ({ member: id }));
}

/** Live keys, current members and organizations with a budget, with the month's spend of each (credits), for the thresholds. */
export interface BudgetedSpend {
  kind: 'api_key' | 'member' | 'organization';
  id: string;
  organization_id: string;
  mode: string;
  budget: string;
  spent: string;
}

export async function budgetedSpends(q: Queryable): Promise<BudgetedSpend[]> {
  const r = await q.query<BudgetedSpend>(
    `SELECT 'api_key' AS kind, k.id, k.organization_id, k.mode, k.monthly_budget_usd AS budget, (${monthSpendSql('k.organization_id', { key: 'k.id' })})::bigint AS spent
     FROM api_keys k WHERE k.monthly_budget_usd > 0 AND k.revoked_at IS NULL AND k.mode = 'live'
     UNION ALL
     SELECT 'member', u.id, u.organization_id, 'live', u.monthly_budget_usd, (${monthSpendSql('u.organization_id', { member: 'u.id' })})::bigint
     FROM users u WHERE u.monthly_budget_usd > 0 AND u.removed_at IS NULL
     UNION ALL
     SELECT 'organization', o.id, o.id, 'live', o.monthly_budget_usd, (${monthSpendSql('o.id', null)})::bigint
     FROM organizations o WHERE o.monthly_budget_usd > 0`,
  );
  return r.rows;
}

/** Records that a member crossed a threshold in a period; false if already recorded. */
export async function insertMemberBudgetNotice(q: Queryable, memberId: string, period: string, threshold: number): Promise<boolean> {
  const n = await q.query(
    'INSERT INTO member_budget_notices (user_id, period, threshold) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1',
    [memberId, period, threshold],
  );
  return n.rowCount === 1;
}

/** Records that an organization crossed a threshold in a period; false if already recorded. */
export async function insertOrganizationBudgetNotice(q: Queryable, organizationId: string, period: string, threshold: number): Promise<boolean> {
  const n = await q.query(
    'INSERT INTO organization_budget_notices (organization_id, period, threshold) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1',
    [organizationId, period, threshold],
  );
  return n.rowCount === 1;
}
