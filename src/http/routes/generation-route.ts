import { Type, type TObject, type TProperties } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Modality } from '../../catalog/index.js';
import type { Principal, Scope } from '../../domain/access.js';
import { cacheEntryKey, createGeneration } from '../../domain/generations/create.js';
import { toGenerationView, type GenerationRow, type OutputRow } from '../../domain/generations/model.js';
import { finishFailed, runGeneration, type RunResult } from '../../domain/generations/runner.js';
import { loadGeneration, loadOutputs } from '../../domain/generations/store.js';
import type { AppDeps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { verifyAudioUrl } from '../../files/audio-input.js';
import { resolveImageInput } from '../../files/uploads.js';
import { UPSCALE_MAX_OUTPUT_PIXELS } from '../../media/index.js';
import type { SimulateOptions, UpstreamStatus } from '../../providers/types.js';
import { defineRoute, type RouteDef } from '../route.js';
import { commonFields, Generation, imageInputFields, QueuedVideo } from './generation-schema.js';
import { confirmCachedPrincipal } from '../../domain/api-keys.js';
import type { EarlyDispatch } from '../../domain/generations/early-dispatch.js';

const INFO_OR_BELOW = new Set(['trace', 'debug', 'info']);

/** Later log lines of this request (its completion line among them) name the generation it created. */
export function tagRequestLog(request: FastifyRequest, generationId: string): void {
  // A child logger per request costs a little; none is made when its lines would not be written anyway.
  if (INFO_OR_BELOW.has(request.log.level)) request.log = request.log.child({ generationId });
}

export async function generationView(deps: AppDeps, g: GenerationRow): Promise<Record<string, unknown>> {
  const outputs = (await loadOutputs(deps.db, [g.id])).get(g.id) ?? [];
  return toGenerationView(g, outputs, deps.links);
}

interface ModalityRouteOptions<P extends TProperties> {
  modality: Modality;
  path: string;
  operationId: string;
  summary: string;
  description: string;
  scope: Scope;
  fields: P;
  /** Whether the request may or must carry an input image (upload_id or image_url). */
  image?: 'optional' | 'required';
  /** The text stored as the generation's `prompt`. */
  prompt: (body: Record<string, unknown>) => string | null;
  /** Cross-field rules the schema cannot say (one of two fields, …). */
  check?: (body: Record<string, unknown>) => void;
}

/** Each modality's request rules, as its endpoint declares them; comparisons validate their children with these. */
export interface ModalitySpec {
  body: TObject;
  image?: 'optional' | 'required';
  prompt: (body: Record<string, unknown>) => string | null;
  check?: (body: Record<string, unknown>) => void;
  scope: Scope;
}
export const MODALITY_SPECS = new Map<Modality, ModalitySpec>();

/**
 * One factory for the eight generation endpoints: they differ in their fields
 * and in being synchronous (images, voice, chat: 200 with the finished
 * generation) or asynchronous (202 with the queued one).
 */
export function modalityRoute<P extends TProperties>(o: ModalityRouteOptions<P>): RouteDef {
  const sync = o.modality === 'image' || o.modality === 'voice' || o.modality === 'chat';
  // The properties are assembled at run time, so the schema is typed as a plain object.
  const properties: TProperties = { ...commonFields, ...(o.image ? imageInputFields : {}), ...o.fields };
  const body: TObject = Type.Object(properties, { additionalProperties: false });
  MODALITY_SPECS.set(o.modality, { body, image: o.image, prompt: o.prompt, check: o.check, scope: o.scope });
  return defineRoute({
    method: 'POST',
    path: o.path,
    operationId: o.operationId,
    summary: o.summary,
    description: o.description,
    tag: 'Generations',
    // Every effect follows createGeneration's accepting statement (or its confirmed cache copy).
    auth: { role: 'developer', scope: o.scope, consumesCredits: true, cacheable: true },
    errors: [402, 404, 410, ...(sync ? [502] : []), 503],
    schema: {
      body,
      response: sync ? { 200: Generation } : { 202: o.modality === 'video' ? QueuedVideo : Generation },
    },
    handler: async ({ body: raw, principal, deps, request }) => {
      const b = raw as Record<string, unknown>;
      o.check?.(b);
      const g = await submitGeneration(deps, principal, o.modality, b, o.prompt(b), o.image);
      tagRequestLog(request, g.id);
      if (!sync) {
        const view = await generationView(deps, g);
        return { status: 202, body: o.modality === 'video' ? { ...view, generation_id: g.id } : view };
      }
      const { row, outputs } = await finishSynchronously(deps, g);
      return { status: 200, body: await toGenerationView(row, outputs, deps.links) };
    },
  }) as RouteDef;
}

/** Validates the model and the input image, then accepts the generation. */
export async function submitGeneration(
  deps: AppDeps,
  principal: Principal,
  modality: Modality,
  b: Record<string, unknown>,
  prompt: string | null,
  imageRule?: 'optional' | 'required',
  comparisonId?: string,
  early?: EarlyDispatch,
): Promise<GenerationRow> {
  const { model, simulate, cache, ...params } = b as { model: string; simulate?: SimulateOptions; cache?: boolean } & Record<string, unknown>;
  deps.catalog.resolve(model, modality);
  if (b.upload_id !== undefined && b.image_url !== undefined) {
    throw new ApiError('parameter_invalid', 'Give either upload_id or image_url, not both.', 'image_url');
  }
  const hasImage = b.upload_id !== undefined || b.image_url !== undefined;
  if (imageRule === 'required' && !hasImage) throw new ApiError('parameter_missing', 'This request needs an input image: upload_id or image_url.', 'upload_id');
  // Inputs are fetched, stored or completed before the accepting statement: a key from the node's cache is confirmed first.
  if (hasImage || b.audio_url !== undefined) await confirmCachedPrincipal(deps.db, principal);
  const image = hasImage
    ? await resolveImageInput(deps, principal, { upload_id: b.upload_id as string | undefined, image_url: b.image_url as string | undefined })
    : undefined;
  if (typeof b.audio_url === 'string') await verifyAudioUrl(deps, b.audio_url);
  if (modality === 'upscale' && image) {
    const scale = (params.scale as number | undefined) ?? 2;
    if (image.width * scale * image.height * scale > UPSCALE_MAX_OUTPUT_PIXELS) {
      throw new ApiError('parameter_invalid', `${image.width}×${image.height} × ${scale} would exceed the ${UPSCALE_MAX_OUTPUT_PIXELS}-pixel output limit; use a smaller image or scale.`, 'scale');
    }
  }
  const g = await createGeneration(deps, principal, { modality, model, prompt, params, simulate, cache, image, comparisonId, early });
  // A synchronous generation runs in this request (its job is leased to this process): no worker needs waking.
  if (!g.sync) deps.jobsAvailable?.();
  return g;
}

/**
 * Runs a synchronous generation in the request; a failure at the provider is a 502 (it was refunded).
 * With `replyEarly`, a file-less reply (chat) comes back as soon as the provider answers (`early`), and
 * its settlement runs on, tracked under the generation id (a GET of it on this node waits for it).
 */
export async function finishSynchronously(
  deps: AppDeps,
  g: GenerationRow,
  opts: { replyEarly?: boolean; early?: EarlyDispatch } = {},
): Promise<{ row: GenerationRow; outputs: OutputRow[]; early?: UpstreamStatus }> {
  let row: GenerationRow;
  let outputs: OutputRow[] | undefined;
  if (g.cache_hit) {
    row = g;
  } else {
    let run: RunResult;
    try {
      run = await deps.inflight.track(runGeneration(deps, g.id, { row: g, fresh: true, replyEarly: opts.replyEarly === true, early: opts.early }));
    } catch (err) {
      // The caller gets an error, so the generation must not run on and be charged later: fail it (refunded).
      await finishFailed(deps, g, 'mmgen failed while running this generation.').catch(() => {});
      throw err;
    }
    if (run.early) {
      const settled = deps.inflight.track(
        run.early.settled.catch((err: unknown) => {
          // The lease runs out and a worker finishes the generation: charged once, whatever happened here.
          deps.log.error({ err, generationId: g.id }, 'settling a reply failed; the job is left to a worker');
          return { outcome: 'finished' } as RunResult;
        }),
        g.id,
      );
      // A repeat of a cacheable request on this node waits for it too (createGeneration), to be answered from the cache.
      if (g.cache_key !== null) deps.inflight.track(settled, cacheEntryKey(g.organization_id, g.mode, g.cache_key));
      return { row: { ...g, status: 'succeeded' }, outputs: [], early: run.early.status };
    }
    // Finished by this run: its state is known. Otherwise (canceled meanwhile, …) read it.
    row = run.row ?? (await loadGeneration(deps.db, g.id))!;
    outputs = run.row ? run.outputs : undefined;
  }
  if (row.status === 'failed') {
    throw new ApiError('upstream_error', `The generation ${g.id} failed at the provider and was refunded: ${row.error?.message ?? 'unknown error'}`);
  }
  return { row, outputs: outputs ?? (await loadOutputs(deps.db, [row.id])).get(row.id) ?? [] };
}
