import { Decimal } from 'decimal.js';
import { ApiError } from '../errors.js';
import type { Queryable } from '../store/db.js';
import { sumUsageRollups } from '../store/usage.js';
import type { Principal } from './access.js';
import { settlePending, USD_PER_CREDIT } from '../billing/credits.js';

/**
 * Usage glossary
 * - usage row: generations settled, credits charged and refunded, for one key
 *   of the grouping (a UTC day, a model slug or an API key id) in a date range.
 * - A generation counts once, on the UTC day its first attempt ended; credits
 *   count on the day they moved (a retry's charge on the retry's day).
 *   Cache hits cost nothing and are not counted.
 * - price_version: the version of the model's prices a generation was charged at (billing/pricing.ts,
 *   priceVersion); '' for generations settled before versions were kept.
 */
export const USAGE_GROUPS = ['day', 'model', 'api_key', 'modality', 'price_version'] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

export interface UsageLine {
  key: string;
  generations: number;
  charged_credits: number;
  refunded_credits: number;
  cost_usd: number;
  /** With `breakdown`: the same numbers split by a second dimension (e.g. each day by modality). */
  breakdown?: UsageLine[];
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
  query: { group_by: UsageGroup; breakdown?: UsageGroup | undefined; start?: string | undefined; end?: string | undefined },
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
  if (query.breakdown !== undefined && query.breakdown === query.group_by) {
    throw new ApiError('parameter_invalid', 'breakdown must differ from group_by.', 'breakdown');
  }
  // Generations finished a moment ago may still be pending settlements: apply them, so usage agrees with the ledger.
  await settlePending(q, principal.organizationId);
  const rows = await sumUsageRollups(q, {
    organizationId: principal.organizationId, mode: principal.mode, start, end, groupBy: query.group_by, breakdown: query.breakdown,
  });
  // Rows arrive ordered by key, so each key's parts are consecutive.
  const groups = new Map<string, UsageLine[]>();
  for (const x of rows) {
    const parts = groups.get(x.key) ?? [];
    parts.push(line(x.sub, Number(x.generations), Number(x.charged), Number(x.refunded)));
    groups.set(x.key, parts);
  }
  const data = [...groups].map(([key, parts]) => {
    const sum = (f: (l: UsageLine) => number) => parts.reduce((t, p) => t + f(p), 0);
    const total = line(key, sum((p) => p.generations), sum((p) => p.charged_credits), sum((p) => p.refunded_credits));
    return query.breakdown ? { ...total, breakdown: parts } : total;
  });
  const totals = data.reduce(
    (t, x) => ({ generations: t.generations + x.generations, charged: t.charged + x.charged_credits, refunded: t.refunded + x.refunded_credits }),
    { generations: 0, charged: 0, refunded: 0 },
  );
  const { key: _k, ...totalsLine } = line('', totals.generations, totals.charged, totals.refunded);
  return {
    object: 'usage' as const,
    group_by: query.group_by,
    ...(query.breakdown ? { breakdown: query.breakdown } : {}),
    start,
    end,
    data,
    totals: totalsLine,
  };
}
