import { Decimal } from 'decimal.js';
import type { AppDeps } from '../deps.js';
import { newId } from '../ids.js';
import { USD_PER_CREDIT } from './credits.js';

/**
 * Spending watch: budgets and the anomaly detector. Both run on a schedule,
 * off the request path, and both are idempotent (unique notices, conditional
 * pause), so any number of worker nodes may run them at once.
 *
 * - budget: a key's monthly_budget_usd; usage.budget_threshold fires once per
 *   key, calendar month (UTC) and threshold (50, 80, 100 %). Budgets notify;
 *   they never block.
 * - anomaly: the last window's spend of an organization far above its trailing
 *   baseline (and above an absolute floor): the organization is paused, and
 *   usage.anomaly_detected fires.
 */
export const BUDGET_THRESHOLDS = [50, 80, 100] as const;

export async function checkBudgets(deps: AppDeps, now: Date = new Date()): Promise<number> {
  // Spend is read from the rollups: bring them up to date first.
  await deps.settler.sweep();
  const period = now.toISOString().slice(0, 7);
  const monthStart = `${period}-01`;
  const r = await deps.db.query<{ id: string; organization_id: string; mode: string; budget: string; spent: string }>(
    `SELECT k.id, k.organization_id, k.mode, k.monthly_budget_usd AS budget, sum(u.charged_credits) AS spent
     FROM api_keys k JOIN usage_rollups u ON u.api_key_id = k.id AND u.day >= $1::date
     WHERE k.monthly_budget_usd > 0 AND k.revoked_at IS NULL
     GROUP BY k.id, k.organization_id, k.mode, k.monthly_budget_usd`,
    [monthStart],
  );
  let fired = 0;
  for (const k of r.rows) {
    const spentUsd = new Decimal(k.spent).mul(USD_PER_CREDIT);
    const budget = new Decimal(k.budget);
    for (const threshold of BUDGET_THRESHOLDS) {
      if (spentUsd.lt(budget.mul(threshold).div(100))) continue;
      const inserted = await deps.db.tx(async (q) => {
        const n = await q.query('INSERT INTO budget_notices (api_key_id, period, threshold) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1', [k.id, period, threshold]);
        if (n.rowCount !== 1) return false;
        await q.query('INSERT INTO events (id, organization_id, mode, type, data) VALUES ($1, $2, $3, $4, $5)', [
          newId('evt'), k.organization_id, k.mode, 'usage.budget_threshold',
          JSON.stringify({ api_key_id: k.id, threshold_percent: threshold, monthly_budget_usd: budget.toNumber(), spent_usd: spentUsd.toNumber(), period }),
        ]);
        return true;
      });
      if (inserted) fired++;
    }
  }
  return fired;
}

export async function detectAnomalies(deps: AppDeps, now: Date = new Date()): Promise<string[]> {
  const { floorUsd, multiplier, windowMinutes, baselineDays } = deps.config.anomaly;
  const windowStart = new Date(now.getTime() - windowMinutes * 60_000);
  const today = now.toISOString().slice(0, 10);
  const baselineStart = new Date(now.getTime() - baselineDays * 86_400_000).toISOString().slice(0, 10);
  const recent = await deps.db.query<{ organization_id: string; spent: string }>(
    `SELECT l.organization_id, -sum(l.balance_delta) AS spent FROM ledger_entries l JOIN organizations o ON o.id = l.organization_id
     WHERE l.kind = 'charge' AND l.created_at >= $1 AND NOT o.paused GROUP BY l.organization_id`,
    [windowStart],
  );
  const paused: string[] = [];
  for (const row of recent.rows) {
    const spentUsd = new Decimal(row.spent).mul(USD_PER_CREDIT);
    if (spentUsd.lt(floorUsd)) continue;
    const base = await deps.db.query<{ charged: string | null }>(
      `SELECT sum(charged_credits) AS charged FROM usage_rollups WHERE organization_id = $1 AND mode = 'live' AND day >= $2::date AND day < $3::date`,
      [row.organization_id, baselineStart, today],
    );
    // The trailing spend scaled to one window: what a usual window costs this organization.
    const baselineUsd = new Decimal(base.rows[0]?.charged ?? 0).mul(USD_PER_CREDIT).mul(windowMinutes).div(baselineDays * 24 * 60);
    if (spentUsd.lte(baselineUsd.mul(multiplier))) continue;
    const done = await deps.db.tx(async (q) => {
      const p = await q.query('UPDATE organizations SET paused = true, paused_at = now() WHERE id = $1 AND NOT paused RETURNING 1', [row.organization_id]);
      if (p.rowCount !== 1) return false;
      // The pause concerns the organization; its live events are where spending happens.
      await q.query('INSERT INTO events (id, organization_id, mode, type, data) VALUES ($1, $2, $3, $4, $5)', [
        newId('evt'), row.organization_id, 'live', 'usage.anomaly_detected',
        JSON.stringify({ organization_id: row.organization_id, window_minutes: windowMinutes, spent_usd: spentUsd.toNumber(), baseline_usd: baselineUsd.toDecimalPlaces(6).toNumber(), paused: true }),
      ]);
      return true;
    });
    if (done) {
      paused.push(row.organization_id);
      deps.log.warn({ organizationId: row.organization_id, spentUsd: spentUsd.toNumber(), baselineUsd: baselineUsd.toNumber() }, 'spending anomaly: organization paused');
    }
  }
  return paused;
}
