import { newId } from '../ids.js';
import type { Queryable } from './db.js';
import { fannedOutUnlessHeard } from './events.js';
import type { GenerationRow, OutputRow } from './generations.js';

/** How an attempt ends. */
export interface AttemptEnd {
  status: 'succeeded' | 'failed' | 'canceled';
  charged: number;
  result: unknown;
  error: unknown;
  upstreamId: string | null;
  outputs: OutputRow[];
  /**
   * The generation's request as it is to be kept from now on, redacted by its organization's rules (the runner no
   * longer needs it as sent); absent: the stored request stays as it is.
   */
  record?: { prompt: string | null; params: Record<string, unknown> } | undefined;
  /** The version of the model's prices that priced the charge; absent: the one it was reserved at stays. */
  priceVersion?: string | null;
}

/** An attempt to finish: the generation as its runner knows it, and how the attempt ended. */
export interface Finishing {
  g: GenerationRow;
  end: AttemptEnd;
}

/**
 * One statement finishes attempts, one or many at once: each row of `x`
 * moves its generation from running to its end state and gates everything
 * else, so nothing happens twice and nothing happens to a generation canceled
 * meanwhile; the ledger rows are unique per attempt; the wallet will move by
 * what the ledger rows say (pending settlements, applied in batches). A
 * batch never holds two attempts of one generation.
 */
// The rows are found by ids given as parameters, one per slot (`IN ($3, $4, …)`, unused slots NULL), one statement
// text per slot count. With one slot (every finish but a batch's) each table is reached by its index whatever the
// planner knew of its size when it planned the statement. Found through the jsonb_to_recordset (assumed to hold 100
// rows) or an array of unknown length (10), a plan made while the tables were small scanned generations and jobs whole
// on every call for as long as it stayed cached, which without autovacuum is forever. A batch's plan is chosen by
// cost like any join: on tables still small enough to scan, it scans them until an ANALYZE replans it.
const finishSql = (slots: number): string => {
  const ids = Array.from({ length: slots }, (_, i) => `$${3 + i}`).join(', ');
  const comparisons = Array.from({ length: slots }, (_, i) => `$${3 + slots + i}`).join(', ');
  return `
WITH x AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb)
    AS x(id text, attempt int, status text, charged bigint, result jsonb, error jsonb, upstream_id text, evt text, cevt text, price_version text,
      redact boolean, prompt text, params jsonb)),
g AS (
  UPDATE generations SET status = x.status, charged_credits = charged_credits + x.charged,
    refunded_credits = refunded_credits + (price_credits - x.charged),
    result = coalesce(x.result, generations.result), error = x.error, upstream_id = coalesce(generations.upstream_id, x.upstream_id),
    completed_at = now(), version = version + 1, price_version = coalesce(x.price_version, generations.price_version),
    prompt = CASE WHEN x.redact THEN x.prompt ELSE generations.prompt END,
    params = CASE WHEN x.redact THEN x.params ELSE generations.params END,
    -- A redacted record is no cache entry: a repeat would be answered with what was kept, not what was made.
    cache_key = CASE WHEN x.redact THEN NULL ELSE generations.cache_key END
  FROM x WHERE generations.id IN (${ids}) AND generations.id = x.id AND generations.attempt = x.attempt
    AND generations.status IN ('queued', 'running')
  RETURNING generations.*, x.charged AS x_charged, x.evt AS x_evt, x.cevt AS x_cevt),
c AS (
  INSERT INTO ledger_entries (organization_id, kind, balance_delta, held_delta, reference, generation_id, api_key_id, model, modality)
  SELECT organization_id, 'charge', -x_charged, -x_charged, id || '#' || attempt, id, api_key_id, model, modality FROM g
  WHERE price_credits > 0 AND x_charged > 0
  ON CONFLICT (kind, reference) DO NOTHING RETURNING generation_id, balance_delta, held_delta),
r AS (
  INSERT INTO ledger_entries (organization_id, kind, balance_delta, held_delta, reference, generation_id, api_key_id, model, modality)
  SELECT organization_id, 'release', 0, -(price_credits - x_charged), id || '#' || attempt, id, api_key_id, model, modality FROM g
  WHERE price_credits - x_charged > 0
  ON CONFLICT (kind, reference) DO NOTHING RETURNING generation_id, balance_delta, held_delta),
m AS (SELECT generation_id, sum(balance_delta) AS b, sum(held_delta) AS h FROM (SELECT * FROM c UNION ALL SELECT * FROM r) y GROUP BY generation_id),
o AS (
  INSERT INTO generation_outputs (id, generation_id, position, type, mime, width, height, duration_s, blob_key, size_bytes, moderation_status)
  SELECT y.id, y.generation_id, y.position, y.type, y.mime, y.width, y.height, y.duration_s, y.blob_key, y.size_bytes, y.moderation_status
  FROM jsonb_to_recordset($2::jsonb) AS y(id text, generation_id text, position int, type text, mime text, width int, height int,
    duration_s text, blob_key text, size_bytes bigint, moderation_status text)
  WHERE y.generation_id IN (SELECT id FROM g)),
d AS (DELETE FROM jobs WHERE generation_id IN (${ids}) AND generation_id = ANY (ARRAY(SELECT id FROM g))),
e AS (
  INSERT INTO events (id, organization_id, mode, type, data, fanned_out_at)
  SELECT x_evt, organization_id, mode,
    CASE WHEN status = 'succeeded' THEN 'generation.completed' ELSE 'generation.failed' END,
    jsonb_build_object('generation_id', id, 'modality', modality, 'status', status, 'charged_credits', charged_credits)
      || CASE WHEN status = 'succeeded' THEN '{}'::jsonb
         ELSE jsonb_build_object('refunded_credits', refunded_credits, 'error', error) END
      || CASE WHEN comparison_id IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('comparison_id', comparison_id) END,
    ${fannedOutUnlessHeard('g.organization_id', 'g.mode')}
  FROM g WHERE status IN ('succeeded', 'failed')),
-- The wallet and usage rollup rows are one per organization (and day, model,
-- key): updating them here would serialize an organization's generations on
-- their locks until each commit's WAL flush. The effect is written as pending
-- settlements (one per organization, key and model in the batch) that a
-- settler applies in batches (credits.ts, settlePending).
-- Usage: a generation counts once (its first attempt); credits accumulate over attempts.
p AS (
  INSERT INTO wallet_pending (organization_id, balance_delta, held_delta, mode, day, model, modality, api_key_id,
    generations, charged_credits, refunded_credits, price_version)
  SELECT g.organization_id, sum(coalesce(m.b, 0)), sum(coalesce(m.h, 0)), g.mode, (now() AT TIME ZONE 'UTC')::date, g.model, g.modality, g.api_key_id,
    sum(CASE WHEN g.attempt = 1 THEN 1 ELSE 0 END), sum(CASE WHEN g.price_credits > 0 THEN g.x_charged ELSE 0 END), sum(g.price_credits - g.x_charged),
    coalesce(g.price_version, '')
  FROM g LEFT JOIN m ON m.generation_id = g.id
  GROUP BY g.organization_id, g.mode, g.model, g.modality, g.api_key_id, coalesce(g.price_version, '')),
-- A comparison child counts once, at the first terminal state of its first
-- attempt; the row lock on the comparison serializes siblings finishing together.
k AS (SELECT comparison_id, count(*)::int AS n, min(x_cevt) AS cevt FROM g WHERE comparison_id IS NOT NULL AND attempt = 1 GROUP BY comparison_id),
cmp AS (
  UPDATE comparisons SET remaining = remaining - k.n,
    status = CASE WHEN remaining = k.n THEN 'completed' ELSE 'running' END,
    completed_at = CASE WHEN remaining = k.n THEN now() END
  FROM k WHERE comparisons.id IN (${comparisons}) AND comparisons.id = k.comparison_id
  RETURNING comparisons.*, k.cevt),
ce AS (
  INSERT INTO events (id, organization_id, mode, type, data, fanned_out_at)
  SELECT cmp.cevt, cmp.organization_id, cmp.mode, 'comparison.completed',
    jsonb_build_object('comparison_id', cmp.id, 'status', 'completed',
      'generation_ids', (SELECT coalesce(jsonb_agg(z.id ORDER BY z.seq), '[]'::jsonb) FROM generations z WHERE z.comparison_id = cmp.id)),
    ${fannedOutUnlessHeard('cmp.organization_id', 'cmp.mode')}
  FROM cmp WHERE cmp.remaining = 0)
SELECT * FROM g`;
};
const SLOTS = [1, 2, 4, 8, 16, 32, 64, 128];
const finishSqlBySlots = new Map(SLOTS.map((n) => [n, finishSql(n)]));
/** The most attempts one finishing statement takes. */
export const MAX_FINISH_BATCH = SLOTS[SLOTS.length - 1]!;

/** The finishing statement for `attempts` attempts, and its number of id slots ($3 on: ids, then comparison ids). */
export function finishStatement(attempts: number): { sql: string; slots: number } {
  const slots = SLOTS.find((n) => n >= attempts);
  if (!slots) throw new Error(`at most ${MAX_FINISH_BATCH} attempts are finished at once`);
  return { sql: finishSqlBySlots.get(slots)!, slots };
}

/**
 * Runs the finishing statement for `items` (distinct generations) in one
 * round trip; for each item, the generation as finished, or null when it was
 * no longer running (canceled, finished by another runner).
 */
export async function chargeAndFinish(db: Queryable, items: readonly Finishing[]): Promise<Array<GenerationRow | null>> {
  if (items.length === 0) return [];
  // Two runs of one generation on one node (a lease that ran out under a run still going) may both reach a batch:
  // the statement finishes each generation once per call, so a second item of one id goes to a statement of its own.
  const ids = new Set<string>();
  const later: number[] = [];
  items.forEach((i, n) => (ids.has(i.g.id) ? later.push(n) : ids.add(i.g.id)));
  if (later.length > 0) {
    const first = items.filter((_, n) => !later.includes(n));
    const rows = await finishDistinct(db, first);
    const out = new Map<Finishing, GenerationRow | null>(first.map((i, n) => [i, rows[n]!]));
    for (const n of later) out.set(items[n]!, (await chargeAndFinish(db, [items[n]!]))[0]!);
    return items.map((i) => out.get(i)!);
  }
  return finishDistinct(db, items);
}

async function finishDistinct(db: Queryable, items: readonly Finishing[]): Promise<Array<GenerationRow | null>> {
  const attempts = items.map(({ g, end }) => ({
    id: g.id, attempt: g.attempt, status: end.status, charged: end.charged, result: end.result, error: end.error,
    upstream_id: end.upstreamId, evt: newId('evt'), cevt: newId('evt'), price_version: end.priceVersion ?? null,
    ...(end.record ? { redact: true, prompt: end.record.prompt, params: end.record.params } : {}),
  }));
  // Several rows are locked by one statement only here, for attempts this node ran and no other node finishes (a
  // node's batches run one at a time; a cancel finishes one attempt): no two statements can wait on each other.
  const { sql, slots } = finishStatement(items.length);
  const pad = (values: Array<string | null>) => [...values, ...Array<null>(slots - values.length).fill(null)];
  const r = await db.query<GenerationRow & { x_charged?: unknown; x_evt?: unknown; x_cevt?: unknown }>(sql, [
    JSON.stringify(attempts),
    JSON.stringify(items.flatMap((i) => i.end.outputs)),
    ...pad(items.map((i) => i.g.id)),
    ...pad(items.map((i) => i.g.comparison_id)),
  ]);
  const byId = new Map<string, GenerationRow>();
  for (const { x_charged: _c, x_evt: _e, x_cevt: _ce, ...row } of r.rows) byId.set(row.id, row);
  return items.map((i) => byId.get(i.g.id) ?? null);
}
