import type { Queryable } from './db.js';

/** The dimensions usage_rollups can be grouped by. */
export type UsageDimension = 'day' | 'model' | 'api_key' | 'modality' | 'price_version';

const KEY_EXPR: Record<UsageDimension, string> = {
  day: "to_char(day, 'YYYY-MM-DD')",
  model: 'model',
  api_key: 'api_key_id',
  modality: 'modality',
  price_version: 'price_version',
};

/** One (key, sub) group's sums; the sums are numeric sums, hence strings. */
export interface UsageRollupSums {
  key: string;
  sub: string;
  generations: string;
  charged: string;
  refunded: string;
}

/**
 * The rollups of one organization and mode from day `start` to day `end`
 * (YYYY-MM-DD, both included), summed per `groupBy` and, with `breakdown`, per
 * its value within each; ordered by key, then sub. Without a breakdown, sub is ''.
 */
export async function sumUsageRollups(
  q: Queryable,
  f: { organizationId: string; mode: string; start: string; end: string; groupBy: UsageDimension; breakdown?: UsageDimension | undefined },
): Promise<UsageRollupSums[]> {
  // Without a breakdown the second key is a constant, so one query shape serves both.
  const subExpr = f.breakdown ? KEY_EXPR[f.breakdown] : "''";
  const r = await q.query<UsageRollupSums>(
    `SELECT ${KEY_EXPR[f.groupBy]} AS key, ${subExpr} AS sub,
            sum(generations) AS generations, sum(charged_credits) AS charged, sum(refunded_credits) AS refunded
     FROM usage_rollups WHERE organization_id = $1 AND mode = $2 AND day BETWEEN $3::date AND $4::date
     GROUP BY 1, 2 ORDER BY 1, 2`,
    [f.organizationId, f.mode, f.start, f.end],
  );
  return r.rows;
}
