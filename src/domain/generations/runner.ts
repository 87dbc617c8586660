import type { AppDeps } from '../../deps.js';
import { newId } from '../../ids.js';
import { mimeToOutputType } from '../../media/index.js';
import { ProviderError, type ProviderAdapter, type UpstreamRequest, type UpstreamStatus } from '../../providers/types.js';
import { actualCredits, isTerminal, type GenerationRow, type OutputRow } from './model.js';
import { loadGeneration } from './store.js';

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
}

export function clientRef(generationId: string, attempt: number): string {
  return `${generationId}#${attempt}`;
}

export async function upstreamRequest(deps: AppDeps, g: GenerationRow): Promise<UpstreamRequest> {
  const model = deps.catalog.find(g.model)!;
  const { simulate, ...params } = g.params as Record<string, unknown> & { simulate?: UpstreamRequest['simulate'] };
  let image: UpstreamRequest['image'];
  if (g.result?.input_blob) {
    const blob = await deps.blobs.get(g.result.input_blob);
    if (blob) image = { bytes: blob.bytes, mime: blob.contentType, width: 0, height: 0 };
  }
  const route = model.routes.find((r) => r.provider === g.provider) ?? model.routes[0];
  return { clientRef: clientRef(g.id, g.attempt), attempt: g.attempt, modality: g.modality, model, upstreamModel: route.upstream, params, image, simulate };
}

/** Extends this node's lease on the job; false when the job is gone or another node owns it. */
async function renewLease(deps: AppDeps, generationId: string): Promise<boolean> {
  const r = await deps.db.query(
    `UPDATE jobs SET lease_expires_at = now() + make_interval(secs => $3) WHERE generation_id = $1 AND lease_owner = $2`,
    [generationId, deps.nodeId, deps.config.jobLeaseMs / 1000],
  );
  return r.rowCount === 1;
}

/**
 * @param opts.row the generation as just accepted by this process (skips a read)
 * @param opts.fresh nothing can have been submitted for it yet, so there is nothing to reconcile
 */
export async function runGeneration(deps: AppDeps, generationId: string, opts: { row?: GenerationRow; fresh?: boolean } = {}): Promise<RunResult> {
  let g = opts.row ?? (await loadGeneration(deps.db, generationId));
  if (!g) return { outcome: 'not_runnable' };
  if (isTerminal(g.status)) {
    await deps.db.query('DELETE FROM jobs WHERE generation_id = $1', [generationId]);
    return { outcome: 'finished' };
  }
  const adapter = deps.providers.byName(g.provider ?? '');
  if (!adapter) return finishFailed(deps, g, `The provider '${g.provider}' is not configured on this node.`);
  // Nothing is submitted before a generation leaves `queued`, so a first attempt this run moves out of it has nothing to reconcile.
  let fresh = opts.fresh === true || (g.status === 'queued' && g.attempt === 1);
  if (g.status === 'queued' || g.runner_node !== deps.nodeId) {
    const r = await deps.db.query<GenerationRow>(
      `UPDATE generations SET status = 'running', started_at = coalesce(started_at, now()), runner_node = $2,
         version = version + CASE WHEN status = 'queued' THEN 1 ELSE 0 END
       WHERE id = $1 AND status IN ('queued', 'running') RETURNING *`,
      [g.id, deps.nodeId],
    );
    if (!r.rows[0]) return { outcome: 'finished' };
    if (r.rows[0].version !== g.version + (g.status === 'queued' ? 1 : 0)) fresh = false; // someone else moved it meanwhile
    g = r.rows[0];
  }
  const req = await upstreamRequest(deps, g);

  let upstreamId = g.upstream_id;
  if (!upstreamId) {
    upstreamId = fresh ? null : await reconcile(adapter, g, req);
    if (!upstreamId) {
      let submitted: { upstreamId: string; status?: UpstreamStatus };
      try {
        submitted = await adapter.submit(req);
      } catch (err) {
        if (!(err instanceof ProviderError)) deps.log.warn({ err, generationId }, 'submission failed');
        return finishFailed(deps, g, err instanceof ProviderError ? err.message : 'The provider could not be reached.');
      }
      // Answered at once: nothing to wait on, so the id is recorded with the result.
      if (submitted.status && isTerminal(submitted.status.state)) return finishWith(deps, g, submitted.status, submitted.upstreamId);
      upstreamId = submitted.upstreamId;
    }
    const recorded = await deps.db.query(`UPDATE generations SET upstream_id = $2 WHERE id = $1 AND status = 'running'`, [g.id, upstreamId]);
    if (recorded.rowCount !== 1) {
      // Canceled while we submitted: the upstream job must not run on.
      await adapter.cancel(upstreamId).catch(() => {});
      return { outcome: 'finished' };
    }
  }

  let delay = POLL_MIN_MS;
  let lastRenew = Date.now();
  for (;;) {
    let status: UpstreamStatus;
    try {
      status = await adapter.poll(upstreamId, req);
    } catch (err) {
      if (err instanceof ProviderError && !err.opts.retryable) return finishFailed(deps, g, err.message);
      deps.log.warn({ err, generationId }, 'poll failed; will poll again');
      status = { state: 'running' };
    }
    if (isTerminal(status.state)) return finishWith(deps, g, status, upstreamId);
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, POLL_MAX_MS);
    const current = await loadGeneration(deps.db, generationId);
    if (!current || current.status !== 'running') {
      if (current?.status === 'canceled') await adapter.cancel(upstreamId).catch(() => {});
      return { outcome: 'finished' };
    }
    if (Date.now() - lastRenew > deps.config.jobLeaseMs / 3) {
      if (!(await renewLease(deps, generationId))) return { outcome: 'lost_lease' };
      lastRenew = Date.now();
    }
  }
}

function finishWith(deps: AppDeps, g: GenerationRow, status: UpstreamStatus, upstreamId: string): Promise<RunResult> {
  if (status.state === 'succeeded') return finishSucceeded(deps, g, status, upstreamId);
  return finishFailed(deps, g, status.error?.message ?? `The upstream job ended as ${status.state}.`);
}

/**
 * Before submitting, asks the provider about this generation's earlier
 * submissions: the current attempt's (a crash between submit and record) and
 * those of earlier attempts (a retry after a lost answer). An upstream job
 * that succeeded or is still running is adopted instead of paying twice.
 */
async function reconcile(adapter: ProviderAdapter, g: GenerationRow, req: UpstreamRequest): Promise<string | null> {
  const candidates: string[] = [];
  for (let attempt = g.attempt; attempt >= 1; attempt--) {
    const known = g.upstream_history.find((h) => h.attempt === attempt && h.provider === adapter.name)?.upstream_id;
    const id = known ?? (await adapter.findByClientRef(clientRef(g.id, attempt)).catch(() => null));
    if (id) candidates.push(id);
  }
  for (const id of candidates) {
    const status = await adapter.poll(id, req).catch(() => null);
    if (status && (status.state === 'succeeded' || status.state === 'running' || status.state === 'queued')) return id;
  }
  return null;
}

async function storeOutputs(deps: AppDeps, g: GenerationRow, status: UpstreamStatus): Promise<OutputRow[]> {
  const stored: OutputRow[] = [];
  for (const [position, out] of (status.outputs ?? []).entries()) {
    // Upstream URLs are downloaded by the real adapters (issue 5); the simulator hands bytes over.
    if (!out.bytes) throw new Error('output without bytes');
    const id = newId('out');
    const key = `outputs/${g.id}/${id}`;
    await deps.blobs.put(key, out.bytes, out.mime);
    stored.push({
      id,
      generation_id: g.id,
      position,
      type: out.type ?? mimeToOutputType(out.mime) ?? 'image',
      mime: out.mime,
      width: out.width ?? null,
      height: out.height ?? null,
      duration_s: out.duration_s ?? null,
      blob_key: key,
      size_bytes: out.bytes.length,
      moderation_status: out.moderation ?? 'approved',
    });
  }
  return stored;
}

/**
 * One statement finishes an attempt: `g` moves the generation from running to
 * its end state and gates everything else, so nothing happens twice and
 * nothing happens to a generation canceled meanwhile; the ledger rows are
 * unique per attempt; the wallet moves by what the ledger rows say.
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
w AS (
  UPDATE wallets SET balance_credits = balance_credits + m.b, held_credits = held_credits + m.h, updated_at = now()
  FROM m WHERE wallets.organization_id = m.organization_id),
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
-- Usage: a generation counts once (its first attempt); credits accumulate over attempts.
u AS (
  INSERT INTO usage_rollups AS ur (organization_id, mode, day, model, modality, api_key_id, generations, charged_credits, refunded_credits)
  SELECT organization_id, mode, (now() AT TIME ZONE 'UTC')::date, model, modality, api_key_id,
    CASE WHEN attempt = 1 THEN 1 ELSE 0 END, CASE WHEN price_credits > 0 THEN $4 ELSE 0 END, price_credits - $4
  FROM g
  ON CONFLICT (organization_id, mode, day, model, api_key_id) DO UPDATE SET
    generations = ur.generations + EXCLUDED.generations,
    charged_credits = ur.charged_credits + EXCLUDED.charged_credits,
    refunded_credits = ur.refunded_credits + EXCLUDED.refunded_credits),
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
  return row ? { outcome: 'finished', row, outputs: end.outputs } : { outcome: 'finished' };
}

export async function finishSucceeded(deps: AppDeps, g: GenerationRow, status: UpstreamStatus, upstreamId: string | null = null): Promise<RunResult> {
  const outputs = await storeOutputs(deps, g, status);
  const model = deps.catalog.find(g.model)!;
  const charged = actualCredits(model, g, { outputs, outputTokens: status.usage?.output_tokens });
  const result = {
    ...(g.result ?? {}),
    ...(status.message ? { message: status.message } : {}),
    ...(status.usage ? { usage: status.usage } : {}),
    ...(status.finish_reason ? { finish_reason: status.finish_reason } : {}),
  };
  return finish(deps, g, { status: 'succeeded', charged, result, error: null, upstreamId, outputs });
}

export async function finishFailed(deps: AppDeps, g: GenerationRow, message: string): Promise<RunResult> {
  return finish(deps, g, {
    status: 'failed', charged: 0, result: null, upstreamId: null, outputs: [],
    error: { type: 'upstream_error', code: 'upstream_error', message },
  });
}
