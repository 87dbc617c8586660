import { Type, type TObject, type TProperties } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { ValidateFunction } from 'ajv';
import { speaksFirst, type CatalogModel, type Modality } from '../../catalog/index.js';
import { ApiError } from '../../errors.js';
import { modelParameters, type JsonSchemaObject } from '../../providers/parameters.js';
import { ModerationUnavailableError, screenPrompt } from '../../moderation/prompt-screen.js';
import { makeAjv, validationError } from '../validation.js';
import type { Principal, Scope } from '../../domain/access.js';
import { submitGeneration } from '../../generations/accept.js';
import { MODALITY_RULES } from '../../generations/modalities.js';
import { toGenerationView, type GenerationRow, type OutputRow } from '../../generations/views.js';
import { resumedGeneration } from '../../generations/resume.js';
import { finishSynchronously, resumeSynchronously } from '../../generations/run-sync.js';
import { selectOutputs } from '../../store/generations.js';
import type { AppDeps } from '../../deps.js';
import { defineRoute, type RouteDef } from '../route.js';
import { commonFields, Generation, imageInputFields } from './generation-schema.js';

export type GenerationViewPorts = Pick<AppDeps, 'db' | 'links'>;

const INFO_OR_BELOW = new Set(['trace', 'debug', 'info']);

/** Later log lines of this request (its completion line among them) name the generation it created. */
export function tagRequestLog(request: FastifyRequest, generationId: string): void {
  // A child logger per request costs a little; none is made when its lines would not be written anyway.
  if (INFO_OR_BELOW.has(request.log.level)) request.log = request.log.child({ generationId });
}

export async function generationView(deps: GenerationViewPorts, g: GenerationRow): Promise<Record<string, unknown>> {
  const outputs = (await selectOutputs(deps.db, [g.id])).get(g.id) ?? [];
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
  /** The queued answer (202) repeats the id as `generation_id`, with this schema (contract: videos). */
  queuedWithGenerationId?: TObject;
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

/** A model's `parameters` (contract §3a): its modality's request schema narrowed by its routes' records. */
export function parametersOf(model: CatalogModel): JsonSchemaObject {
  const spec = MODALITY_SPECS.get(model.modality);
  if (!spec) return { type: 'object', properties: {} };
  const speech = model.speech ? { slug: model.speech.slug, parameters: parametersOf(model.speech) } : undefined;
  return modelParameters(model, spec.body as unknown as JsonSchemaObject, speech);
}

// By schema: a model's parameters change with the catalog's date (its routes) and its speech step.
const checkers = new WeakMap<JsonSchemaObject, ValidateFunction>();
const ajv = makeAjv(false);

/** How a request names a field in its errors (a comparison's child fields are `params.<field>`). */
export type ParamName = (field: string) => string;

/**
 * Holds a request to its model's parameters before anything is reserved: the model's own defaults for what the
 * client did not send (a model taking 6 or 10 s gets 6, not the modality's 5), then 400 for a field the model does
 * not take, a value outside its enums or ranges, or a missing field it requires (`param` names it).
 */
export function enforceParameters(model: CatalogModel, body: Record<string, unknown>, sent: ReadonlySet<string> | null, paramName: ParamName = (f) => f): void {
  const parameters = parametersOf(model);
  for (const [field, schema] of Object.entries(parameters.properties)) {
    if (schema.default !== undefined && !sent?.has(field)) body[field] = schema.default;
  }
  // What the model is held to: what the client sent, and the defaults of the fields the model takes. A modality
  // default of a field the model does not take stays in the params (pricing reads it) but is never sent upstream.
  const checked: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    if (field in parameters.properties) checked[field] = value;
    else if (sent === null || sent.has(field)) {
      throw new ApiError('parameter_invalid', `The model '${model.slug}' does not take ${field}; GET /v1/models/${model.slug} lists its parameters.`, paramName(field));
    }
  }
  if (parameters['x-mmgen-image'] === 'required' && checked.upload_id === undefined && checked.image_url === undefined) {
    throw new ApiError('parameter_missing', `The model '${model.slug}' needs an input image: upload_id or image_url.`, paramName('upload_id'));
  }
  let check = checkers.get(parameters);
  if (!check) {
    check = ajv.compile(parameters);
    checkers.set(parameters, check);
  }
  if (!check(checked)) {
    const err = validationError(check.errors ?? [], 'body');
    throw new ApiError(err.code, `${err.message.replace(/\.$/, '')} for the model '${model.slug}'.`, err.param === undefined ? undefined : paramName(err.param));
  }
}

/** The request field a modality's prompt is in, named by a refusal. */
const PROMPT_PARAM: Partial<Record<Modality, string>> = { voice: 'text', avatar: 'text', chat: 'messages' };

/**
 * A prompt held to the organization's moderation policy before anything is reserved (contract §11): its blocklist,
 * the profanity filter, and the hosted classifier when one is configured. 400 content_policy_violation names the
 * rule, never echoing the prompt; a hosted classifier that cannot answer is 503 (the prompt is not let through).
 */
export async function screenRequestPrompt(deps: Pick<AppDeps, 'db' | 'moderator' | 'policies'>, principal: Principal, text: string | null, param = 'prompt'): Promise<void> {
  if (!text) return;
  const policy = await deps.policies.get(deps.db, principal.organizationId);
  let verdict;
  try {
    verdict = await screenPrompt(text, { blocklist: policy.prompt_blocklist, hosted: deps.moderator.text, threshold: policy.threshold });
  } catch (err) {
    if (err instanceof ModerationUnavailableError) {
      throw new ApiError('service_unavailable', 'The moderation service that screens prompts did not answer; nothing was reserved. Try again shortly.').withHeader('Retry-After', '5');
    }
    throw err;
  }
  if (verdict.refused) throw new ApiError('content_policy_violation', `The organization's moderation policy refuses this prompt: ${verdict.reason}.`, param);
}

/**
 * A request held to its model before anything is fetched or reserved: its parameters (enforceParameters), then a
 * route that takes it (each route documents its own subset: 400 naming the field when none does, 503 when none is
 * configured). `body` gets the model's defaults.
 */
export function holdToModel(
  deps: Pick<AppDeps, 'providers'>,
  principal: Principal,
  model: CatalogModel,
  body: Record<string, unknown>,
  sent: ReadonlySet<string> | null,
  paramName: ParamName = (f) => f,
): void {
  enforceParameters(model, body, sent, paramName);
  const { model: _model, simulate: _simulate, cache: _cache, ...params } = body;
  try {
    deps.providers.choose(principal.mode, model, { params, sent, image: body.upload_id !== undefined || body.image_url !== undefined });
    if (speaksFirst(model, body)) {
      // The speech step needs a route too: its voice model's, for this text and voice.
      const speech = { text: body.text, ...(body.voice_id === undefined ? {} : { voice_id: body.voice_id }) };
      deps.providers.choose(principal.mode, model.speech, { params: speech, sent: new Set(Object.keys(speech)), image: false });
      // Shown in the generation's params: which voice model spoke (and is priced into the reservation).
      body.speech_model = model.speech.slug;
    }
  } catch (err) {
    if (err instanceof ApiError && err.code === 'parameter_invalid' && err.param) throw new ApiError(err.code, err.message, paramName(err.param));
    throw err;
  }
}

/** A generation request as a route has shaped it: mmgen's modality fields (with model, simulate, cache). */
export interface GenerationRequest {
  modality: Modality;
  body: Record<string, unknown>;
  /** The fields the client sent (the model's defaults fill the rest); null: all of them count as sent. */
  sent: ReadonlySet<string> | null;
  prompt: string | null;
  image?: 'optional' | 'required' | undefined;
  /** How the route names a field in its errors, when its shape differs from mmgen's (a compatible path). */
  paramName?: ParamName;
  /** Runs once the request is held to its model and its prompt screened, before anything is reserved. */
  beforeSubmit?: () => Promise<void>;
}

/**
 * The accepting half every generation route shares: held to its model (contract §3a), its prompt screened (§11),
 * then reserved and accepted; or, when an earlier request with this Idempotency-Key accepted a generation and
 * died, that generation (`resume`), never a second one.
 */
export async function acceptGenerationRequest(
  deps: AppDeps,
  principal: Principal,
  request: FastifyRequest,
  r: GenerationRequest,
): Promise<{ g: GenerationRow; resume: string | null }> {
  const claim = request.idempotency ?? undefined;
  const resume = claim?.resume ?? null;
  let g: GenerationRow;
  if (resume) g = await resumedGeneration(deps, principal, resume, { untilTerminal: false });
  else {
    const name = r.paramName ?? ((f: string) => f);
    holdToModel(deps, principal, deps.catalog.resolve(r.body.model as string, r.modality), r.body, r.sent, name);
    await screenRequestPrompt(deps, principal, r.prompt, name(PROMPT_PARAM[r.modality] ?? 'prompt'));
    await r.beforeSubmit?.();
    g = await submitGeneration(deps, principal, r.modality, r.body, r.prompt, r.image, { claim, ...(r.sent ? { sent: r.sent } : {}) });
  }
  tagRequestLog(request, g.id);
  return { g, resume };
}

/** A synchronous generation run to its end in the request (or, resumed, waited for): 502/451 when it failed. */
export function finishGenerationRequest(deps: AppDeps, principal: Principal, g: GenerationRow, resume: string | null): Promise<{ row: GenerationRow; outputs: OutputRow[] }> {
  return resume ? resumeSynchronously(deps, principal, resume) : finishSynchronously(deps, g);
}

/**
 * One factory for the eight generation endpoints: they differ in their fields
 * and in being synchronous (images, voice, chat: 200 with the finished
 * generation) or asynchronous (202 with the queued one).
 */
export function modalityRoute<P extends TProperties>(o: ModalityRouteOptions<P>): RouteDef {
  const sync = MODALITY_RULES[o.modality].sync;
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
      response: sync ? { 200: Generation } : { 202: o.queuedWithGenerationId ?? Generation },
    },
    handler: async ({ body: raw, principal, deps, request }) => {
      const b = raw as Record<string, unknown>;
      o.check?.(b);
      const { g, resume } = await acceptGenerationRequest(deps, principal, request, {
        modality: o.modality, body: b, sent: request.sentFields, prompt: o.prompt(b), image: o.image,
      });
      if (!sync) {
        const view = await generationView(deps, g);
        return { status: 202, body: o.queuedWithGenerationId ? { ...view, generation_id: g.id } : view };
      }
      const { row, outputs } = await finishGenerationRequest(deps, principal, g, resume);
      return { status: 200, body: await toGenerationView(row, outputs, deps.links) };
    },
  }) as RouteDef;
}
