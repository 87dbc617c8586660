import type { AppDeps } from '../../deps.js';
import { newId } from '../../ids.js';
import { probeImage } from '../../media/index.js';
import { ProviderError, type ProviderAdapter, type UpstreamRequest, type UpstreamStatus } from '../../providers/types.js';
import { actualCredits, isTerminal, type GenerationRow, type OutputRow } from './model.js';
import { materializeOutputs, OutputError } from './outputs.js';
import { loadGeneration } from './store.js';
import type { EarlyDispatch } from './early-dispatch.js';

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

export function clientRef(generationId: string, attempt: number): string {
  return `${generationId}#${attempt}`;
}

/** What the provider is asked for an attempt of a generation: its stored params, less `simulate`, which steers instead. */
export function requestFor(
  model: UpstreamRequest['model'],
  g: Pick<GenerationRow, 'id' | 'attempt' | 'modality' | 'params'>,
  upstreamModel: string,
  image?: UpstreamRequest['image'],
): UpstreamRequest {
  const { simulate, ...params } = g.params as Record<string, unknown> & { simulate?: UpstreamRequest['simulate'] };
  return { clientRef: clientRef(g.id, g.attempt), attempt: g.attempt, modality: g.modality, model, upstreamModel, params, image, simulate };
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
        const settled = finishWith(deps, g, submitted.status, submitted.upstreamId, submitted.req);
        if (opts.replyEarly && submitted.status.state === 'succeeded' && !submitted.status.outputs?.length) return { outcome: 'finished', early: { status: submitted.status, settled } };
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

function finishWith(deps: AppDeps, g: GenerationRow, status: UpstreamStatus, upstreamId: string, req: UpstreamRequest): Promise<RunResult> {
  if (status.state === 'succeeded') return finishSucceeded(deps, g, status, upstreamId, req);
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
 * One statement finishes an attempt: `g` moves the generation from running to
 * its end state and gates everything else, so nothing happens twice and
 * nothing happens to a generation canceled meanwhile; the ledger rows are
 * unique per attempt; the wallet will move by what the ledger rows say (a
 * pending settlement, applied in batches).
 */
const FINISH_SQL = `
WITH g AS (
  UPDATE generations SET status = $3, charged_credits = charged_credits + $4, refunded_credits = refunded_credits + (price_credits - $4),
    result = coalesce($5::jsonb, result), error = $6::jsonb, upstream_id = coalesce(upstream_id, $7),
    completed_at = now(), version = version + 1
  WHERE id = $1 AND attempt = $2 AND status IN ('queued', 'running')
  RETURNING *),
c AS (
  INSERT INTO ledger_entries (organization_id, kind, balance_delta, held_delta, reference, generation_id, api_key_id, model, modality)
  SELECT organization_id, 'charge', -$4, -$4, id || '#' || attempt, id, api_key_id, model, modality FROM g
  WHERE price_credits > 0 AND $4 > 0
  ON CONFLICT (kind, reference) DO NOTHING RETURNING organization_id, balance_delta, held_delta),
r AS (
  INSERT INTO ledger_entries (organization_id, kind, balance_delta, held_delta, reference, generation_id, api_key_id, model, modality)
  SELECT organization_id, 'release', 0, -(price_credits - $4), id || '#' || attempt, id, api_key_id, model, modality FROM g
  WHERE price_credits - $4 > 0
  ON CONFLICT (kind, reference) DO NOTHING RETURNING organization_id, balance_delta, held_delta),
m AS (SELECT organization_id, sum(balance_delta) AS b, sum(held_delta) AS h FROM (SELECT * FROM c UNION ALL SELECT * FROM r) x GROUP BY organization_id),
o AS (
  INSERT INTO generation_outputs (id, generation_id, position, type, mime, width, height, duration_s, blob_key, size_bytes, moderation_status)
  SELECT x.id, x.generation_id, x.position, x.type, x.mime, x.width, x.height, x.duration_s, x.blob_key, x.size_bytes, x.moderation_status
  FROM jsonb_to_recordset($8::jsonb) AS x(id text, generation_id text, position int, type text, mime text, width int, height int,
    duration_s text, blob_key text, size_bytes bigint, moderation_status text)
  WHERE EXISTS (SELECT 1 FROM g)),
d AS (DELETE FROM jobs WHERE generation_id = $1 AND EXISTS (SELECT 1 FROM g)),
e AS (
  INSERT INTO events (id, organization_id, mode, type, data)
  SELECT $9, organization_id, mode,
    CASE WHEN status = 'succeeded' THEN 'generation.completed' ELSE 'generation.failed' END,
    jsonb_build_object('generation_id', id, 'modality', modality, 'status', status, 'charged_credits', charged_credits)
      || CASE WHEN status = 'succeeded' THEN '{}'::jsonb
         ELSE jsonb_build_object('refunded_credits', refunded_credits, 'error', error) END
      || CASE WHEN comparison_id IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('comparison_id', comparison_id) END
  FROM g WHERE status IN ('succeeded', 'failed')),
-- The wallet and usage rollup rows are one per organization (and day, model,
-- key): updating them here would serialize an organization's generations on
-- their locks until each commit's WAL flush. The effect is written as a pending
-- settlement that a settler applies in batches (credits.ts, settlePending).
-- Usage: a generation counts once (its first attempt); credits accumulate over attempts.
p AS (
  INSERT INTO wallet_pending (organization_id, balance_delta, held_delta, mode, day, model, modality, api_key_id,
    generations, charged_credits, refunded_credits)
  SELECT g.organization_id, coalesce(m.b, 0), coalesce(m.h, 0), g.mode, (now() AT TIME ZONE 'UTC')::date, g.model, g.modality, g.api_key_id,
    CASE WHEN g.attempt = 1 THEN 1 ELSE 0 END, CASE WHEN g.price_credits > 0 THEN $4 ELSE 0 END, g.price_credits - $4
  FROM g LEFT JOIN m ON m.organization_id = g.organization_id),
-- A comparison child counts once, at the first terminal state of its first
-- attempt; the row lock on the comparison serializes siblings finishing together.
cmp AS (
  UPDATE comparisons SET remaining = remaining - 1,
    status = CASE WHEN remaining = 1 THEN 'completed' ELSE 'running' END,
    completed_at = CASE WHEN remaining = 1 THEN now() END
  FROM g WHERE comparisons.id = g.comparison_id AND g.attempt = 1
  RETURNING comparisons.*),
ce AS (
  INSERT INTO events (id, organization_id, mode, type, data)
  SELECT $10, cmp.organization_id, cmp.mode, 'comparison.completed',
    jsonb_build_object('comparison_id', cmp.id, 'status', 'completed',
      'generation_ids', (SELECT coalesce(jsonb_agg(x.id ORDER BY x.seq), '[]'::jsonb) FROM generations x WHERE x.comparison_id = cmp.id))
  FROM cmp WHERE cmp.remaining = 0)
SELECT * FROM g`;

export async function finish(
  deps: AppDeps,
  g: GenerationRow,
  end: { status: 'succeeded' | 'failed' | 'canceled'; charged: number; result: unknown; error: unknown; upstreamId: string | null; outputs: OutputRow[] },
): Promise<RunResult> {
  const r = await deps.db.query<GenerationRow>(FINISH_SQL, [
    g.id, g.attempt, end.status, end.charged,
    end.result === null ? null : JSON.stringify(end.result),
    end.error === null ? null : JSON.stringify(end.error),
    end.upstreamId, JSON.stringify(end.outputs), newId('evt'), newId('evt'),
  ]);
  const row = r.rows[0];
  if (!row) return { outcome: 'finished' };
  deps.settler.pending(row.organization_id);
  deps.metrics.settled(row, end.charged);
  deps.log.info(
    { generationId: row.id, modality: row.modality, model: row.model, status: row.status, attempt: row.attempt, chargedCredits: end.charged },
    'generation finished',
  );
  return { outcome: 'finished', row, outputs: end.outputs };
}

export async function finishSucceeded(
  deps: AppDeps,
  g: GenerationRow,
  status: UpstreamStatus,
  upstreamId: string | null = null,
  req?: UpstreamRequest,
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
  const done = await finish(deps, g, { status: 'succeeded', charged, result, error: null, upstreamId, outputs });
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
