import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { BlobStore } from '../files/types.js';
import type { Batcher } from '../jobs/batcher.js';
import type { Metrics } from '../metrics.js';
import type { Moderator } from '../moderation/moderator.js';
import type { PolicyCache } from '../moderation/policy.js';
import type { Settler } from '../billing/settler.js';
import type { Queryable } from '../store/db.js';
import type { Tracing } from '../tracing.js';
import { newId } from '../ids.js';
import { ProviderError, type SimulateOptions, type UpstreamRequest, type UpstreamStatus } from '../providers/types.js';
import { MODALITY_RULES } from './modalities.js';
import { chargeAndFinish, type Finishing } from '../billing/statements.js';
import { actualCredits, priceVersion } from '../billing/pricing.js';
import type { AttemptEnd, GenerationRow, OutputRow } from './views.js';
import { materializeOutputs, OutputError, type OutputPorts } from './outputs.js';
import { demandOf, upstreamRequest, type UpstreamRequestPorts } from './upstream-request.js';
import type { DataPolicyCache } from '../request-log/policies.js';
import { redactorOf } from '../request-log/redaction.js';
import type { ProviderRegistry } from '../providers/registry.js';

/**
 * Ending an attempt with what is already known (a failure, a cancel, outputs already stored): the finishing
 * statement, on its own (db) or batched with others (finishes); then the settlement is scheduled (settler), the
 * metrics counted and the end logged.
 */
export interface FinishPorts {
  db: Queryable;
  finishes: Batcher<Finishing, GenerationRow | null>;
  config: Pick<Config, 'answeredFinishBatchMs'>;
  log: Logger;
  metrics: Metrics;
  settler: Settler;
  dataPolicies: Pick<DataPolicyCache, 'peek' | 'get'>;
  tracing: Tracing;
}

/**
 * An organization that redacts (rules of its own in its data policy) keeps its generations' requests redacted once
 * they end, as it keeps its captured payloads (docs/contract-addenda.md, "Redaction"): the prompt, the request's
 * fields, and a chat's answer. Not an asynchronous generation that failed: a retry sends its request again, so it is
 * kept as sent until it ends otherwise or generation_days removes it.
 */
async function redactedEnd(deps: Pick<FinishPorts, 'dataPolicies'>, g: GenerationRow, end: AttemptEnd): Promise<AttemptEnd> {
  if (end.status === 'failed' && !g.sync) return end;
  // Every finish asks: the cached policy is read without a promise, the database only when it is not fresh.
  const policy = deps.dataPolicies.peek(g.organization_id) ?? (await deps.dataPolicies.get(g.organization_id));
  if (policy.redact_fields.length === 0 && policy.redact_patterns.length === 0) return end;
  const r = redactorOf(policy);
  const result = end.result as GenerationRow['result'];
  const content = result?.message?.content;
  return {
    ...end,
    record: { prompt: g.prompt === null ? null : r.text(g.prompt), params: r.value(g.params) as Record<string, unknown> },
    ...(result && typeof content === 'string' ? { result: { ...result, message: { ...result.message!, content: r.text(content) } } } : {}),
  };
}

/** Files that belong to no output row are deleted. */
interface BlobCleanupPorts {
  blobs: BlobStore;
  log: Logger;
}

/** A success's files: downloaded (OutputPorts), judged under the organization's policy, then put in the blob store. */
interface StoreOutputsPorts extends OutputPorts, BlobCleanupPorts {
  db: Queryable;
  moderator: Moderator;
  policies: PolicyCache;
  tracing: Tracing;
}

/** Ending an attempt as the provider reported it: a success's outputs are fetched, stored and priced (catalog, records) first. */
export interface FinishWithPorts extends Omit<FinishPorts, 'config'>, Omit<StoreOutputsPorts, 'config'>, UpstreamRequestPorts {
  config: FinishPorts['config'] & StoreOutputsPorts['config'];
  /** The installation's records, which price the charge. */
  providers: Pick<ProviderRegistry, 'records'>;
}

/**
 * How an attempt ends: its outputs stored in mmgen's blob store, then one
 * finishing statement (store/finishing.ts) that charges it, releases the rest
 * of its reservation, records outputs and events and deletes its job.
 */

/** What a run of a generation came to (runner.ts, and the finishes below). */
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

export function finishWith(deps: FinishWithPorts, g: GenerationRow, status: UpstreamStatus, upstreamId: string, req: UpstreamRequest, batched = false): Promise<RunResult> {
  if (status.state === 'succeeded') return finishSucceeded(deps, g, status, upstreamId, req, batched);
  return finishFailed(deps, g, status.error?.message ?? `The upstream job ended as ${status.state}.`, upstreamId, status.error?.kind === 'content_policy' ? 'content_policy_violation' : undefined);
}

async function storeOutputs(
  deps: StoreOutputsPorts,
  g: GenerationRow,
  status: UpstreamStatus,
  req: UpstreamRequest,
): Promise<OutputRow[]> {
  return deps.tracing.span('mmgen.outputs.store', { 'mmgen.generation.id': g.id, 'mmgen.modality': g.modality }, async (span) => {
    const stored = await storeOutputsTraced(deps, g, status, req);
    if (deps.tracing.on) span.set({
      'mmgen.output.count': stored.length,
      'mmgen.output.bytes': stored.reduce((n, o) => n + o.size_bytes, 0),
      // Seconds of audio or video made (units of the modalities priced by duration).
      'mmgen.output.duration_s': stored.reduce((n, o) => n + (o.duration_s === null ? 0 : Number(o.duration_s)), 0) || undefined,
      'mmgen.output.blocked': stored.filter((o) => o.moderation_status === 'blocked').length,
    });
    return stored;
  });
}

async function storeOutputsTraced(
  deps: StoreOutputsPorts,
  g: GenerationRow,
  status: UpstreamStatus,
  req: UpstreamRequest,
): Promise<OutputRow[]> {
  const files = await materializeOutputs(deps, req, status.outputs ?? []);
  // The verdict stage (contract §11): every file is judged before it is stored and can be served.
  const policy = await deps.policies.get(deps.db, g.organization_id);
  const forced = (g.params.simulate as SimulateOptions | undefined)?.moderation;
  const verdicts = await deps.tracing.span('mmgen.moderation.outputs', { 'mmgen.generation.id': g.id, 'mmgen.output.count': files.length }, async (span) => {
    const judged = await deps.moderator.judge(policy, files, { forced, shared: MODALITY_RULES[g.modality].outputs.oneWork === true });
    if (deps.tracing.on) span.set({
      'mmgen.moderation.approved': judged.filter((v) => v.verdict === 'approved').length,
      'mmgen.moderation.flagged': judged.filter((v) => v.verdict === 'flagged').length,
      'mmgen.moderation.blocked': judged.filter((v) => v.verdict === 'blocked').length,
    });
    return judged;
  });
  for (const [position, v] of verdicts.entries()) {
    if (v.overruled) deps.log.info({ generationId: g.id, model: g.model, position, scores: v.scores, wouldBe: v.overruled }, 'a simulator render scored at or above the moderation threshold; its declared verdict stands');
  }
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
        moderation_status: verdicts[position]!.verdict,
      });
    }
  } catch (err) {
    // A partly stored set belongs to no output row.
    await deleteBlobs(deps, stored);
    throw err;
  }
  return stored;
}

/** What follows a finished attempt in this process: its settlement is scheduled, metrics and the log. */
function afterFinish(deps: FinishPorts, row: GenerationRow, charged: number): void {
  deps.settler.pending(row.organization_id);
  deps.metrics.settled(row, charged);
  deps.log.info(
    { generationId: row.id, modality: row.modality, model: row.model, status: row.status, attempt: row.attempt, chargedCredits: charged },
    'generation finished',
  );
}

export async function finish(deps: FinishPorts, g: GenerationRow, ended: AttemptEnd, opts: { batched?: boolean } = {}): Promise<RunResult> {
  const end = await redactedEnd(deps, g, ended);
  const attributes = deps.tracing.on
    ? {
        'db.system.name': 'postgresql',
        'mmgen.generation.id': g.id,
        'mmgen.generation.status': end.status,
        'mmgen.credits.charged': end.charged,
        'mmgen.finish.batched': opts.batched === true,
      }
    : {};
  // The charge (or refund), outputs, events and job in one statement: the span is that statement's round trip.
  const [stored] = await deps.tracing.span('mmgen.finish', attributes, async (span) => {
    // A synchronous generation's finish is batched only once its answer is out (a chat completion): it may wait longer.
    const wait = g.sync ? deps.config.answeredFinishBatchMs : undefined;
    const rows = opts.batched ? [await deps.finishes.add({ g, end }, wait)] : await chargeAndFinish(deps.db, [{ g, end }]);
    if (!rows[0]) span.set({ 'mmgen.outcome': 'ended_elsewhere' });
    return rows;
  });
  if (!stored) return { outcome: 'finished' };
  afterFinish(deps, stored, end.charged);
  // The caller answers this request with what it sent and got; what is kept from now on is redacted.
  const row = end.record ? { ...stored, prompt: g.prompt, params: g.params, result: (ended.result as GenerationRow['result']) ?? stored.result } : stored;
  return { outcome: 'finished', row, outputs: end.outputs };
}

export async function finishSucceeded(
  deps: FinishWithPorts,
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
  const kept = outputs.filter((o) => o.moderation_status !== 'blocked');
  if (outputs.length > 0 && !kept.some((o) => o.type !== 'thumbnail')) {
    // Everything it made was blocked: failed, nothing charged; the files stay listed as blocked (their URLs answer 451).
    return finishBlocked(deps, g, upstreamId, outputs, batched);
  }
  // Blocked outputs are not charged.
  const charged = chargeOf(deps, g, kept, status);
  const result = {
    ...(g.result ?? {}),
    ...(status.message ? { message: status.message } : {}),
    ...(status.usage ? { usage: status.usage } : {}),
    ...(status.finish_reason ? { finish_reason: status.finish_reason } : {}),
  };
  // The charge is priced by the model as it is now: its version is recorded with the charge (the reservation's, unless the prices changed meanwhile).
  const priceVersionNow = priceVersion(deps.providers.records, deps.catalog.find(g.model)!);
  const done = await finish(deps, g, { status: 'succeeded', charged, result, error: null, upstreamId, outputs, priceVersion: priceVersionNow }, { batched });
  // Nothing was recorded (canceled or finished meanwhile): the files belong to no output row.
  if (!done.row) await deleteBlobs(deps, outputs);
  return done;
}

/**
 * What a succeeded attempt is charged: what it produced (its kept outputs, its output tokens) on the route that
 * served it, within the reservation. A chat reply handed back before its finish is written says the same number.
 */
export function chargeOf(deps: Pick<FinishWithPorts, 'catalog' | 'providers'>, g: GenerationRow, kept: OutputRow[], status: UpstreamStatus): number {
  const model = deps.catalog.find(g.model)!;
  // A price by prompt length is charged on the prompt's tokens as the provider counted them.
  return actualCredits(deps.providers.records, model, g, { outputs: kept, outputTokens: status.usage?.output_tokens }, { ...demandOf(g), inputTokens: status.usage?.input_tokens });
}

async function deleteBlobs(deps: BlobCleanupPorts, outputs: OutputRow[]): Promise<void> {
  await Promise.all(
    outputs.map((o) => deps.blobs.delete(o.blob_key).catch((err: unknown) => deps.log.warn({ err, key: o.blob_key }, 'could not delete an unrecorded output file'))),
  );
}

async function finishBlocked(deps: FinishPorts & BlobCleanupPorts, g: GenerationRow, upstreamId: string | null, outputs: OutputRow[], batched: boolean): Promise<RunResult> {
  const done = await finish(
    deps,
    g,
    {
      status: 'failed', charged: 0, result: g.result, upstreamId, outputs,
      error: { type: 'invalid_request_error', code: 'content_blocked', message: 'Moderation blocked every output of this generation; it was refunded.' },
    },
    { batched },
  );
  if (!done.row) await deleteBlobs(deps, outputs);
  return done;
}

/** Fails an attempt (refunded); an upstream id is kept so that a retry can ask about that job. */
export async function finishFailed(
  deps: FinishPorts,
  g: GenerationRow,
  message: string,
  upstreamId: string | null = null,
  // content_policy_violation: the provider's own safety system refused it (contract §11), refunded like any failure.
  code: 'upstream_error' | 'content_policy_violation' = 'upstream_error',
): Promise<RunResult> {
  return finish(deps, g, {
    status: 'failed', charged: 0, result: null, upstreamId, outputs: [],
    error: { type: 'upstream_error', code, message },
  });
}

/** The generation error code of a provider failure: its safety refusals are told apart (contract §11). */
export function failureCode(err: unknown): 'upstream_error' | 'content_policy_violation' {
  return err instanceof ProviderError && err.opts.kind === 'content_policy' ? 'content_policy_violation' : 'upstream_error';
}
