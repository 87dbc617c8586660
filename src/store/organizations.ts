import type { Plan } from '../domain/access.js';
import type { Queryable } from './db.js';

export interface OrganizationRow {
  id: string;
  name: string;
  plan: Plan;
  enterprise: boolean;
  paused: boolean;
  paused_at: Date | null;
  /** Why it is paused: `{kind: "anomaly", …}` from the detector, `{kind: "owner"}` from PATCH; null when running. */
  pause_reason: Record<string, unknown> | null;
  /** The last unpause: the anomaly detector judges only generations accepted from then on. */
  spend_window_from: Date | null;
  /** numeric: its text, e.g. "120.00"; null: no budget. */
  monthly_budget_usd: string | null;
  budget_action: 'notify' | 'block';
  created_at: Date;
}

export async function selectOrganization(q: Queryable, id: string): Promise<OrganizationRow | undefined> {
  const r = await q.query<OrganizationRow>('SELECT * FROM organizations WHERE id = $1', [id]);
  return r.rows[0];
}

export async function insertOrganizationRow(q: Queryable, o: { id: string; name: string; plan: Plan; enterprise: boolean }): Promise<void> {
  await q.query('INSERT INTO organizations (id, name, plan, enterprise) VALUES ($1, $2, $3, $4)', [o.id, o.name, o.plan, o.enterprise]);
}

export async function insertUser(q: Queryable, u: { id: string; organizationId: string; role: string; name: string }): Promise<void> {
  await q.query('INSERT INTO users (id, organization_id, role, name) VALUES ($1, $2, $3, $4)', [u.id, u.organizationId, u.role, u.name]);
}

/** Sets the plan, and the enterprise flag unless it is null (then it stays as it was). */
export async function updateOrganizationPlan(q: Queryable, id: string, plan: Plan, enterprise: boolean | null): Promise<OrganizationRow | undefined> {
  const r = await q.query<OrganizationRow>(
    'UPDATE organizations SET plan = $2, enterprise = coalesce($3, enterprise) WHERE id = $1 RETURNING *',
    [id, plan, enterprise],
  );
  return r.rows[0];
}

/**
 * Pauses (with its reason) or unpauses. An unpause of a paused organization
 * starts the anomaly detector's window afresh; unpausing one that runs
 * changes nothing, so it cannot be used to hide a burst from the detector.
 */
export async function updateOrganizationPaused(
  q: Queryable, id: string, paused: boolean, reason: Record<string, unknown> | null,
): Promise<OrganizationRow | undefined> {
  const r = await q.query<OrganizationRow>(
    `WITH o AS (
       UPDATE organizations SET paused = $2,
         paused_at = CASE WHEN NOT $2 THEN NULL WHEN paused THEN paused_at ELSE now() END,
         pause_reason = CASE WHEN NOT $2 THEN NULL WHEN paused THEN pause_reason ELSE $3::jsonb END,
         spend_window_from = CASE WHEN paused AND NOT $2 THEN now() ELSE spend_window_from END
       WHERE id = $1 RETURNING *),
     ${PARK_OR_RELEASE}
     SELECT * FROM o`,
    [id, paused, reason === null ? null : JSON.stringify(reason)],
  );
  return r.rows[0];
}

/**
 * A paused organization's queued jobs are parked (run_at 'infinity'), so the worker's due scan never meets them,
 * however many wait; an unpause makes them due now. Only unleased jobs are parked: a leased one keeps its lease's
 * end, so a job a node holds is never stranded. The claim's own check (store/jobs.ts) still passes over a job
 * accepted as the pause began, which this statement did not see. ($1 the organization, $2 paused.)
 */
const PARK_OR_RELEASE = `
     parked AS (
       UPDATE jobs j SET run_at = CASE WHEN $2 THEN 'infinity'::timestamptz ELSE now() END
       FROM generations g
       WHERE g.id = j.generation_id AND g.organization_id = $1 AND EXISTS (SELECT 1 FROM o)
         AND CASE WHEN $2 THEN j.lease_owner IS NULL AND g.status = 'queued' ELSE j.run_at = 'infinity'::timestamptz END
       RETURNING 1)`;

/** Sets the monthly budget and its action; each left as it is when undefined. */
export async function updateOrganizationBudget(
  q: Queryable,
  id: string,
  b: { monthlyBudgetUsd?: number | null | undefined; budgetAction?: 'notify' | 'block' | undefined },
): Promise<OrganizationRow | undefined> {
  const r = await q.query<OrganizationRow>(
    `UPDATE organizations SET monthly_budget_usd = CASE WHEN $2 THEN $3::numeric ELSE monthly_budget_usd END, budget_action = coalesce($4, budget_action)
     WHERE id = $1 RETURNING *`,
    [id, b.monthlyBudgetUsd !== undefined, b.monthlyBudgetUsd ?? null, b.budgetAction ?? null],
  );
  return r.rows[0];
}

/** Pauses a running organization; false if it was already paused, so only one of concurrent pausers sees true. */
export async function pauseIfRunning(q: Queryable, id: string, reason: Record<string, unknown>): Promise<boolean> {
  const r = await q.query(
    `WITH o AS (UPDATE organizations SET paused = true, paused_at = now(), pause_reason = $3::jsonb WHERE id = $1 AND NOT paused RETURNING 1),
     ${PARK_OR_RELEASE}
     SELECT 1 FROM o`,
    [id, true, JSON.stringify(reason)],
  );
  return r.rowCount === 1;
}

export async function countOrganizations(q: Queryable): Promise<number> {
  const r = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM organizations');
  return r.rows[0]?.n ?? 0;
}
