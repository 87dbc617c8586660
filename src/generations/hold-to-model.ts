import type { ValidateFunction } from 'ajv';
import { speaksFirst, type CatalogModel } from '../catalog/index.js';
import type { Principal } from '../domain/access.js';
import { ApiError } from '../errors.js';
import { modelParameters, type JsonSchemaObject } from '../providers/parameters.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { RecordFinder } from '../providers/upstream-models.js';
import { makeAjv, validationError } from '../validation.js';
import { MODALITY_RULES } from './modalities.js';

/** A model's `parameters` (contract §3a): its modality's request schema narrowed by its routes' records (the installation's). */
export function parametersOf(records: RecordFinder, model: CatalogModel): JsonSchemaObject {
  const schema = MODALITY_RULES[model.modality].request.schema as unknown as JsonSchemaObject;
  const speech = model.speech ? { slug: model.speech.slug, parameters: parametersOf(records, model.speech) } : undefined;
  return modelParameters(records, model, schema, speech);
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
export function enforceParameters(
  records: RecordFinder,
  model: CatalogModel,
  body: Record<string, unknown>,
  sent: ReadonlySet<string> | null,
  paramName: ParamName = (f) => f,
): void {
  const parameters = parametersOf(records, model);
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

/** What holding a request to its model reaches. */
export interface HoldPorts {
  providers: ProviderRegistry;
}

/**
 * A request held to its model before anything is fetched or reserved: its parameters (enforceParameters), then a
 * route that takes it (each route documents its own subset: 400 naming the field when none does, 503 when none is
 * configured). `body` gets the model's defaults.
 */
export function holdToModel(
  deps: HoldPorts,
  principal: Principal,
  model: CatalogModel,
  body: Record<string, unknown>,
  sent: ReadonlySet<string> | null,
  paramName: ParamName = (f) => f,
): void {
  enforceParameters(deps.providers.records, model, body, sent, paramName);
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
