import { Decimal } from 'decimal.js';
import { ApiError } from '../errors.js';
import type { Queryable } from '../store/db.js';
import type { Principal } from './access.js';
import { USD_PER_CREDIT } from './credits.js';

/**
 * Usage glossary
 * - usage row: generations settled, credits charged and refunded, for one key
 *   of the grouping (a UTC day, a model slug or an API key id) in a date range.
 * - A generation counts once, on the UTC day its first attempt ended; credits
 *   count on the day they moved (a retry's charge on the retry's day).
 *   Cache hits cost nothing and are not counted.
 */
export type UsageGroup = 'day' | 'model' | 'api_key';

export interface UsageLine {
  key: string;
  generations: number;
  charged_credits: number;
  refunded_credits: number;
  cost_usd: number;
}

const MAX_RANGE_DAYS = 400;

function isoDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

function parseDay(value: string, param: string): Date {
  const d = new Date(`${value}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(d.getTime()) || isoDay(d) !== value) {
    throw new ApiError('parameter_invalid', `${param} must be a date as YYYY-MM-DD.`, param);
  }
  return d;
}

function line(key: string, generations: number, charged: number, refunded: number): UsageLine {
  return {
    key,
    generations,
    charged_credits: charged,
    refunded_credits: refunded,
    cost_usd: new Decimal(charged).mul(USD_PER_CREDIT).toNumber(),
  };
}

export async function getUsage(
  q: Queryable,
  principal: Principal,
  query: { group_by: UsageGroup; start?: string | undefined; end?: string | undefined },
  now: Date = new Date(),
) {
  const today = isoDay(now);
  const end = query.end ?? today;
  const start = query.start ?? `${today.slice(0, 7)}-01`;
  const startDay = parseDay(start, 'start');
  const endDay = parseDay(end, 'end');
  if (startDay > endDay) throw new ApiError('parameter_invalid', 'start must not be after end.', 'start');
  if ((endDay.getTime() - startDay.getTime()) / 86_400_000 > MAX_RANGE_DAYS) {
    throw new ApiError('parameter_invalid', `The range may span at most ${MAX_RANGE_DAYS} days.`, 'end');
  }
  const keyExpr = { day: "to_char(day, 'YYYY-MM-DD')", model: 'model', api_key: 'api_key_id' }[query.group_by];
  const r = await q.query<{ key: string; generations: string; charged: string; refunded: string }>(
    `SELECT ${keyExpr} AS key, sum(generations) AS generations, sum(charged_credits) AS charged, sum(refunded_credits) AS refunded
     FROM usage_rollups WHERE organization_id = $1 AND mode = $2 AND day BETWEEN $3::date AND $4::date
     GROUP BY 1 ORDER BY 1`,
    [principal.organizationId, principal.mode, start, end],
  );
  const data = r.rows.map((x) => line(x.key, Number(x.generations), Number(x.charged), Number(x.refunded)));
  const totals = data.reduce(
    (t, x) => ({ generations: t.generations + x.generations, charged: t.charged + x.charged_credits, refunded: t.refunded + x.refunded_credits }),
    { generations: 0, charged: 0, refunded: 0 },
  );
  const { key: _k, ...totalsLine } = line('', totals.generations, totals.charged, totals.refunded);
  return { object: 'usage' as const, group_by: query.group_by, start, end, data, totals: totalsLine };
}
