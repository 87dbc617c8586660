import { Type } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import type { CatalogModel, Modality } from '../../catalog/index.js';
import { scopeAllows } from '../../domain/access.js';
import { assertPlanWidth, comparisonView, createComparison, MODELS_PER_COMPARISON } from '../../domain/comparisons.js';
import { ApiError } from '../../errors.js';
import { verifyAudioUrl } from '../../files/audio-input.js';
import { audioFromUpload, resolveImageInput } from '../../files/uploads.js';
import { makeAjv, validationError } from '../validation.js';
import { defineRoute } from '../route.js';
import { IdParams, Nullable, Timestamp } from '../schemas.js';
import { holdToModel, MODALITY_SPECS, screenRequestPrompt } from './generation-route.js';
import { MODALITY_RULES } from '../../generations/modalities.js';
import { Generation, Simulate } from './generation-schema.js';

const Comparison = Type.Object(
  {
    id: Type.String({ description: 'cmp_…' }),
    object: Type.Literal('comparison'),
    status: Type.String({ enum: ['queued', 'running', 'completed'] }),
    modality: Type.String(),
    prompt: Nullable(Type.String()),
    models: Type.Array(Type.String()),
    generations: Type.Array(Generation),
    reserved_credits: Type.Integer(),
    created_at: Timestamp,
    completed_at: Nullable(Timestamp),
  },
  { title: 'Comparison' },
);

/** Where a comparison's one prompt goes in each modality's request (modalities.ts). */
function withPrompt(modality: Modality, prompt: string | undefined, params: Record<string, unknown>): Record<string, unknown> {
  return prompt === undefined ? params : MODALITY_RULES[modality].withPrompt(prompt, params);
}

/** Errors about an input name the field where a comparison has it: params.upload_id, params.image_url, params.audio_url. */
async function inParams<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof ApiError && err.param !== undefined && !err.param.startsWith('params.')) {
      throw Object.assign(new ApiError(err.code, err.message, `params.${err.param}`), { headers: err.headers });
    }
    throw err;
  }
}

const validators = new Map<Modality, ValidateFunction>();
// Made on first use: most processes never validate a comparison child.
let ajv: ReturnType<typeof makeAjv> | undefined;

/** Validates one child's request exactly as the modality's own endpoint would; errors name `params.…`. */
function validateChild(modality: Modality, body: Record<string, unknown>): Record<string, unknown> {
  const spec = MODALITY_SPECS.get(modality)!;
  let validate = validators.get(modality);
  if (!validate) {
    ajv ??= makeAjv(false);
    validate = ajv.compile(spec.body);
    validators.set(modality, validate);
  }
  const copy = structuredClone(body);
  if (!validate(copy)) {
    const err = validationError(validate.errors ?? [], 'body');
    const param = err.param === undefined || err.param === 'model' || err.param === 'prompt' ? err.param : `params.${err.param}`;
    throw new ApiError(err.code, err.message.replace(err.param ?? '\u0000', param ?? ''), param);
  }
  spec.check?.(copy);
  return copy;
}

export const createComparisonRoute = defineRoute({
  method: 'POST',
  path: '/v1/comparisons',
  operationId: 'createComparison',
  summary: 'Send one prompt to several models side by side (asynchronous)',
  description:
    `Models must be distinct and of one modality; at most ${Object.entries(MODELS_PER_COMPARISON).map(([p, n]) => `${p} ${n}`).join(', ')} by plan. ` +
    'The credits of every child are reserved together, or nothing is (402). Needs the write scope of the models\' modality.',
  tag: 'Comparisons',
  auth: { role: 'developer', consumesCredits: true },
  errors: [402, 404, 410, 503],
  schema: {
    body: Type.Object(
      {
        // No maxItems: the plan sets the width (403 plan_limit_exceeded, after the models are checked); the body's size limit bounds the list.
        models: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 2, uniqueItems: true }),
        prompt: Type.Optional(Type.String({ minLength: 1, maxLength: 5000 })),
        params: Type.Optional(Type.Object({}, { additionalProperties: true, description: "The modality's request fields (as for its own endpoint), applied to every model." })),
        simulate: Type.Optional(Simulate),
      },
      { additionalProperties: false },
    ),
    response: { 202: Comparison },
  },
  handler: async ({ body, principal, deps, request }) => {
    const claim = request.idempotency ?? undefined;
    // An earlier request with this Idempotency-Key created the comparison and died: its answer, not a new one.
    if (claim?.resume) return { status: 202, body: await comparisonView(deps, principal, claim.resume) };
    const params = (body.params ?? {}) as Record<string, unknown>;
    if ('model' in params) throw new ApiError('parameter_invalid', 'Name the models in `models`, not in params.', 'params.model');
    // Check order of the contract: models (404/410), one modality (400), scope (403), plan width (403), then credits.
    const models: CatalogModel[] = body.models.map((name, i) => {
      const m = deps.catalog.find(name);
      if (!m) throw new ApiError('model_not_found', `No such model: '${name}'.`, `models[${i}]`);
      if (m.status === 'delisted') throw new ApiError('model_unavailable', `The model '${m.slug}' has been delisted.`, `models[${i}]`);
      return m;
    });
    const modality = models[0]!.modality;
    if (models.some((m) => m.modality !== modality)) {
      throw new ApiError('parameter_invalid', `A comparison compares models of one modality; these serve ${[...new Set(models.map((m) => m.modality))].join(', ')}.`, 'models');
    }
    if (new Set(models.map((m) => m.slug)).size !== models.length) {
      throw new ApiError('parameter_invalid', 'The models must be distinct.', 'models');
    }
    const spec = MODALITY_SPECS.get(modality)!;
    if (!scopeAllows(principal.scopes, spec.scope)) throw new ApiError('insufficient_role', `This key lacks the '${spec.scope}' scope.`);
    assertPlanWidth(principal.plan, models.length);

    const asRequest = withPrompt(modality, body.prompt, { model: models[0]!.slug, ...params });
    const fields = validateChild(modality, asRequest);
    const { model: _m, ...childParams } = fields;
    // Each child is held to its own model's parameters and routes, with that model's defaults (contract §3a).
    const sent = new Set(Object.keys(asRequest));
    const fromPrompt = new Set(Object.keys(asRequest).filter((f) => !(f in params)));
    await screenRequestPrompt(deps, principal, body.prompt ?? null);
    const children = models.map((m, i) => {
      const child: Record<string, unknown> = { ...fields, model: m.slug };
      const paramName = (f: string) => (f === 'model' ? `models[${i}]` : fromPrompt.has(f) ? 'prompt' : `params.${f}`);
      holdToModel(deps, principal, m, child, sent, paramName);
      const { model: _model, ...own } = child;
      return { model: m.slug, prompt: spec.prompt(child), params: own, sent };
    });
    if (spec.image === 'required' && childParams.upload_id === undefined && childParams.image_url === undefined) {
      throw new ApiError('parameter_missing', 'These models need an input image: params.upload_id or params.image_url.', 'params.upload_id');
    }
    const image =
      childParams.upload_id !== undefined || childParams.image_url !== undefined
        ? await inParams(resolveImageInput(deps, principal, { upload_id: childParams.upload_id as string | undefined, image_url: childParams.image_url as string | undefined }))
        : undefined;
    if (typeof childParams.audio_url === 'string') await inParams(verifyAudioUrl(deps, childParams.audio_url));
    const audio = typeof childParams.audio_upload_id === 'string' ? await inParams(audioFromUpload(deps, principal, childParams.audio_upload_id)) : undefined;
    const cmp = await createComparison(deps, principal, {
      modality,
      prompt: body.prompt ?? null,
      params,
      simulate: body.simulate as never,
      image,
      audio,
      children,
      claim,
    });
    return { status: 202, body: await comparisonView(deps, principal, cmp.id) };
  },
});

export const getComparisonRoute = defineRoute({
  method: 'GET',
  path: '/v1/comparisons/{id}',
  operationId: 'getComparison',
  summary: 'A comparison with all its child generations',
  tag: 'Comparisons',
  auth: { role: 'viewer', scope: 'generations:read' },
  schema: { params: IdParams, response: { 200: Comparison } },
  handler: async ({ params, principal, deps }) => ({ status: 200, body: await comparisonView(deps, principal, params.id) }),
});
