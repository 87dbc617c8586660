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

/**
 * A month's live spend in credits, as SQL: charged since the month began (the
 * usage rollups plus the settlements still pending) plus what is held now (the
 * price of generations still queued or running). `keyParam` null: the whole
 * organization. Read in one snapshot, it always agrees with the ledger: the
 * statement that finishes a generation ends its hold and writes its charge
 * (pending) together, and settling moves a pending row into the rollups in one step.
 */
function monthSpendSql(orgParam: string, keyParam: string | null): string {
  const key = keyParam === null ? '' : ` AND api_key_id = ${keyParam}`;
  const month = `date_trunc('month', now() AT TIME ZONE 'UTC')::date`;
  return `(SELECT coalesce(sum(charged_credits), 0) FROM usage_rollups WHERE organization_id = ${orgParam} AND mode = 'live' AND day >= ${month}${key})
    + (SELECT coalesce(sum(charged_credits), 0) FROM wallet_pending WHERE organization_id = ${orgParam} AND mode = 'live' AND day >= ${month}${key})
    + (SELECT coalesce(sum(price_credits), 0) FROM generations WHERE organization_id = ${orgParam} AND status IN ('queued', 'running')
         AND price_credits > 0 AND mode = 'live'${key})`;
}

/** The budgets of a key and its organization, and the month's spend (credits) of each. */
export interface BudgetState {
  key_budget_usd: string | null;
  key_action: 'notify' | 'block';
  key_spent: number;
  org_budget_usd: string | null;
  org_action: 'notify' | 'block';
  org_spent: number;
}

/**
 * Budgets and spends of a key and its organization. The blocking check reads
 * this after taking lockOrganizationForBudget in the same transaction, so that
 * this statement's snapshot already holds every reservation that passed the
 * check before it.
 */
export async function selectBudgetState(q: Queryable, organizationId: string, apiKeyId: string): Promise<BudgetState | undefined> {
  const r = await q.query<BudgetState>(
    `SELECT k.monthly_budget_usd AS key_budget_usd, k.budget_action AS key_action, (${monthSpendSql('$1', '$2')})::bigint AS key_spent,
       o.monthly_budget_usd AS org_budget_usd, o.budget_action AS org_action, (${monthSpendSql('$1', null)})::bigint AS org_spent
     FROM api_keys k JOIN organizations o ON o.id = k.organization_id WHERE k.id = $2 AND o.id = $1`,
    [organizationId, apiKeyId],
  );
  const row = r.rows[0];
  return row && { ...row, key_spent: Number(row.key_spent), org_spent: Number(row.org_spent) };
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
export async function keysMonthSpend(q: Queryable, organizationId: string, apiKeyIds: readonly string[]): Promise<Map<string, number>> {
  if (apiKeyIds.length === 0) return new Map();
  const r = await q.query<{ id: string; spent: string }>(
    `SELECT k.id, (${monthSpendSql('$1', 'k.id')})::bigint AS spent FROM unnest($2::text[]) AS k(id)`,
    [organizationId, apiKeyIds],
  );
  return new Map(r.rows.map((x) => [x.id, Number(x.spent)]));
}

/** The organization's month's live spend (credits). */
export async function organizationMonthSpend(q: Queryable, organizationId: string): Promise<number> {
  const r = await q.query<{ spent: string }>(`SELECT (${monthSpendSql('$1', null)})::bigint AS spent`, [organizationId]);
  return Number(r.rows[0]?.spent ?? 0);
}

/** Live keys and organizations with a budget, with the month's spend of each (credits), for the thresholds. */
export interface BudgetedSpend {
  kind: 'api_key' | 'organization';
  id: string;
  organization_id: string;
  mode: string;
  budget: string;
  spent: string;
}

export async function budgetedSpends(q: Queryable): Promise<BudgetedSpend[]> {
  const r = await q.query<BudgetedSpend>(
    `SELECT 'api_key' AS kind, k.id, k.organization_id, k.mode, k.monthly_budget_usd AS budget, (${monthSpendSql('k.organization_id', 'k.id')})::bigint AS spent
     FROM api_keys k WHERE k.monthly_budget_usd > 0 AND k.revoked_at IS NULL AND k.mode = 'live'
     UNION ALL
     SELECT 'organization', o.id, o.id, 'live', o.monthly_budget_usd, (${monthSpendSql('o.id', null)})::bigint
     FROM organizations o WHERE o.monthly_budget_usd > 0`,
  );
  return r.rows;
}

/** Records that an organization crossed a threshold in a period; false if already recorded. */
export async function insertOrganizationBudgetNotice(q: Queryable, organizationId: string, period: string, threshold: number): Promise<boolean> {
  const n = await q.query(
    'INSERT INTO organization_budget_notices (organization_id, period, threshold) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1',
    [organizationId, period, threshold],
  );
  return n.rowCount === 1;
}
