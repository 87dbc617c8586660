import { Decimal } from 'decimal.js';
import type { Logger } from 'pino';
import type { Settler } from '../billing/settler.js';
import type { Config } from '../config.js';
import type { Db } from '../store/db.js';
import { newId } from '../ids.js';
import { insertEvent } from '../store/events.js';
import { pauseIfRunning } from '../store/organizations.js';
import { recordAudit, systemOrigin } from './audit.js';
import { budgetedSpends, chargedSinceByRunningOrganization, insertBudgetNotice, insertMemberBudgetNotice, insertOrganizationBudgetNotice, liveChargedBetween } from '../store/spending.js';
import { USD_PER_CREDIT } from '../billing/credits.js';

/**
 * The checks read spend after bringing the rollups up to date (settler), write each notice or pause in its own
 * transaction (db), and log a pause; `config.anomaly` is the detector's thresholds.
 */
export interface SpendingPorts {
  config: Pick<Config, 'anomaly'>;
  db: Db;
  log: Logger;
  settler: Settler;
}

/**
 * Spending watch: budgets and the anomaly detector. Both run on a schedule,
 * off the request path, and both are idempotent (unique notices, conditional
 * pause), so any number of worker nodes may run them at once.
 *
 * - budget: a key's, a member's or the organization's monthly_budget_usd; usage.budget_threshold
 *   fires once per key (or member, or organization), calendar month (UTC) and threshold
 *   (50, 80, 100 %), whatever the budget's action. A `block` budget also refuses
 *   reservations, at the reservation itself (billing/budgets.ts), not here.
 * - anomaly: the last window's spend of an organization far above its trailing
 *   baseline (and above an absolute floor): the organization is paused (its
 *   queued work waits: store/jobs.ts claimDueJobsTakingUp), and usage.anomaly_detected
 *   fires. After an unpause the window starts at the unpause.
 */
export const BUDGET_THRESHOLDS = [50, 80, 100] as const;

export async function checkBudgets(deps: SpendingPorts, now: Date = new Date()): Promise<number> {
  // Spend is read from the rollups (and what is still pending): bring them up to date first.
  await deps.settler.sweep();
  const period = now.toISOString().slice(0, 7);
  const budgeted = await budgetedSpends(deps.db);
  let fired = 0;
  for (const b of budgeted) {
    const spentUsd = new Decimal(b.spent).mul(USD_PER_CREDIT);
    const budget = new Decimal(b.budget);
    for (const threshold of BUDGET_THRESHOLDS) {
      if (spentUsd.lt(budget.mul(threshold).div(100))) continue;
      const inserted = await deps.db.tx(async (q) => {
        const first = b.kind === 'api_key'
          ? await insertBudgetNotice(q, b.id, period, threshold)
          : b.kind === 'member'
            ? await insertMemberBudgetNotice(q, b.id, period, threshold)
            : await insertOrganizationBudgetNotice(q, b.id, period, threshold);
        if (!first) return false;
        // Whose budget: a key's has api_key_id, a member's member_id, the organization's neither (docs/contract-addenda.md).
        await insertEvent(q, {
          id: newId('evt'), organizationId: b.organization_id, mode: b.mode, type: 'usage.budget_threshold',
          data: {
            api_key_id: b.kind === 'api_key' ? b.id : null, member_id: b.kind === 'member' ? b.id : null,
            organization_id: b.organization_id, threshold_percent: threshold,
            monthly_budget_usd: budget.toNumber(), spent_usd: spentUsd.toNumber(), period,
          },
        });
        return true;
      });
      if (inserted) fired++;
    }
  }
  return fired;
}

export async function detectAnomalies(deps: SpendingPorts, now: Date = new Date()): Promise<string[]> {
  const { floorUsd, multiplier, windowMinutes, baselineDays } = deps.config.anomaly;
  const windowStart = new Date(now.getTime() - windowMinutes * 60_000);
  const today = now.toISOString().slice(0, 10);
  const baselineStart = new Date(now.getTime() - baselineDays * 86_400_000).toISOString().slice(0, 10);
  const recent = await chargedSinceByRunningOrganization(deps.db, windowStart);
  const paused: string[] = [];
  for (const row of recent) {
    const spentUsd = new Decimal(row.spent).mul(USD_PER_CREDIT);
    if (spentUsd.lt(floorUsd)) continue;
    const baselineCharged = await liveChargedBetween(deps.db, row.organization_id, baselineStart, today);
    // The trailing spend scaled to one window: what a usual window costs this organization.
    const baselineUsd = new Decimal(baselineCharged ?? 0).mul(USD_PER_CREDIT).mul(windowMinutes).div(baselineDays * 24 * 60);
    if (spentUsd.lte(baselineUsd.mul(multiplier))) continue;
    const finding = { window_minutes: windowMinutes, spent_usd: spentUsd.toNumber(), baseline_usd: baselineUsd.toDecimalPlaces(6).toNumber() };
    const done = await deps.db.tx(async (q) => {
      if (!(await pauseIfRunning(q, row.organization_id, { kind: 'anomaly', ...finding }))) return false;
      await recordAudit(q, {
        ...systemOrigin('spending-anomaly-detector'), organizationId: row.organization_id, action: 'organization.paused',
        target: { type: 'organization', id: row.organization_id }, before: { paused: false, pause_reason: null }, after: { paused: true, pause_reason: { kind: 'anomaly', ...finding } },
      });
      // The pause concerns the organization; its live events are where spending happens.
      await insertEvent(q, {
        id: newId('evt'), organizationId: row.organization_id, mode: 'live', type: 'usage.anomaly_detected',
        data: { organization_id: row.organization_id, ...finding, paused: true },
      });
      return true;
    });
    if (done) {
      paused.push(row.organization_id);
      deps.log.warn({ organizationId: row.organization_id, spentUsd: spentUsd.toNumber(), baselineUsd: baselineUsd.toNumber() }, 'spending anomaly: organization paused');
    }
  }
  return paused;
}
