import type { AppDeps } from '../../deps.js';
import { newId } from '../../ids.js';
import { probeImage } from '../../media/index.js';
import { ProviderError, type ProviderAdapter, type UpstreamRequest, type UpstreamStatus } from '../../providers/types.js';
import { actualCredits, isTerminal, type AttemptEnd, type Finishing, type GenerationRow, type OutputRow } from './model.js';
import { clientRef, requestFor } from './upstream-request.js';
import { materializeOutputs, OutputError } from './outputs.js';
import { loadGeneration } from './store.js';
import type { EarlyDispatch } from './early-dispatch.js';
import type { Queryable } from '../../store/db.js';

/**
 * Runs one generation to a terminal state. Every step is safe to repeat, so a
 * worker that dies anywhere leaves a job that the next worker resumes:
 * - the upstream job id is recorded before mmgen waits on it, and a
 *   submission whose answer was lost is found again by its client reference;
 * - finishing is one statement that moves the generation out of `running`
 *   (so a concurrent cancel or a second runner finds nothing to do), settles
 *   the attempt's credits (once, by ledger reference), writes the outputs and
 *   deletes the job.
 */
const POLL_MIN_MS = 25;
const POLL_MAX_MS = 2000;

export interface RunResult {
  outcome: 'finished' | 'lost_lease' | 'not_runnable';
  /** The generation as this run left it, when this run finished it. */
  row?: GenerationRow;
  outputs?: OutputRow[];
  /**
   * With `replyEarly`: a file-less reply (chat) the provider answered at once,
   * handed back before it is settled; `settled` is the settlement in flight.
   */
  early?: { status: UpstreamStatus; settled: Promise<RunResult> };
}

export interface RunOptions {
  /** The generation as just accepted by this process (skips a read). */
  row?: GenerationRow;
  /** Nothing can have been submitted for it yet, so there is nothing to reconcile. */
  fresh?: boolean;
  /**
   * Hand a successful file-less reply back as soon as the provider answers and
   * settle it right after, off the caller's path (the reservation already
   * covers the charge, which never exceeds it).
   */
  replyEarly?: boolean;
  /** The provider call this request started alongside its reservation, if any: used instead of submitting to the first route. */
  early?: EarlyDispatch | undefined;
}

export async function upstreamRequest(deps: AppDeps, g: GenerationRow): Promise<UpstreamRequest> {
  const model = deps.catalog.find(g.model)!;
  let image: UpstreamRequest['image'];
  if (g.result?.input_blob) {
    const blob = await deps.blobs.get(g.result.input_blob);
    if (blob) {
      // The size was checked when the input was accepted; an upscale's output is held to input × scale.
      const size = await probeImage(blob.bytes, { decode: false });
      image = { bytes: blob.bytes, mime: blob.contentType, width: size?.width ?? 0, height: size?.height ?? 0 };
    }
  }
  return requestFor(model, g, upstreamModelFor(model, g.provider), image);
}

/** The model's name on a provider's route (the primary route's name for the simulator). */
function upstreamModelFor(model: UpstreamRequest['model'], provider: string | null): string {
  return (model.routes.find((r) => r.provider === provider) ?? model.routes[0]).upstream;
}

/** Where a generation's upstream work runs: the adapter, and the request as that adapter's route names the model. */
interface Placement {
  adapter: ProviderAdapter;
  req: UpstreamRequest;
}

/**
 * Submits to the model's routes in order (the one the generation was accepted
 * with first): a retryable failure before the provider accepted any work
 * (connection refused, 5xx, 429 beyond its wait, an open circuit) moves on to
 * the next route; anything else ends here.
 */
async function submitWithFallback(
  deps: AppDeps,
  g: GenerationRow,
  req: UpstreamRequest,
  early?: ReturnType<EarlyDispatch['take']>,
): Promise<Placement & { upstreamId: string; status?: UpstreamStatus | undefined }> {
  const routes = deps.providers.routes(g.mode, req.model, g.provider);
  // The first route's call may already be under way, started alongside the reservation; routed elsewhere after all
  // (or nowhere), it must not run on.
  const head = early && routes[0]?.adapter === early.adapter ? early : null;
  if (early && !head) early.abort.abort();
  if (routes.length === 0) throw new ProviderError('No provider for this model is configured on this node.', { kind: 'authentication', retryable: false, accepted: false, origin: 'gateway' });
  for (let i = 0; ; i++) {
    const route = routes[i]!;
    const routed = i === 0 && head ? head.req : { ...req, upstreamModel: route.upstreamModel };
    try {
      const submitted = await (i === 0 && head ? head.answer : route.adapter.submit(routed));
      return { adapter: route.adapter, req: routed, ...submitted };
    } catch (err) {
      const next = routes[i + 1];
      if (!(err instanceof ProviderError) || !err.canFallBack || !next) throw err;
      deps.log.warn({ generationId: g.id, provider: route.adapter.name, next: next.adapter.name, reason: err.message }, 'provider failed before accepting the work; trying the next route');
    }
  }
}

/** Records which provider serves the attempt now, when routing moved it (fallback, or a job adopted from another provider). */
export async function moveToProvider(deps: AppDeps, g: GenerationRow, provider: string): Promise<GenerationRow> {
  if (g.provider === provider) return g;
  await deps.db.query(`UPDATE generations SET provider = $2 WHERE id = $1 AND attempt = $3 AND status = 'running'`, [g.id, provider, g.attempt]);
  return { ...g, provider };
}

/** Extends this node's lease on the job; false when the job is gone or another node owns it. */
async function renewLease(deps: AppDeps, generationId: string): Promise<boolean> {
  const r = await deps.db.query(
    `UPDATE jobs SET lease_expires_at = now() + make_interval(secs => $3), run_at = now() + make_interval(secs => $3)
     WHERE generation_id = $1 AND lease_owner = $2`,
    [generationId, deps.nodeId, deps.config.jobLeaseMs / 1000],
  );
  return r.rowCount === 1;
}

/**
 * Keeps this node's lease on a job alive for as long as a run lasts (a slow
 * upstream call, a long stream), independently of any poll loop. `lost` turns
 * true once the job is gone or owned by another node.
 */
export function leaseHeartbeat(deps: AppDeps, generationId: string): { stop(): void; readonly lost: boolean } {
  let lost = false;
  const timer = setInterval(() => {
    renewLease(deps, generationId).then(
      (ok) => {
        if (!ok) lost = true;
      },
      () => {},
    );
  }, Math.max(50, Math.floor(deps.config.jobLeaseMs / 3)));
  timer.unref();
  return {
    stop: () => clearInterval(timer),
    get lost() {
      return lost;
    },
  };
}

/** Deletes a job only once its generation is terminal: a retry may have queued a new one meanwhile. */
export async function deleteJobIfTerminal(deps: AppDeps, generationId: string): Promise<void> {
  await deps.db.query(
    `DELETE FROM jobs WHERE generation_id = $1
       AND EXISTS (SELECT 1 FROM generations WHERE id = $1 AND status IN ('succeeded', 'failed', 'canceled'))`,
    [generationId],
  );
}

/** Consecutive failed polls (network, unknown errors) before the generation is failed and refunded. */
const MAX_POLL_ERRORS = 10;

export async function runGeneration(deps: AppDeps, generationId: string, opts: RunOptions = {}): Promise<RunResult> {
  const heartbeat = leaseHeartbeat(deps, generationId);
  try {
    return await run(deps, generationId, opts, heartbeat);
  } finally {
    heartbeat.stop();
    // An early provider call this run did not take up (it found the generation finished, canceled, …) is stopped.
    opts.early?.abort();
  }
}

async function run(deps: AppDeps, generationId: string, opts: RunOptions, heartbeat: { readonly lost: boolean }): Promise<RunResult> {
  let g = opts.row ?? (await loadGeneration(deps.db, generationId));
  if (!g) return { outcome: 'not_runnable' };
  if (isTerminal(g.status)) {
    await deleteJobIfTerminal(deps, generationId);
    return { outcome: 'finished' };
  }
  let fresh = opts.fresh === true;
  if (g.status === 'queued') {
    // Only the run that moves it out of `queued` knows nothing was submitted for a first attempt.
    const moved = await deps.db.query<GenerationRow>(
      `UPDATE generations SET status = 'running', started_at = coalesce(started_at, now()), runner_node = $2, version = version + 1
       WHERE id = $1 AND status = 'queued' RETURNING *`,
      [g.id, deps.nodeId],
    );
    if (moved.rows[0]) {
      g = moved.rows[0];
      fresh ||= g.attempt === 1;
    } else {
      g = await loadGeneration(deps.db, generationId);
      if (!g || isTerminal(g.status)) return { outcome: 'finished' };
      fresh = false;
    }
  }
  if (g.runner_node !== deps.nodeId) {
    await deps.db.query('UPDATE generations SET runner_node = $2 WHERE id = $1', [g.id, deps.nodeId]);
  }
  const baseReq = await upstreamRequest(deps, g);

  let upstreamId = g.upstream_id;
  let placement: Placement;
  if (upstreamId) {
    const adapter = deps.providers.byName(g.provider ?? '');
    if (!adapter) return finishFailed(deps, g, `The provider '${g.provider}' is not configured on this node.`);
    placement = { adapter, req: baseReq };
  } else {
    const adopted = fresh ? null : await reconcile(deps, g, baseReq);
    if (adopted) {
      placement = adopted;
      upstreamId = adopted.upstreamId;
    } else {
      let submitted: Awaited<ReturnType<typeof submitWithFallback>>;
      try {
        submitted = await submitWithFallback(deps, g, baseReq, fresh ? opts.early?.take() : null);
      } catch (err) {
        if (!(err instanceof ProviderError)) deps.log.warn({ err, generationId }, 'submission failed');
        return finishFailed(deps, g, err instanceof ProviderError ? err.message : 'The provider could not be reached.');
      }
      placement = submitted;
      upstreamId = submitted.upstreamId;
      g = await moveToProvider(deps, g, submitted.adapter.name);
      // Answered at once: nothing to wait on, so the id is recorded with the result.
      if (submitted.status && isTerminal(submitted.status.state)) {
        const early = opts.replyEarly === true && submitted.status.state === 'succeeded' && !submitted.status.outputs?.length;
        // Answered before it is finished, its finishing statement can wait to share a round trip; not a seeded one, which
        // the same request repeated at once must find in the cache.
        const settled = finishWith(deps, g, submitted.status, submitted.upstreamId, submitted.req, early && g.cache_key === null);
        if (early) return { outcome: 'finished', early: { status: submitted.status, settled } };
        return settled;
      }
    }
    g = await moveToProvider(deps, g, placement.adapter.name);
    const adapter = placement.adapter;
    const recorded = await deps.db.query(
      `UPDATE generations SET upstream_id = $2 WHERE id = $1 AND status = 'running' AND attempt = $3 AND upstream_id IS NULL`,
      [g.id, upstreamId, g.attempt],
    );
    if (recorded.rowCount !== 1) {
      const now = await loadGeneration(deps.db, generationId);
      if (now?.status === 'running' && now.attempt === g.attempt && now.upstream_id) {
        // Another runner recorded its own submission first: follow that one, stop ours.
        if (now.upstream_id !== upstreamId) await adapter.cancel(upstreamId).catch(() => {});
        upstreamId = now.upstream_id;
        const theirs = deps.providers.byName(now.provider ?? '');
        if (theirs) placement = { adapter: theirs, req: { ...baseReq, upstreamModel: upstreamModelFor(baseReq.model, now.provider) } };
      } else {
        // Canceled (or retried) while we submitted: the upstream job must not run on.
        await adapter.cancel(upstreamId).catch(() => {});
        return { outcome: 'finished' };
      }
    }
  }
  const { adapter, req } = placement;

  // Polls never wait longer than a quarter of the lease, so a run notices a lost lease or a cancel in time.
  const maxDelay = Math.min(POLL_MAX_MS, Math.max(POLL_MIN_MS, Math.floor(deps.config.jobLeaseMs / 4)));
  let delay = POLL_MIN_MS;
  let pollErrors = 0;
  const waitStarted = Date.now();
  for (;;) {
    let status: UpstreamStatus;
    try {
      status = await adapter.poll(upstreamId, req);
      pollErrors = 0;
    } catch (err) {
      if (err instanceof ProviderError && !err.opts.retryable) return finishFailed(deps, g, err.message);
      pollErrors++;
      deps.log.warn({ err, generationId, pollErrors }, 'poll failed');
      if (pollErrors >= MAX_POLL_ERRORS) {
        await adapter.cancel(upstreamId).catch(() => {});
        return finishFailed(deps, g, `The provider could not be asked about this job ${MAX_POLL_ERRORS} times in a row.`);
      }
      status = { state: 'running' };
    }
    if (isTerminal(status.state)) return finishWith(deps, g, status, upstreamId, req);
    if (Date.now() - waitStarted > deps.config.upstream.jobTimeoutMs) {
      // The job is left running upstream: its id is recorded, so a retry adopts its result if it finishes.
      return finishFailed(
        deps, g,
        `The provider did not finish this job within ${Math.round(deps.config.upstream.jobTimeoutMs / 1000)} s; it was refunded. ` +
          'Retrying it asks the provider about the same job first.',
      );
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, maxDelay);
    // Shut down past its grace period: the job goes back to the queue with its upstream id recorded.
    if (deps.lifecycle.halted) return { outcome: 'lost_lease' };
    const current = await loadGeneration(deps.db, generationId);
    if (!current || current.status !== 'running' || current.attempt !== g.attempt) {
      if (current?.status === 'canceled') await adapter.cancel(upstreamId).catch(() => {});
      return { outcome: 'finished' };
    }
    if (heartbeat.lost) return { outcome: 'lost_lease' };
  }
}

function finishWith(deps: AppDeps, g: GenerationRow, status: UpstreamStatus, upstreamId: string, req: UpstreamRequest, batched = false): Promise<RunResult> {
  if (status.state === 'succeeded') return finishSucceeded(deps, g, status, upstreamId, req, batched);
  return finishFailed(deps, g, status.error?.message ?? `The upstream job ended as ${status.state}.`, upstreamId);
}

/**
 * Before submitting, asks the providers about this generation's earlier
 * submissions: the current attempt's (a crash between submit and record) and
 * those of earlier attempts (a retry after a lost answer or a timed-out
 * wait), each on the provider that served it. An upstream job that succeeded
 * or is still running is adopted instead of paying twice.
 */
async function reconcile(deps: AppDeps, g: GenerationRow, req: UpstreamRequest): Promise<(Placement & { upstreamId: string }) | null> {
  for (let attempt = g.attempt; attempt >= 1; attempt--) {
    const earlier = g.upstream_history.find((h) => h.attempt === attempt);
    const provider = attempt === g.attempt ? g.provider : (earlier?.provider ?? null);
    const adapter = deps.providers.byName(provider ?? '');
    if (!adapter) continue;
    const id = earlier?.upstream_id ?? (await adapter.findByClientRef(clientRef(g.id, attempt)).catch(() => null));
    if (!id) continue;
    const routed = { ...req, upstreamModel: upstreamModelFor(req.model, provider) };
    const status = await adapter.poll(id, routed).catch(() => null);
    if (status && (status.state === 'succeeded' || status.state === 'running' || status.state === 'queued')) return { adapter, req: routed, upstreamId: id };
  }
  return null;
}

async function storeOutputs(deps: AppDeps, g: GenerationRow, status: UpstreamStatus, req: UpstreamRequest): Promise<OutputRow[]> {
  const files = await materializeOutputs(deps, req, status.outputs ?? []);
  const stored: OutputRow[] = [];
  try {
    for (const [position, out] of files.entries()) {
      const id = newId('out');
      const key = `outputs/${g.id}/${id}`;
      await deps.blobs.put(key, out.bytes, out.mime);
      stored.push({
        id,
        generation_id: g.id,
        position,
        type: out.type,
        mime: out.mime,
        width: out.width,
        height: out.height,
        duration_s: out.duration_s,
        blob_key: key,
        size_bytes: out.bytes.length,
        moderation_status: out.moderation,
      });
    }
  } catch (err) {
    // A partly stored set belongs to no output row.
    await deleteBlobs(deps, stored);
    throw err;
  }
  return stored;
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
    AS x(id text, attempt int, status text, charged bigint, result jsonb, error jsonb, upstream_id text, evt text, cevt text)),
g AS (
  UPDATE generations SET status = x.status, charged_credits = charged_credits + x.charged,
    refunded_credits = refunded_credits + (price_credits - x.charged),
    result = coalesce(x.result, generations.result), error = x.error, upstream_id = coalesce(generations.upstream_id, x.upstream_id),
    completed_at = now(), version = version + 1
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
  INSERT INTO events (id, organization_id, mode, type, data)
  SELECT x_evt, organization_id, mode,
    CASE WHEN status = 'succeeded' THEN 'generation.completed' ELSE 'generation.failed' END,
    jsonb_build_object('generation_id', id, 'modality', modality, 'status', status, 'charged_credits', charged_credits)
      || CASE WHEN status = 'succeeded' THEN '{}'::jsonb
         ELSE jsonb_build_object('refunded_credits', refunded_credits, 'error', error) END
      || CASE WHEN comparison_id IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('comparison_id', comparison_id) END
  FROM g WHERE status IN ('succeeded', 'failed')),
-- The wallet and usage rollup rows are one per organization (and day, model,
-- key): updating them here would serialize an organization's generations on
-- their locks until each commit's WAL flush. The effect is written as pending
-- settlements (one per organization, key and model in the batch) that a
-- settler applies in batches (credits.ts, settlePending).
-- Usage: a generation counts once (its first attempt); credits accumulate over attempts.
p AS (
  INSERT INTO wallet_pending (organization_id, balance_delta, held_delta, mode, day, model, modality, api_key_id,
    generations, charged_credits, refunded_credits)
  SELECT g.organization_id, sum(coalesce(m.b, 0)), sum(coalesce(m.h, 0)), g.mode, (now() AT TIME ZONE 'UTC')::date, g.model, g.modality, g.api_key_id,
    sum(CASE WHEN g.attempt = 1 THEN 1 ELSE 0 END), sum(CASE WHEN g.price_credits > 0 THEN g.x_charged ELSE 0 END), sum(g.price_credits - g.x_charged)
  FROM g LEFT JOIN m ON m.generation_id = g.id
  GROUP BY g.organization_id, g.mode, g.model, g.modality, g.api_key_id),
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
  INSERT INTO events (id, organization_id, mode, type, data)
  SELECT cmp.cevt, cmp.organization_id, cmp.mode, 'comparison.completed',
    jsonb_build_object('comparison_id', cmp.id, 'status', 'completed',
      'generation_ids', (SELECT coalesce(jsonb_agg(z.id ORDER BY z.seq), '[]'::jsonb) FROM generations z WHERE z.comparison_id = cmp.id))
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
export async function finishAttempts(db: Queryable, items: readonly Finishing[]): Promise<Array<GenerationRow | null>> {
  if (items.length === 0) return [];
  const attempts = items.map(({ g, end }) => ({
    id: g.id, attempt: g.attempt, status: end.status, charged: end.charged, result: end.result, error: end.error,
    upstream_id: end.upstreamId, evt: newId('evt'), cevt: newId('evt'),
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

/** What follows a finished attempt in this process: its settlement is scheduled, metrics and the log. */
function afterFinish(deps: AppDeps, row: GenerationRow, charged: number): void {
  deps.settler.pending(row.organization_id);
  deps.metrics.settled(row, charged);
  deps.log.info(
    { generationId: row.id, modality: row.modality, model: row.model, status: row.status, attempt: row.attempt, chargedCredits: charged },
    'generation finished',
  );
}

export async function finish(deps: AppDeps, g: GenerationRow, end: AttemptEnd, opts: { batched?: boolean } = {}): Promise<RunResult> {
  const [row] = opts.batched ? [await deps.finishes.add({ g, end })] : await finishAttempts(deps.db, [{ g, end }]);
  if (!row) return { outcome: 'finished' };
  afterFinish(deps, row, end.charged);
  return { outcome: 'finished', row, outputs: end.outputs };
}

export async function finishSucceeded(
  deps: AppDeps,
  g: GenerationRow,
  status: UpstreamStatus,
  upstreamId: string | null = null,
  req?: UpstreamRequest,
  batched = false,
): Promise<RunResult> {
  let outputs: OutputRow[] = [];
  if (status.outputs?.length) {
    try {
      outputs = await storeOutputs(deps, g, status, req ?? (await upstreamRequest(deps, g)));
    } catch (err) {
      if (!(err instanceof OutputError)) throw err;
      // The provider's job succeeded and its id is kept: a retry adopts it and downloads again.
      return finishFailed(deps, g, `The provider finished, but ${err.message}.`, upstreamId);
    }
  }
  const model = deps.catalog.find(g.model)!;
  const charged = actualCredits(model, g, { outputs, outputTokens: status.usage?.output_tokens });
  const result = {
    ...(g.result ?? {}),
    ...(status.message ? { message: status.message } : {}),
    ...(status.usage ? { usage: status.usage } : {}),
    ...(status.finish_reason ? { finish_reason: status.finish_reason } : {}),
  };
  const done = await finish(deps, g, { status: 'succeeded', charged, result, error: null, upstreamId, outputs }, { batched });
  // Nothing was recorded (canceled or finished meanwhile): the files belong to no output row.
  if (!done.row) await deleteBlobs(deps, outputs);
  return done;
}

async function deleteBlobs(deps: AppDeps, outputs: OutputRow[]): Promise<void> {
  await Promise.all(
    outputs.map((o) => deps.blobs.delete(o.blob_key).catch((err: unknown) => deps.log.warn({ err, key: o.blob_key }, 'could not delete an unrecorded output file'))),
  );
}

/** Fails an attempt (refunded); an upstream id is kept so that a retry can ask about that job. */
export async function finishFailed(deps: AppDeps, g: GenerationRow, message: string, upstreamId: string | null = null): Promise<RunResult> {
  return finish(deps, g, {
    status: 'failed', charged: 0, result: null, upstreamId, outputs: [],
    error: { type: 'upstream_error', code: 'upstream_error', message },
  });
}
