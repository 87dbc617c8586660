import type { ValidateFunction } from 'ajv';
import type { Catalog, Modality } from '../catalog/index.js';
import { scopeAllows, type Principal } from '../domain/access.js';
import { ApiError } from '../errors.js';
import { makeAjv, validationError } from '../validation.js';
import { checkGeneration } from './accept-request.js';
import { checkRequestInputs, prepareGeneration, type InputPorts, type PreparePorts } from './accept.js';
import type { HoldPorts } from './hold-to-model.js';
import { MODALITY_RULES } from './modalities.js';

/** What a quote reaches: the catalog, the routes, and a request's input files (an image's size is priced). */
export interface QuotePorts extends HoldPorts, PreparePorts, InputPorts {
  catalog: Catalog;
}

/** The credits a generation request would reserve, were it sent now with this key. */
export interface Quote {
  modality: Modality;
  /** The model's slug (the request may name it by id or alias). */
  model: string;
  credits: number;
}

// As a modality's endpoint validates its body: exactly as sent, the schema's defaults applied.
const ajv = makeAjv(false);
const validators = new Map<Modality, ValidateFunction>();

/** A modality's request validator as its endpoint runs it (its defaults applied); shared with the published prices. */
export function requestValidator(modality: Modality): ValidateFunction {
  let v = validators.get(modality);
  if (!v) {
    v = ajv.compile(MODALITY_RULES[modality].request.schema);
    validators.set(modality, v);
  }
  return v;
}

/** The modality a quote is of: the one it names, else its model's (404/410 for a model that is not served). */
function modalityOf(catalog: Catalog, named: Modality | undefined, request: Record<string, unknown>): Modality {
  if (named) return named;
  if (typeof request.model !== 'string') throw new ApiError('parameter_missing', 'Missing required parameter: model.', 'model');
  const found = catalog.find(request.model);
  // resolve() answers a missing or delisted model as a request to it would (404, 410).
  return found ? catalog.resolve(request.model, found.modality).modality : catalog.resolve(request.model, 'image').modality;
}

/**
 * What a generation request would reserve (contract addenda, Quotes): the accept sequence up to its price, and
 * nothing after it. The request is validated, checked and held to its model, and its input image read (its size
 * prices some routes) exactly as acceptance does (checkGeneration, checkRequestInputs, prepareGeneration), so a
 * quote answers the same 400/403/404/410 and the same credits. Its prompt is not screened and nothing is reserved
 * or written. A cache hit, which a real request with a seed may get for free, is not foreseen: the quote is the
 * reservation of a request that runs.
 */
export async function quoteRequest(deps: QuotePorts, principal: Principal, body: Record<string, unknown>): Promise<Quote> {
  const { modality: named, ...request } = body as { modality?: Modality } & Record<string, unknown>;
  const modality = modalityOf(deps.catalog, named, request);
  const rules = MODALITY_RULES[modality].request;
  if (!scopeAllows(principal.scopes, rules.scope)) throw new ApiError('insufficient_role', `This key lacks the '${rules.scope}' scope.`);
  const sent = new Set(Object.keys(request));
  const validate = requestValidator(modality);
  if (!validate(request)) throw validationError(validate.errors ?? [], 'body');
  const { model, prompt } = checkGeneration(deps, principal, { kind: 'generation', modality, body: request, sent });
  const inputs = await checkRequestInputs(deps, principal, model, request, rules.image);
  const prepared = await prepareGeneration(deps, principal, { modality, model, prompt, ...inputs, sent });
  return { modality, model: model.slug, credits: prepared.price };
}
