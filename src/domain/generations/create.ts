import { createHash } from 'node:crypto';
import type { Modality } from '../../catalog/index.js';
import type { AppDeps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { ImageInput, SimulateOptions } from '../../providers/types.js';
import { errorCode, type Queryable } from '../../store/db.js';
import { StaleAuthentication, type Principal } from '../access.js';
import { confirmCachedPrincipal, keyUnchangedSql } from '../api-keys.js';
import { retryAfterSettling } from '../credits.js';
import { priceCredits, SYNC_MODALITIES, type GenerationRow } from './model.js';
import { loadGeneration, loadOutputs } from './store.js';
import type { EarlyDispatch } from './early-dispatch.js';
import type { PreparedGeneration } from './prepared.js';

export interface CreateGenerationInput {
  modality: Modality;
  model: string;
  prompt: string | null;
  /** The modality fields as validated, defaults applied; `model`, `simulate` and `cache` excluded. */
  params: Record<string, unknown>;
  simulate?: SimulateOptions | undefined;
  cache?: boolean | undefined;
  image?: ImageInput | undefined;
  comparisonId?: string | undefined;
  /** Set by a route that may start the provider call alongside the reservation (early-dispatch.ts). */
  early?: EarlyDispatch | undefined;
}

/** Same organization, mode, model and parameters with an explicit seed: the same result (contract §4). */
function cacheKeyOf(modelSlug: string, params: Record<string, unknown>): string | null {
  if (params.seed === undefined) return null;
  const canonical = JSON.stringify(params, Object.keys(params).sort());
  return createHash('sha256').update(`${modelSlug}\n${canonical}`).digest('hex');
}

/** Resolves the model and provider (404/410/400/503 before anything is written) and prices the request. */
export async function prepareGeneration(deps: AppDeps, principal: Principal, input: CreateGenerationInput): Promise<PreparedGeneration> {
  const model = deps.catalog.resolve(input.model, input.modality);
  const { adapter } = deps.providers.choose(principal.mode, model);
  if (input.simulate && !deps.providers.simulates(principal.mode)) {
    // A live request to a real provider cannot be steered; ignoring the field would charge for a "simulated" failure.
    throw new ApiError('parameter_invalid', '`simulate` steers the built-in simulator only (test keys, or MMGEN_SIMULATE_PROVIDERS=1); this request goes to a real provider.', 'simulate');
  }
  const id = newId('gen');
  const inputBlob = input.image ? `inputs/${id}` : undefined;
  return {
    id,
    principal,
    modality: model.modality,
    model: model.slug,
    // Children of a comparison run asynchronously whatever their modality (contract §6).
    sync: SYNC_MODALITIES.includes(input.modality) && !input.comparisonId,
    prompt: input.prompt,
    params: { ...input.params, ...(input.simulate ? { simulate: input.simulate } : {}) },
    price: priceCredits(model, principal.mode, input.params),
    cacheKey: input.cache === false ? null : cacheKeyOf(model.slug, input.params),
    provider: adapter.name,
    result: inputBlob ? { input_blob: inputBlob } : null,
    comparisonId: input.comparisonId ?? null,
    image: input.image,
  };
}

/**
 * Stores a prepared generation's input image, runs `accept`, and removes the
 * image again if nothing was accepted (402, an error), so refused requests
 * leave no files behind. The image is stored first because a worker may pick
 * the job up the moment it is committed.
 */
export async function withStoredInputs<T>(deps: AppDeps, prepared: PreparedGeneration[], accept: () => Promise<T | null>): Promise<T | null> {
  const stored = prepared.filter((p) => p.image && p.result?.input_blob);
  await Promise.all(stored.map((p) => deps.blobs.put(p.result!.input_blob as string, p.image!.bytes, p.image!.mime)));
  const cleanUp = () => Promise.all(stored.map((p) => deps.blobs.delete(p.result!.input_blob as string).catch(() => {})));
  try {
    const result = await accept();
    if (result === null) await cleanUp();
    return result;
  } catch (err) {
    await cleanUp();
    throw err;
  }
}

/**
 * Accepts a generation: resolves the model and provider, prices it, and in one
 * statement reserves the credits and writes the generation and its job. A
 * cache hit is answered at once with the earlier outputs and costs nothing.
 */
export async function createGeneration(deps: AppDeps, principal: Principal, input: CreateGenerationInput): Promise<GenerationRow> {
  const prepared = await prepareGeneration(deps, principal, input);
  if (prepared.cacheKey && !input.comparisonId) {
    // A reply handed back before its finish committed (chat completions) is the cache entry an immediate repeat on
    // this node must find: wait for that finish, as a GET of the generation does.
    await deps.inflight.settled(cacheEntryKey(principal.organizationId, principal.mode, prepared.cacheKey));
    // A cache hit is written without the accepting statement, so a cached key is confirmed first.
    await confirmCachedPrincipal(deps.db, principal);
    const hit = await cachedCopy(deps, principal, input, prepared.model, prepared.cacheKey, prepared.sync);
    if (hit) return hit;
  }
  const refused = () => new ApiError('insufficient_credits', `Insufficient credits: this request needs ${prepared.price} credits.`);
  input.early?.startAfterThisStep(deps, prepared);
  let row: GenerationRow | null;
  try {
    row = await withStoredInputs(deps, [prepared], () =>
      retryAfterSettling(deps.db, principal.organizationId, async () => {
        const accepted = await acceptStatement(deps.db, deps, prepared);
        if (!accepted) throw refused();
        return accepted;
      }),
    );
    if (!row) throw refused();
  } catch (err) {
    // Nothing was reserved: a provider call started early must not run on.
    input.early?.abort();
    throw err;
  }
  deps.metrics.generationsAccepted.inc({ modality: row.modality, cache_hit: 'false' });
  return row;
}

/**
 * Accepts a generation in ONE statement (one round trip, one commit): the
 * wallet is debited for the hold only if it covers the price, and the
 * generation, its ledger row and its job are written only if the hold was
 * taken. No row back means the wallet could not cover it. A synchronous
 * generation starts `running`, its job leased to this process; should the
 * process die, the lease runs out and a worker finishes it.
 */
export async function acceptStatement(q: Queryable, deps: AppDeps, a: PreparedGeneration): Promise<GenerationRow | null> {
  const charged = a.price > 0;
  // A principal from the key cache is confirmed here, in the same snapshot that reserves: nothing is written unless the key is unchanged.
  const fingerprint = a.principal.unconfirmedFingerprint;
  const keyCheck = fingerprint === undefined
    ? ''
    : `k AS (${keyUnchangedSql('$3', '$17')}),`;
  const gates = fingerprint === undefined ? [] : ['EXISTS (SELECT 1 FROM k)'];
  // A synchronous generation's acceptance does not wait for its WAL flush: an image or voice answer follows the
  // finishing statement, a synchronous commit that makes it durable too; a chat answer follows the provider's. A
  // PostgreSQL crash in that window loses the acceptance with its uncharged hold (for chat, an answer the caller is
  // never charged for); docs/contract-addenda.md ("Durability of a synchronous acceptance").
  if (a.sync) gates.push(`set_config('synchronous_commit', 'off', true) IS NOT NULL`);
  const keyGate = gates.length > 0 ? `WHERE ${gates.join(' AND ')}` : '';
  // Every accept of an organization takes its wallet row, which stays locked until the commit: so it is taken last,
  // once the generation, job and ledger rows are written (the conditions on j and l make them run first). If the
  // wallet cannot cover the hold, mmgen_require fails the statement (SQLSTATE MM402) and everything is rolled back.
  const reserve = charged
    ? `, l AS (INSERT INTO ledger_entries (organization_id, kind, balance_delta, held_delta, reference, generation_id, api_key_id, model, modality)
             SELECT $2, 'reserve', 0, $11, $1 || '#1', $1, $3, $6, $5 FROM g RETURNING id),
       w AS (UPDATE wallets SET held_credits = held_credits + $11, updated_at = now()
             WHERE organization_id = $2 AND balance_credits - held_credits >= $11
               AND EXISTS (SELECT 1 FROM j) AND EXISTS (SELECT 1 FROM l) RETURNING balance_credits - held_credits AS free)`
    : '';
  const covered = charged ? `WHERE mmgen_require(EXISTS (SELECT 1 FROM w), 'insufficient credits')` : '';
  const paramsJson = JSON.stringify(a.params);
  const resultJson = a.result ? JSON.stringify(a.result) : null;
  let r: { rows: Array<{ created_at: Date; wallet_free?: number | null }> };
  try {
    r = await q.query(
      `WITH ${keyCheck}
       g AS (INSERT INTO generations (id, organization_id, api_key_id, mode, modality, model, status, sync, prompt, params,
               price_credits, reserved_credits, cache_key, provider, result, comparison_id, started_at, runner_node)
             SELECT $1, $2, $3, $4, $5, $6, CASE WHEN $7 THEN 'running' ELSE 'queued' END, $7, $8, $9,
               $11, $11, $12, $13, $14, $15, CASE WHEN $7 THEN now() END, CASE WHEN $7 THEN $10 END ${keyGate}
             RETURNING created_at),
       j AS (INSERT INTO jobs (generation_id, lease_owner, lease_expires_at, run_at)
             SELECT $1, CASE WHEN $7 THEN $10 END, CASE WHEN $7 THEN now() + make_interval(secs => $16) END,
               CASE WHEN $7 THEN now() + make_interval(secs => $16) ELSE now() END FROM g
             RETURNING generation_id)
       ${reserve}
       SELECT g.created_at${charged ? ', (SELECT free FROM w) AS wallet_free' : ''} FROM g ${covered}`,
      [
        a.id, a.principal.organizationId, a.principal.keyId, a.principal.mode, a.modality, a.model, a.sync, a.prompt,
        paramsJson, deps.nodeId, a.price, a.cacheKey, a.provider, resultJson,
        a.comparisonId, deps.config.jobLeaseMs / 1000, ...(fingerprint === undefined ? [] : [fingerprint]),
      ],
    );
  } catch (err) {
    if (errorCode(err) === 'MM402') {
      deps.headroom.refused(a.principal.organizationId);
      return null;
    }
    throw err;
  }
  const written = r.rows[0];
  if (written) {
    if (written.wallet_free !== undefined && written.wallet_free !== null) deps.headroom.record(a.principal.organizationId, Number(written.wallet_free));
    // Confirmed: from here on the request has effects, and it must never be authenticated and run again.
    delete a.principal.unconfirmedFingerprint;
    return insertedRow(deps, a, written.created_at, paramsJson, resultJson);
  }
  // Nothing written: the cached key changed (a key that still matches always writes, or fails with MM402).
  if (fingerprint !== undefined) throw new StaleAuthentication();
  return null;
}

/**
 * The row acceptStatement wrote, built from what it was given and the table's defaults rather than read back:
 * reading back and parsing all its columns made the statement's round trip a third slower (0.36 against 0.26 ms
 * on a quiet machine). test/integration/early-dispatch.test.ts compares it with the stored row.
 */
function insertedRow(deps: AppDeps, a: PreparedGeneration, createdAt: Date, paramsJson: string, resultJson: string | null): GenerationRow {
  return {
    id: a.id, organization_id: a.principal.organizationId, api_key_id: a.principal.keyId, mode: a.principal.mode,
    modality: a.modality, model: a.model, status: a.sync ? 'running' : 'queued', sync: a.sync, prompt: a.prompt,
    params: JSON.parse(paramsJson) as Record<string, unknown>, price_credits: a.price, reserved_credits: a.price,
    charged_credits: 0, refunded_credits: 0, cache_hit: false, cache_key: a.cacheKey, attempt: 1, provider: a.provider,
    upstream_id: null, upstream_history: [], result: resultJson === null ? null : (JSON.parse(resultJson) as GenerationRow['result']),
    error: null, comparison_id: a.comparisonId, runner_node: a.sync ? deps.nodeId : null, version: 1,
    created_at: createdAt, started_at: a.sync ? createdAt : null, completed_at: null,
  };
}

/** The key under which this process tracks the finish of a generation that will be the cache entry for `cacheKey`. */
export function cacheEntryKey(organizationId: string, mode: string, cacheKey: string): string {
  return `cache:${organizationId}:${mode}:${cacheKey}`;
}

async function cachedCopy(
  deps: AppDeps,
  principal: Principal,
  input: CreateGenerationInput,
  modelSlug: string,
  cacheKey: string,
  sync: boolean,
): Promise<GenerationRow | null> {
  const r = await deps.db.query<GenerationRow>(
    `SELECT * FROM generations WHERE organization_id = $1 AND mode = $2 AND cache_key = $3 AND status = 'succeeded'
     ORDER BY seq DESC LIMIT 1`,
    [principal.organizationId, principal.mode, cacheKey],
  );
  const source = r.rows[0];
  if (!source) return null;
  const outputs = (await loadOutputs(deps.db, [source.id])).get(source.id) ?? [];
  const id = newId('gen');
  await deps.db.tx(async (q) => {
    await q.query(
      `INSERT INTO generations (id, organization_id, api_key_id, mode, modality, model, status, sync, prompt, params,
         cache_hit, cache_key, provider, result, started_at, completed_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'succeeded', $7, $8, $9, true, $10, $11, $12, now(), now())`,
      [id, principal.organizationId, principal.keyId, principal.mode, input.modality, modelSlug, sync, input.prompt,
        JSON.stringify(input.params), cacheKey, source.provider, source.result ? JSON.stringify(source.result) : null],
    );
    // The files are shared: the copy's outputs point at the same blobs.
    for (const o of outputs) {
      await q.query(
        `INSERT INTO generation_outputs (id, generation_id, position, type, mime, width, height, duration_s, blob_key, size_bytes, moderation_status)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [newId('out'), id, o.position, o.type, o.mime, o.width, o.height, o.duration_s, o.blob_key, o.size_bytes, o.moderation_status],
      );
    }
  });
  deps.metrics.generationsAccepted.inc({ modality: input.modality, cache_hit: 'true' });
  deps.metrics.generationsFinished.inc({ modality: input.modality, status: 'succeeded' });
  return (await loadGeneration(deps.db, id))!;
}
