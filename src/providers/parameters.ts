import type { CatalogModel, Modality, ModelRoute } from '../catalog/index.js';
import { IMAGE_FIELD, mappedFields, takesImage } from './upstream-input.js';
import { cachedFor, type RecordFinder } from './upstream-models.js';
import { propertyAt, type PropertySchema, type UpstreamModelRecord } from './upstream-record.js';

/**
 * A model's `parameters` (contract §3a): the JSON Schema of the modality
 * fields this model accepts, with its own enums, ranges, defaults and
 * required fields, derived from the records of its routes
 * (docs/upstream-models.md). What the schema allows is what the model
 * accepts: a request is served only by the routes that take what it carries
 * (routeRefusal, applied by the registry at acceptance and at every
 * fallback), so a field is declared when some route takes it (a request
 * carrying it then goes to those routes), and its values are those that
 * every route taking it takes (the intersection), so that whichever of
 * them serves the request takes the value. What no route's record maps, the
 * model does not take. Routes whose bodies are built in code (records
 * without a map) restrict nothing.
 */
export interface JsonSchemaObject {
  type: 'object';
  properties: Record<string, PropertySchema>;
  required?: string[];
  additionalProperties?: boolean;
  [k: string]: unknown;
}

/** Fields that are mmgen's own, not the model's: never restricted by a record. */
const OWN_FIELDS = new Set(['model', 'simulate', 'cache']);
/** The request fields that carry the input image (`image` in a record's map). */
const IMAGE_REQUEST_FIELDS = ['upload_id', 'image_url'];
/**
 * Request fields a route takes as another: an uploaded file reaches the provider as that field (an avatar's
 * `audio_upload_id` is sent as `audio_url`, a data URI: generations/speech-step.ts).
 */
const SENT_AS: Record<string, string> = { audio_upload_id: 'audio_url' };

/**
 * A request's need for one of several fields, which no single field's schema can say: at least one of `fields`
 * (with `exclusive`, exactly one). Declared in `parameters` as `anyOf` (`oneOf`) of the fields each alone
 * required, so a client holding a request to the schema refuses what the server refuses.
 */
interface OneOfFields {
  fields: readonly string[];
  exclusive?: boolean;
}

/** The input image, where a model needs one (upload_id and image_url are its two forms). */
const AN_IMAGE: OneOfFields = { fields: IMAGE_REQUEST_FIELDS };
/**
 * Each modality's "one of these" rules: the modality's check at its endpoint refuses a request without one, with
 * its own message (generations' modality declarations); test/integration/declared-parameters.test.ts holds the
 * two together. A modality that needs an input image needs one of its two forms.
 */
const MODALITY_NEEDS: Record<Modality, readonly OneOfFields[]> = {
  image: [],
  video: [],
  voice: [],
  music: [],
  chat: [],
  '3d': [{ fields: ['prompt', ...IMAGE_REQUEST_FIELDS] }],
  avatar: [AN_IMAGE, { fields: ['text', 'audio_url', 'audio_upload_id'], exclusive: true }],
  upscale: [AN_IMAGE],
};

type Spec = Exclude<UpstreamModelRecord['map'][string], string>;

/** Values of an upstream property as mmgen's field means them, undoing the route's conversion; undefined if it cannot be undone. */
export function backToMmgen(spec: Spec, value: unknown): number | string | boolean | undefined {
  switch (spec.as) {
    case undefined:
      return typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean' ? value : undefined;
    case 'string':
    case 'number': {
      const n = Number(value);
      return Number.isFinite(n) ? n : undefined;
    }
    case 'seconds_suffix':
    case 'times_suffix': {
      const n = parseFloat(String(value));
      return Number.isFinite(n) ? n : undefined;
    }
    case 'milliseconds':
      return typeof value === 'number' ? value / 1000 : undefined;
    case 'frames':
      return typeof value === 'number' ? (value - (spec.plus ?? 0)) / (spec.fps ?? 1) : undefined;
    default:
      return undefined;
  }
}

type RouteLimits = { taken: false } | { taken: true; limits: PropertySchema; required: boolean };

// routeRefusal runs several times per request (choosing the route, pricing the serving routes, each attempt), and a
// record's answer for a field never changes: a record is not mutated once read (a reload makes new objects), so the
// answers are kept per record object and go with it.
const limitsByRecord = new WeakMap<UpstreamModelRecord, Map<string, RouteLimits>>();

/** What one route's record says of one mmgen field: not taken, or taken with these limits (treat as read-only). */
function routeLimits(record: UpstreamModelRecord, field: string): RouteLimits {
  let known = limitsByRecord.get(record);
  if (!known) limitsByRecord.set(record, (known = new Map()));
  let r = known.get(field);
  if (!r) known.set(field, (r = readRouteLimits(record, field)));
  return r;
}

function readRouteLimits(record: UpstreamModelRecord, field: string): RouteLimits {
  const entry = Object.entries(record.map).find(([key]) => key.split(',').includes(field));
  if (!entry) return { taken: false };
  const [key, raw] = entry;
  const spec: Spec = typeof raw === 'string' ? { to: raw } : raw;
  const property = propertyAt(record, spec.to) ?? {};
  const top = spec.to.split('.')[0]!;
  const required = ((record.input as { required?: string[] }).required ?? []).includes(top) && !(top in record.set);
  // A conversion from two fields (width,height → an aspect ratio) chooses among the upstream's values: no limit on either.
  if (key.includes(',')) return { taken: true, limits: {}, required };
  const limits: PropertySchema = {};
  if (Array.isArray(property.enum)) {
    const values = property.enum.map((v) => backToMmgen(spec, v)).filter((v) => v !== undefined);
    if (values.length === property.enum.length) limits.enum = values;
  }
  for (const bound of ['minimum', 'maximum'] as const) {
    const v = property[bound];
    if (typeof v === 'number') {
      const back = backToMmgen(spec, v);
      if (typeof back === 'number') limits[bound] = back;
    }
  }
  // A text sent as it is keeps its documented length limits (fal's nano-banana wants a prompt of 3 characters or more).
  if (!spec.as) {
    if (typeof property.maxLength === 'number') limits.maxLength = property.maxLength;
    if (typeof property.minLength === 'number') limits.minLength = property.minLength;
  }
  return { taken: true, limits, required };
}

/** Whether a field's schema says integers only. */
const integerOnly = (schema: PropertySchema) => schema.type === 'integer' || (Array.isArray(schema.type) && schema.type.includes('integer') && !schema.type.includes('number'));

/** Narrows a field's schema by limits (the modality's own limits stand; the routes' can only tighten them). */
function narrow(schema: PropertySchema, limits: PropertySchema): PropertySchema {
  const out = { ...schema };
  if (limits.enum) out.enum = out.enum ? out.enum.filter((v) => limits.enum!.includes(v)) : [...limits.enum];
  if (typeof limits.minimum === 'number') out.minimum = typeof out.minimum === 'number' ? Math.max(out.minimum, limits.minimum) : limits.minimum;
  if (typeof limits.maximum === 'number') out.maximum = typeof out.maximum === 'number' ? Math.min(out.maximum, limits.maximum) : limits.maximum;
  // A bound read back from another unit (frames at 24 fps) can fall between whole seconds: an integer field's ends are whole.
  if (integerOnly(out)) {
    if (typeof out.minimum === 'number') out.minimum = Math.ceil(out.minimum);
    if (typeof out.maximum === 'number') out.maximum = Math.floor(out.maximum);
  }
  if (typeof limits.maxLength === 'number') out.maxLength = typeof out.maxLength === 'number' ? Math.min(out.maxLength, limits.maxLength) : limits.maxLength;
  if (typeof limits.minLength === 'number') out.minLength = typeof out.minLength === 'number' ? Math.max(out.minLength, limits.minLength) : limits.minLength;
  // An enum within a range keeps the values the range allows, and needs no range beside it.
  if (out.enum) {
    out.enum = out.enum.filter((v) => allows({ minimum: out.minimum, maximum: out.maximum }, v));
    delete out.minimum;
    delete out.maximum;
  }
  if (out.default !== undefined && !allows(out, out.default)) delete out.default;
  return out;
}

/**
 * The tightest of several routes' limits on one field (intersection): a value is allowed only if every route
 * that takes the field takes it, so any of them may serve a request carrying it. A route without a limit leaves
 * the others'.
 */
function tightest(all: PropertySchema[]): PropertySchema {
  return all.reduce<PropertySchema>((acc, limits) => narrow(acc, limits), {});
}

/** The records of a model's routes, in order; undefined for a route without one (the catalog test forbids that). */
function routeRecords(records: RecordFinder, model: CatalogModel): Array<{ route: ModelRoute; record: UpstreamModelRecord | undefined }> {
  return model.routes.map((route) => ({ route, record: records(route.provider, route.upstream) }));
}

/** Whether a record builds its request from a map (Replicate, fal); one built in code (an empty map) restricts nothing. */
function maps(record: UpstreamModelRecord | undefined): record is UpstreamModelRecord {
  return record !== undefined && Object.keys(record.map).length > 0;
}

/** Whether the record (its own endpoint, not a sibling) needs an input image. */
function needsImage(record: UpstreamModelRecord): boolean {
  const spec = record.map[IMAGE_FIELD];
  if (!spec || record.call.without_image) return false;
  const to = (typeof spec === 'string' ? spec : spec.to).split('.')[0]!;
  return ((record.input as { required?: string[] }).required ?? []).includes(to);
}

/**
 * The records a route sends requests by: for a request without an input image, its own (or the text-only sibling
 * it names), unless it needs an image; for one with an image, its own (or the sibling that takes one), if it takes
 * one. routeRefusal checks a request against the same record.
 */
function endpointsOf(records: RecordFinder, route: ModelRoute, own: UpstreamModelRecord): UpstreamModelRecord[] {
  const sibling = (id: string | undefined) => (id === undefined ? undefined : records(route.provider, id));
  const withoutImage = own.call.without_image ? sibling(own.call.without_image) : needsImage(own) ? undefined : own;
  const withImage = own.call.with_image ? sibling(own.call.with_image) : mappedFields(own).has(IMAGE_FIELD) ? own : undefined;
  return [withoutImage, withImage].filter((r): r is UpstreamModelRecord => r !== undefined && maps(r));
}

/** `anyOf` (`oneOf` when exclusive) of the fields each alone required: JSON Schema for "one of these". */
const oneOfSchema = (need: OneOfFields) => ({ [need.exclusive ? 'oneOf' : 'anyOf']: need.fields.map((f) => ({ required: [f] })) });

/**
 * Declares the request's "one of these" needs in the schema: those of the modality, and an input image where the
 * model needs one. Each is limited to the fields the model takes: one left is simply required; one implied by
 * another (an image, where the image is needed anyway, is "a prompt or an image") is left out.
 */
function withNeeds(schema: JsonSchemaObject, modality: Modality, imageNeeded: boolean): void {
  const taken = (need: OneOfFields): OneOfFields => ({ ...need, fields: need.fields.filter((f) => f in schema.properties) });
  const needs = [...(imageNeeded ? [AN_IMAGE] : []), ...MODALITY_NEEDS[modality]]
    .map(taken)
    .filter((need, i, all) => need.fields.length > 0 && all.findIndex((n) => n.fields.join() === need.fields.join()) === i);
  const required = new Set(schema.required);
  const rules: Array<Record<string, unknown>> = [];
  for (const need of needs) {
    if (!need.exclusive) {
      if (need.fields.some((f) => required.has(f))) continue;
      if (needs.some((other) => other !== need && !other.exclusive && other.fields.every((f) => need.fields.includes(f)))) continue;
    }
    if (need.fields.length === 1) required.add(need.fields[0]!);
    else rules.push(oneOfSchema(need));
  }
  schema.required = [...required];
  // One rule of a kind sits at the top (the usual case: `anyOf` for "a prompt or an image"); more are combined.
  const kinds = rules.map((r) => Object.keys(r)[0]!);
  if (new Set(kinds).size === kinds.length) Object.assign(schema, ...rules);
  else schema.allOf = rules;
}

// Per version of the installation's records (a new one drops the old answers with it), then model and routes.
const cache = new WeakMap<object, Map<string, JsonSchemaObject>>();

/**
 * The model's parameters, from the modality's request schema (a JSON Schema
 * object) and its routes: a field is taken when some route takes it, and its
 * values are those every route taking it takes (intersection); a field is
 * required when every route requires it; a request that needs one of several
 * fields (a prompt or an image; an avatar's text or audio) says so as
 * `anyOf`/`oneOf`.
 */
export function modelParameters(found: RecordFinder, model: CatalogModel, modalitySchema: JsonSchemaObject, speech?: SpeechStep): JsonSchemaObject {
  // The routes change with the catalog's date (lifecycle.ts): they are part of the key. The operator's records,
  // which may replace a route's at run time, are the cache's (cachedFor).
  const kept = cachedFor(cache, found);
  const key = `${model.slug}\n${model.routes.map((r) => `${r.provider}:${r.upstream}`).join(',')}\n${speech?.slug ?? ''}`;
  const cached = kept.get(key);
  if (cached) return cached;
  const records = routeRecords(found, model);
  const unrestricted = !records.every(({ record }) => maps(record));
  // Every endpoint a request may be sent to: each route's, with and without an input image.
  const endpoints = unrestricted ? [] : records.flatMap(({ route, record }) => endpointsOf(found, route, record!));
  const properties: Record<string, PropertySchema> = {};
  const required = new Set(modalitySchema.required ?? []);
  for (const [field, schema] of Object.entries(modalitySchema.properties)) {
    if (OWN_FIELDS.has(field) || unrestricted) {
      properties[field] = schema;
      continue;
    }
    if (IMAGE_REQUEST_FIELDS.includes(field)) {
      // A text-only sibling serves requests without an image; the record itself says whether it takes one.
      if (records.some(({ record }) => takesImage(record!))) properties[field] = schema;
      continue;
    }
    const as = SENT_AS[field];
    if (as) {
      if (endpoints.some((record) => routeLimits(record, as).taken)) properties[field] = schema;
      continue;
    }
    const taking = endpoints.map((record) => routeLimits(record, field)).filter((r) => r.taken);
    if (taking.length === 0) {
      required.delete(field);
      continue;
    }
    const limits = tightest(taking.map((r) => r.limits));
    const out = narrow(schema, limits);
    const own = records.map(({ record }) => record!.defaults?.[field]).find((v) => v !== undefined);
    if (own !== undefined && allows(out, own)) out.default = own;
    if (taking.length === endpoints.length && taking.every((r) => r.required) && out.default === undefined) required.add(field);
    properties[field] = out;
  }
  // A field an upload can stand in for is not required by itself: the modality's check asks for one of them.
  for (const [alias, as] of Object.entries(SENT_AS)) if (alias in properties) required.delete(as);
  const schema: JsonSchemaObject = {
    ...modalitySchema,
    type: 'object',
    properties,
    required: [...required].filter((f) => f in properties),
    additionalProperties: false,
  };
  const imageNeeded =
    IMAGE_REQUEST_FIELDS.some((f) => f in properties) &&
    (MODALITY_NEEDS[model.modality].includes(AN_IMAGE) || (!unrestricted && records.every(({ record }) => needsImage(record!))));
  if (imageNeeded) schema['x-mmgen-image'] = 'required';
  if (speech) withSpeechStep(schema, modalitySchema, speech);
  withNeeds(schema, model.modality, imageNeeded);
  if (schema.required!.length === 0) delete schema.required;
  kept.set(key, schema);
  return schema;
}

/** The demand as routes see it: an uploaded file as the field it is sent as. */
function sentAs(demand: RouteDemand): RouteDemand {
  const aliases = Object.keys(SENT_AS).filter((f) => demand.params[f] !== undefined);
  if (aliases.length === 0) return demand;
  const params = { ...demand.params };
  const sent = demand.sent ? new Set(demand.sent) : null;
  for (const alias of aliases) {
    params[SENT_AS[alias]!] = params[alias];
    delete params[alias];
    if (sent?.delete(alias)) sent.add(SENT_AS[alias]!);
  }
  return { ...demand, params, sent };
}

/** An audio-driven avatar's speech step: the voice model that speaks a text request first, and its parameters. */
export interface SpeechStep {
  slug: string;
  parameters: JsonSchemaObject;
}

/** The request fields an avatar's speech step takes instead of the avatar model (the speech fields). */
export const SPEECH_FIELDS = ['text', 'voice_id'] as const;

/**
 * An audio-driven avatar with a speech step also takes `text` and `voice_id`, as its voice model does (its limits,
 * its voices), and then needs no `audio_url`: one of the two is required, which the modality's check says.
 */
function withSpeechStep(schema: JsonSchemaObject, modalitySchema: JsonSchemaObject, speech: SpeechStep): void {
  for (const field of SPEECH_FIELDS) {
    const own = modalitySchema.properties[field];
    const voice = speech.parameters.properties[field];
    if (own && voice) schema.properties[field] = narrow(own, voice);
  }
  schema.required = schema.required!.filter((f) => f !== 'audio_url');
  schema['x-mmgen-speech'] = speech.slug;
}

/**
 * What an avatar route must take of a request whose text its speech step speaks: the audio it is given instead
 * of the speech fields. Any other request, unchanged.
 */
export function avatarRouteDemand(model: CatalogModel, demand: RouteDemand): RouteDemand {
  if (!model.speech || typeof demand.params.text !== 'string' || demand.params.audio_url !== undefined) return demand;
  const params: Record<string, unknown> = { ...demand.params, audio_url: 'speech' };
  for (const field of SPEECH_FIELDS) delete params[field];
  const sent = demand.sent ? new Set([...demand.sent].filter((f) => !(SPEECH_FIELDS as readonly string[]).includes(f))) : null;
  return { ...demand, params, sent };
}

/** What a route must take to serve a request. */
export interface RouteDemand {
  /** The request's fields as accepted (the model's and the modality's defaults filled in). */
  params: Record<string, unknown>;
  /**
   * The prompt's input tokens as the provider counted them (a finished chat's usage), for a price by prompt length;
   * absent: the most its messages can be (route-price.ts), which the reservation is made on.
   */
  inputTokens?: number | undefined;
  /** The fields the client sent itself; null when not known (a generation accepted before this was kept). */
  sent: ReadonlySet<string> | null;
  /** Whether the request carries an input image. */
  image: boolean;
  /**
   * The input image's size, when known (acceptance has the resolved image; a generation keeps it in its result):
   * the price of a route billed by an image's megapixels (route-price.ts).
   */
  imageSize?: { width: number; height: number } | undefined;
}

/** Why a route cannot serve a request: the field, and what the route documents. */
export interface RouteRefusal {
  param: string;
  message: string;
}

function allows(limits: PropertySchema, value: unknown): boolean {
  if (limits.enum && !limits.enum.includes(value as never)) return false;
  if (typeof value === 'number') {
    if (typeof limits.minimum === 'number' && value < limits.minimum) return false;
    if (typeof limits.maximum === 'number' && value > limits.maximum) return false;
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof limits.maxLength === 'number' && length > limits.maxLength) return false;
    if (typeof limits.minLength === 'number' && length < limits.minLength) return false;
  }
  return true;
}

/**
 * Why this route cannot serve the request, or null if it can: it does not
 * take an input image the request carries, or needs one it lacks; it does not
 * take a field the client sent; a value is outside what it documents; or a
 * field it requires is missing. A field the client did not send and the route
 * does not take is simply not sent (a default of the modality, such as
 * `num_outputs: 1`, is what the route does anyway).
 */
export function routeRefusal(records: RecordFinder, route: ModelRoute, asked: RouteDemand): RouteRefusal | null {
  const demand = sentAs(asked);
  const own = records(route.provider, route.upstream);
  if (!maps(own)) return null;
  const siblingId = demand.image ? own.call.with_image : own.call.without_image;
  const record = (siblingId && records(route.provider, siblingId)) || own;
  const where = `${route.provider} (${record.upstream})`;
  const mapped = mappedFields(record);
  if (demand.image && !mapped.has(IMAGE_FIELD)) return { param: 'upload_id', message: `${where} takes no input image` };
  if (!demand.image && needsImage(record)) return { param: 'upload_id', message: `${where} needs an input image` };
  for (const [field, value] of Object.entries(demand.params)) {
    if (OWN_FIELDS.has(field) || IMAGE_REQUEST_FIELDS.includes(field) || value === undefined || value === null) continue;
    const r = routeLimits(record, field);
    if (!r.taken) {
      if (demand.sent?.has(field)) return { param: field, message: `${where} does not take ${field}` };
      continue;
    }
    if (!allows(r.limits, value)) return { param: field, message: `${where} does not take ${field} = ${JSON.stringify(value)}` };
  }
  for (const field of mapped) {
    if (field === IMAGE_FIELD || demand.params[field] !== undefined) continue;
    const r = routeLimits(record, field);
    if (r.taken && r.required) return { param: field, message: `${where} requires ${field}` };
  }
  return null;
}

/** When a model stops being served upstream, from its routes' records (docs/upstream-models.md, `lifecycle`). */
export interface ModelDeprecation {
  /** The latest date a route was announced deprecated (YYYY-MM-DD), or null. */
  deprecated_on: string | null;
  /** When the last of its routes shuts down (YYYY-MM-DD): null while any route has no announced shutdown. */
  shutdown_on: string | null;
  /** What the provider names as the replacement, where it names one. */
  replacement: string | null;
  sources: string[];
}

// Read on every answer that names a model (its Deprecation headers): computed once per records, model and routes.
const deprecations = new WeakMap<object, Map<string, ModelDeprecation | null>>();

/** A model's deprecation, or null when none of its routes is deprecated or shutting down. */
export function modelDeprecation(records: RecordFinder, model: CatalogModel): ModelDeprecation | null {
  const routes = [...model.routes, ...(model.retired_routes ?? [])];
  const kept = cachedFor(deprecations, records);
  const key = `${model.slug}\n${routes.map((r) => `${r.provider}:${r.upstream}`).join(',')}`;
  if (kept.has(key)) return kept.get(key)!;
  const d = deprecationOf(records, routes);
  kept.set(key, d);
  return d;
}

function deprecationOf(records: RecordFinder, routes: readonly ModelRoute[]): ModelDeprecation | null {
  const lifecycles = routes.map((r) => records(r.provider, r.upstream)?.lifecycle);
  const announced = lifecycles.filter((l) => l && (l.deprecated || l.shutdown));
  if (announced.length === 0) return null;
  const latest = (dates: Array<string | null | undefined>) => dates.filter((d): d is string => !!d).sort().at(-1) ?? null;
  const everyRouteShuts = lifecycles.every((l) => l?.shutdown);
  return {
    deprecated_on: latest(announced.map((l) => l!.deprecated ?? l!.shutdown)),
    shutdown_on: everyRouteShuts ? latest(lifecycles.map((l) => l!.shutdown)) : null,
    replacement: announced.map((l) => l!.replacement).find((r) => r) ?? null,
    sources: [...new Set(announced.map((l) => l!.source).filter((s): s is string => !!s))],
  };
}
