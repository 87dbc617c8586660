import type { Queryable } from './db.js';

/** A live (not revoked) key with a monthly budget, and what it has been charged since the month began. */
export interface BudgetedKeySpend {
  id: string;
  organization_id: string;
  mode: string;
  /** numeric, as a string */
  budget: string;
  /** credits, as a string (a sum) */
  spent: string;
}

/** Keys without usage since `monthStart` (YYYY-MM-DD) are left out: they cannot have reached a threshold. */
export async function budgetedKeysSpendSince(q: Queryable, monthStart: string): Promise<BudgetedKeySpend[]> {
  const r = await q.query<BudgetedKeySpend>(
    `SELECT k.id, k.organization_id, k.mode, k.monthly_budget_usd AS budget, sum(u.charged_credits) AS spent
     FROM api_keys k JOIN usage_rollups u ON u.api_key_id = k.id AND u.day >= $1::date
     WHERE k.monthly_budget_usd > 0 AND k.revoked_at IS NULL
     GROUP BY k.id, k.organization_id, k.mode, k.monthly_budget_usd`,
    [monthStart],
  );
  return r.rows;
}

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
