import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { CatalogModel, Modality } from '../catalog/index.js';
import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import type { ImageInput, SimulateOptions } from '../providers/types.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { BlobStore } from '../files/types.js';
import type { InflightWork } from '../jobs/inflight.js';
import type { Metrics } from '../metrics.js';
import type { Tracing } from '../tracing.js';
import type { Wakeup } from '../wakeup.js';
import type { Db, Queryable } from '../store/db.js';
import { StaleAuthentication, type Principal } from '../domain/access.js';
import { confirmCachedPrincipal } from '../domain/api-keys.js';
import { retryAfterSettling } from '../billing/credits.js';
import { withinBudgets } from '../billing/budgets.js';
import { priceCredits, priceVersion } from '../billing/pricing.js';
import type { GenerationRow } from './views.js';
import { MODALITY_RULES } from './modalities.js';
import { selectGeneration, selectOutputs, insertCacheCopy, selectCacheSource } from '../store/generations.js';
import { reserveAndAccept } from '../billing/statements.js';
import { linkIdempotencyClaim, type IdempotencyClaim } from '../store/idempotency.js';
import type { EarlyDispatch, EarlyDispatchPorts } from './early-dispatch.js';
import type { Headroom } from './headroom.js';
import type { PreparedGeneration } from './prepared.js';
import { verifyAudioUrl, type AudioInputPorts } from '../files/audio-input.js';
import { audioFromUpload, resolveImageInput, type UploadPorts } from '../files/uploads.js';
import { UPSCALE_MAX_OUTPUT_PIXELS } from '../media/index.js';

/** An input audio file, checked (files/uploads.ts). */
export interface AudioInput {
  bytes: Buffer;
  mime: string;
}

/** Preparing a generation: its route chosen and its price, nothing written. */
export interface PreparePorts {
  providers: ProviderRegistry;
}
/** Storing a prepared generation's input files around its acceptance. */
export interface StoredInputsPorts {
  blobs: BlobStore;
}
/** The accepting statement, and this node's view of the organization's free credits. */
export interface AcceptStatementPorts {
  config: Config;
  headroom: Headroom;
  nodeId: string;
}
/** One generation, which may also be a cache hit or start its provider call early. */
export interface CreateGenerationPorts extends PreparePorts, StoredInputsPorts, AcceptStatementPorts, EarlyDispatchPorts {
  db: Db;
  inflight: InflightWork;
  metrics: Metrics;
  tracing: Tracing;
}
/** A request's generation, with its input image or audio checked (and fetched, or read from its upload) first. */
export interface SubmitPorts extends CreateGenerationPorts {
  log: Logger;
  jobsAvailable: Wakeup;
}

export interface CreateGenerationInput {
  modality: Modality;
  /** The model the request named, resolved once (catalog.resolve) when the request was taken. */
  model: CatalogModel;
  prompt: string | null;
  /** The modality fields as validated, defaults applied; `model`, `simulate` and `cache` excluded. */
  params: Record<string, unknown>;
  simulate?: SimulateOptions | undefined;
  cache?: boolean | undefined;
  image?: ImageInput | undefined;
  /** An avatar's speech, uploaded (`audio_upload_id`): kept with the generation and sent as its audio_url. */
  audio?: AudioInput | undefined;
  comparisonId?: string | undefined;
  /** Set by a route that may start the provider call alongside the reservation (early-dispatch.ts). */
  early?: EarlyDispatch | undefined;
  /** The request's Idempotency-Key claim, which the acceptance names the generation on (store/idempotency.ts). */
  claim?: IdempotencyClaim | undefined;
  /** The fields the client sent itself (the others are defaults): a route that does not take one cannot serve it. */
  sent?: ReadonlySet<string> | undefined;
}

/** A request whose claim went to another request (its node was judged dead meanwhile) must accept nothing. */
export function claimLost(): ApiError {
  return new ApiError(
    'idempotency_key_in_use',
    'Another request with this Idempotency-Key took it over while this one was being processed; nothing was accepted here. Retry to get its answer.',
    'Idempotency-Key',
  );
}

/** Same organization, mode, model and parameters with an explicit seed: the same result (contract §4). */
function cacheKeyOf(modelSlug: string, params: Record<string, unknown>): string | null {
  if (params.seed === undefined) return null;
  const canonical = JSON.stringify(params, Object.keys(params).sort());
  return createHash('sha256').update(`${modelSlug}\n${canonical}`).digest('hex');
}

/**
 * What a generation keeps from its request beside its params, for the runner: the stored input image (and the
 * caller's URL of it, for a provider that takes a URL but no long data URI) and its size, and the fields the client
 * sent, so that a fallback goes only to a route that takes them (demandOf).
 */
function acceptedResult(inputBlob: string | undefined, audioBlob: string | undefined, input: CreateGenerationInput): Record<string, unknown> | null {
  const result: Record<string, unknown> = {};
  if (inputBlob) result.input_blob = inputBlob;
  if (inputBlob && input.image?.url) result.input_url = input.image.url;
  if (audioBlob) result.input_audio_blob = audioBlob;
  if (input.sent) result.sent_fields = [...input.sent].filter((f) => f in input.params).sort();
  // The charge prices by it as the reservation did (a route billed by the image's megapixels): demandOf.
  if (input.image) result.input_size = { width: input.image.width, height: input.image.height };
  return Object.keys(result).length > 0 ? result : null;
}

/** Resolves the model and provider (404/410/400/503 before anything is written) and prices the request. */
export async function prepareGeneration(deps: PreparePorts, principal: Principal, input: CreateGenerationInput): Promise<PreparedGeneration> {
  const model = input.model;
  const demand = {
    params: input.params,
    sent: input.sent ?? null,
    image: input.image !== undefined,
    imageSize: input.image ? { width: input.image.width, height: input.image.height } : undefined,
  };
  const { adapter } = deps.providers.choose(principal.mode, model, demand);
  if (input.simulate && !deps.providers.simulates(principal.mode)) {
    // A live request to a real provider cannot be steered; ignoring the field would charge for a "simulated" failure.
    throw new ApiError('parameter_invalid', '`simulate` steers the built-in simulator only (test keys, or MMGEN_SIMULATE_PROVIDERS=1); this request goes to a real provider.', 'simulate');
  }
  const id = newId('gen');
  const inputBlob = input.image ? `inputs/${id}` : undefined;
  const audioBlob = input.audio ? `inputs/${id}-audio` : undefined;
  return {
    id,
    principal,
    modality: model.modality,
    model: model.slug,
    catalogModel: model,
    // Children of a comparison run asynchronously whatever their modality (contract §6).
    sync: MODALITY_RULES[input.modality].sync && !input.comparisonId,
    prompt: input.prompt,
    params: { ...input.params, ...(input.simulate ? { simulate: input.simulate } : {}) },
    // The dearest route a fallback may reach here (configured providers; the simulator's played route).
    price: priceCredits(deps.providers.records, model, principal.mode, demand, (m, d) => deps.providers.servingRoutes(principal.mode, m, d)),
    priceVersion: priceVersion(deps.providers.records, model),
    cacheKey: input.cache === false ? null : cacheKeyOf(model.slug, input.params),
    provider: adapter.name,
    result: acceptedResult(inputBlob, audioBlob, input),
    comparisonId: input.comparisonId ?? null,
    image: input.image,
    audio: input.audio,
  };
}

/**
 * Stores a prepared generation's input image, runs `accept`, and removes the
 * image again if nothing was accepted (402, an error), so refused requests
 * leave no files behind. The image is stored first because a worker may pick
 * the job up the moment it is committed.
 */
export async function withStoredInputs<T>(deps: StoredInputsPorts, prepared: PreparedGeneration[], accept: () => Promise<T | null>): Promise<T | null> {
  const files = prepared.flatMap((p) => [
    ...(p.image && p.result?.input_blob ? [{ key: p.result.input_blob as string, ...p.image }] : []),
    ...(p.audio && p.result?.input_audio_blob ? [{ key: p.result.input_audio_blob as string, ...p.audio }] : []),
  ]);
  await Promise.all(files.map((f) => deps.blobs.put(f.key, f.bytes, f.mime)));
  const cleanUp = () => Promise.all(files.map((f) => deps.blobs.delete(f.key).catch(() => {})));
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
export async function createGeneration(deps: CreateGenerationPorts, principal: Principal, input: CreateGenerationInput): Promise<GenerationRow> {
  const prepared = await prepareGeneration(deps, principal, input);
  if (prepared.cacheKey && !input.comparisonId) {
    // A reply handed back before its finish committed (chat completions) is the cache entry an immediate repeat on
    // this node must find: wait for that finish, as a GET of the generation does.
    await deps.inflight.settled(cacheEntryKey(principal.organizationId, principal.mode, prepared.cacheKey));
    // A cache hit is written without the accepting statement, so a cached key is confirmed first.
    await confirmCachedPrincipal(deps.db, principal);
    const hit = await cachedCopy(deps, principal, input, prepared.model, prepared.cacheKey, prepared.sync);
    if (hit) {
      deps.tracing.current().set({ 'mmgen.cache_hit': true });
      return hit;
    }
  }
  const refused = () => new ApiError('insufficient_credits', `Insufficient credits: this request needs ${prepared.price} credits.`);
  input.early?.startAfterThisStep(deps, prepared);
  let row: GenerationRow | null;
  try {
    const attributes = deps.tracing.on
      ? { 'db.system.name': 'postgresql', 'mmgen.generation.id': prepared.id, 'mmgen.credits.reserved': prepared.price, 'mmgen.provider': prepared.provider ?? undefined }
      : {};
    row = await withStoredInputs(deps, [prepared], () =>
      // The reservation, the generation and its job: one accepting statement (retried once after settling the wallet).
      deps.tracing.span('mmgen.reserve', attributes, () =>
        retryAfterSettling(deps.db, principal.organizationId, async () => {
          // A blocking budget is checked in the reservation's transaction (billing/budgets.ts); otherwise one statement.
          const accepted = await withinBudgets(deps.db, principal, prepared.price, (q) => acceptStatement(q, deps, prepared, input.claim));
          if (!accepted) throw refused();
          return accepted;
        }),
      ),
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
 * Accepts a prepared generation (store/accepting.ts: reservation, generation
 * and job in one statement); the row written, or null when the wallet could
 * not cover it. Keeps this node's view of the organization's free credits
 * (early dispatch) up to date either way.
 */
export async function acceptStatement(q: Queryable, deps: AcceptStatementPorts, a: PreparedGeneration, claim?: IdempotencyClaim): Promise<GenerationRow | null> {
  const paramsJson = JSON.stringify(a.params);
  const resultJson = a.result ? JSON.stringify(a.result) : null;
  const outcome = await reserveAndAccept(q, {
    id: a.id, organizationId: a.principal.organizationId, apiKeyId: a.principal.keyId, mode: a.principal.mode,
    modality: a.modality, model: a.model, sync: a.sync, prompt: a.prompt, paramsJson, price: a.price, priceVersion: a.priceVersion, cacheKey: a.cacheKey,
    provider: a.provider, resultJson, comparisonId: a.comparisonId, nodeId: deps.nodeId, leaseSeconds: deps.config.jobLeaseMs / 1000,
    keyFingerprint: a.principal.unconfirmedFingerprint, claim,
  });
  if (outcome.written) {
    if (outcome.walletFree !== null) deps.headroom.record(a.principal.organizationId, outcome.walletFree);
    // Confirmed: from here on the request has effects, and it must never be authenticated and run again.
    delete a.principal.unconfirmedFingerprint;
    return insertedRow(deps, a, outcome.createdAt, paramsJson, resultJson);
  }
  if (outcome.reason === 'key_changed') throw new StaleAuthentication();
  if (outcome.reason === 'claim_lost') throw claimLost();
  if (outcome.reason === 'insufficient_credits') deps.headroom.refused(a.principal.organizationId);
  return null;
}

/**
 * The row acceptStatement wrote, built from what it was given and the table's defaults rather than read back:
 * reading back and parsing all its columns made the statement's round trip a third slower (0.36 against 0.26 ms
 * on a quiet machine). test/integration/early-dispatch.test.ts compares it with the stored row.
 */
function insertedRow(deps: Pick<AcceptStatementPorts, 'nodeId'>, a: PreparedGeneration, createdAt: Date, paramsJson: string, resultJson: string | null): GenerationRow {
  return {
    id: a.id, organization_id: a.principal.organizationId, api_key_id: a.principal.keyId, mode: a.principal.mode,
    modality: a.modality, model: a.model, status: a.sync ? 'running' : 'queued', sync: a.sync, prompt: a.prompt,
    params: JSON.parse(paramsJson) as Record<string, unknown>, price_credits: a.price, price_version: a.priceVersion, reserved_credits: a.price,
    charged_credits: 0, refunded_credits: 0, cache_hit: false, cache_key: a.cacheKey, attempt: 1, provider: a.provider,
    upstream_id: null, upstream_history: [], result: resultJson === null ? null : (JSON.parse(resultJson) as GenerationRow['result']),
    error: null, progress: null, comparison_id: a.comparisonId, runner_node: a.sync ? deps.nodeId : null, version: 1,
    created_at: createdAt, started_at: a.sync ? createdAt : null, completed_at: null, prompt_expired_at: null, files_expired_at: null,
  };
}

/** The key under which this process tracks the finish of a generation that will be the cache entry for `cacheKey`. */
export function cacheEntryKey(organizationId: string, mode: string, cacheKey: string): string {
  return `cache:${organizationId}:${mode}:${cacheKey}`;
}

const NO_CACHE_SOURCE = new Error('the cache source expired');

async function cachedCopy(
  deps: Pick<CreateGenerationPorts, 'db' | 'metrics'>,
  principal: Principal,
  input: CreateGenerationInput,
  modelSlug: string,
  cacheKey: string,
  sync: boolean,
): Promise<GenerationRow | null> {
  const source = await selectCacheSource(deps.db, principal.organizationId, principal.mode, cacheKey);
  if (!source) return null;
  const outputs = (await selectOutputs(deps.db, [source.id])).get(source.id) ?? [];
  const id = newId('gen');
  // The files are shared: the copy's outputs point at the same blobs.
  const copied = await deps.db.tx(async (q) => {
    // Free, but still one generation per key: the copy is named on the claim like any acceptance.
    if (input.claim && !(await linkIdempotencyClaim(q, input.claim, id))) throw claimLost();
    const made = await insertCacheCopy(
      q,
      {
        id, organizationId: principal.organizationId, apiKeyId: principal.keyId, mode: principal.mode, modality: input.modality,
        model: modelSlug, sync, prompt: input.prompt, params: input.params, cacheKey, newOutputId: () => newId('out'), eventId: newId('evt'),
      },
      source,
      outputs,
    );
    // Retention took the source meanwhile: undo the claim's link, and the request runs as if there were no cache.
    if (!made) throw NO_CACHE_SOURCE;
    return true;
  }).catch((err: unknown) => {
    if (err === NO_CACHE_SOURCE) return false;
    throw err;
  });
  if (!copied) return null;
  deps.metrics.generationsAccepted.inc({ modality: input.modality, cache_hit: 'true' });
  deps.metrics.generationsFinished.inc({ modality: input.modality, status: 'succeeded' });
  return (await selectGeneration(deps.db, id))!;
}

/** A request's fields apart from the generation's params, and its input files, checked (checkRequestInputs). */
export interface RequestInputs extends Pick<CreateGenerationInput, 'params' | 'simulate' | 'cache' | 'image' | 'audio'> {}

/** What checking a request's input files reaches: its uploads, a fetch of its URLs, the key's confirmation. */
export type InputPorts = UploadPorts & AudioInputPorts;

/**
 * The request's input image and audio checked (fetched, or read from their uploads), and its params apart: what
 * pricing a request reads besides its fields (the image's size), so acceptance and a quote read it alike. Writes
 * nothing of the generation.
 */
export async function checkRequestInputs(
  deps: InputPorts,
  principal: Principal,
  model: CatalogModel,
  b: Record<string, unknown>,
  imageRule?: 'optional' | 'required',
): Promise<RequestInputs> {
  const { model: _named, simulate, cache, ...params } = b;
  if (b.upload_id !== undefined && b.image_url !== undefined) {
    throw new ApiError('parameter_invalid', 'Give either upload_id or image_url, not both.', 'image_url');
  }
  const hasImage = b.upload_id !== undefined || b.image_url !== undefined;
  if (imageRule === 'required' && !hasImage) throw new ApiError('parameter_missing', 'This request needs an input image: upload_id or image_url.', 'upload_id');
  // Inputs are fetched, stored or completed before the accepting statement: a key from the node's cache is confirmed first.
  if (hasImage || b.audio_url !== undefined || b.audio_upload_id !== undefined) await confirmCachedPrincipal(deps.db, principal);
  const image = hasImage
    ? await resolveImageInput(deps, principal, { upload_id: b.upload_id as string | undefined, image_url: b.image_url as string | undefined })
    : undefined;
  if (typeof b.audio_url === 'string') await verifyAudioUrl(deps, b.audio_url);
  const audio = typeof b.audio_upload_id === 'string' ? await audioFromUpload(deps, principal, b.audio_upload_id) : undefined;
  if (MODALITY_RULES[model.modality].outputs.fitToScale && image) {
    const scale = (params.scale as number | undefined) ?? 2;
    if (image.width * scale * image.height * scale > UPSCALE_MAX_OUTPUT_PIXELS) {
      throw new ApiError('parameter_invalid', `${image.width}×${image.height} × ${scale} would exceed the ${UPSCALE_MAX_OUTPUT_PIXELS}-pixel output limit; use a smaller image or scale.`, 'scale');
    }
  }
  return { params, simulate: simulate as SimulateOptions | undefined, cache: cache as boolean | undefined, image, audio };
}

/**
 * Checks the request's input image and audio (checkRequestInputs), then accepts the generation of `model`, already
 * resolved and held to (generations/accept-request.ts).
 */
export async function submitGeneration(
  deps: SubmitPorts,
  principal: Principal,
  model: CatalogModel,
  b: Record<string, unknown>,
  prompt: string | null,
  imageRule?: 'optional' | 'required',
  extra: Pick<CreateGenerationInput, 'early' | 'claim' | 'sent'> = {},
): Promise<GenerationRow> {
  const inputs = await checkRequestInputs(deps, principal, model, b, imageRule);
  const g = await createGeneration(deps, principal, { modality: model.modality, model, prompt, ...inputs, ...extra });
  // A synchronous generation runs in this request (its job is leased to this process): no worker needs waking.
  if (!g.sync) deps.jobsAvailable.notify();
  return g;
}
