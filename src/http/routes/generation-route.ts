import { Type, type TObject, type TProperties } from '@sinclair/typebox';
import type { Modality } from '../../catalog/index.js';
import type { Principal, Scope } from '../../domain/access.js';
import { createGeneration } from '../../domain/generations/create.js';
import { toGenerationView, type GenerationRow, type OutputRow } from '../../domain/generations/model.js';
import { runGeneration } from '../../domain/generations/runner.js';
import { loadGeneration, loadOutputs } from '../../domain/generations/store.js';
import type { AppDeps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { resolveImageInput } from '../../files/uploads.js';
import type { SimulateOptions } from '../../providers/types.js';
import { defineRoute, type RouteDef } from '../route.js';
import { commonFields, Generation, imageInputFields, QueuedVideo } from './generation-schema.js';

export async function generationView(deps: AppDeps, g: GenerationRow): Promise<Record<string, unknown>> {
  const outputs = (await loadOutputs(deps.db, [g.id])).get(g.id) ?? [];
  return toGenerationView(g, outputs, deps.signer);
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
    auth: { role: 'developer', scope: o.scope, consumesCredits: true },
    errors: [402, 404, 410, ...(sync ? [502] : []), 503],
    schema: {
      body,
      response: sync ? { 200: Generation } : { 202: o.modality === 'video' ? QueuedVideo : Generation },
    },
    handler: async ({ body: raw, principal, deps }) => {
      const b = raw as Record<string, unknown>;
      o.check?.(b);
      const g = await submitGeneration(deps, principal, o.modality, b, o.prompt(b), o.image);
      if (!sync) {
        const view = await generationView(deps, g);
        return { status: 202, body: o.modality === 'video' ? { ...view, generation_id: g.id } : view };
      }
      const { row, outputs } = await finishSynchronously(deps, g);
      return { status: 200, body: toGenerationView(row, outputs, deps.signer) };
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
): Promise<GenerationRow> {
  const { model, simulate, cache, ...params } = b as { model: string; simulate?: SimulateOptions; cache?: boolean } & Record<string, unknown>;
  deps.catalog.resolve(model, modality);
  if (b.upload_id !== undefined && b.image_url !== undefined) {
    throw new ApiError('parameter_invalid', 'Give either upload_id or image_url, not both.', 'image_url');
  }
  const hasImage = b.upload_id !== undefined || b.image_url !== undefined;
  if (imageRule === 'required' && !hasImage) throw new ApiError('parameter_missing', 'This request needs an input image: upload_id or image_url.', 'upload_id');
  const image = hasImage
    ? await resolveImageInput(deps, principal, { upload_id: b.upload_id as string | undefined, image_url: b.image_url as string | undefined })
    : undefined;
  const g = await createGeneration(deps, principal, { modality, model, prompt, params, simulate, cache, image, comparisonId });
  deps.jobsAvailable?.();
  return g;
}

/** Runs a synchronous generation in the request; a failure at the provider is a 502 (it was refunded). */
export async function finishSynchronously(deps: AppDeps, g: GenerationRow): Promise<{ row: GenerationRow; outputs: OutputRow[] }> {
  let row: GenerationRow;
  let outputs: OutputRow[] | undefined;
  if (g.cache_hit) {
    row = g;
  } else {
    const run = await deps.inflight.track(runGeneration(deps, g.id, { row: g, fresh: true }));
    // Finished by this run: its state is known. Otherwise (canceled meanwhile, …) read it.
    row = run.row ?? (await loadGeneration(deps.db, g.id))!;
    outputs = run.row ? run.outputs : undefined;
  }
  if (row.status === 'failed') {
    throw new ApiError('upstream_error', `The generation ${g.id} failed at the provider and was refunded: ${row.error?.message ?? 'unknown error'}`);
  }
  return { row, outputs: outputs ?? (await loadOutputs(deps.db, [row.id])).get(row.id) ?? [] };
}
