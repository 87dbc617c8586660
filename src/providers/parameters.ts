import type { CatalogModel } from '../catalog/index.js';
import { IMAGE_FIELD, propertyAt, takesImage } from './upstream-input.js';
import { upstreamModel, type PropertySchema, type UpstreamModelRecord } from './upstream-models.js';

/**
 * A model's `parameters` (contract §3a): the JSON Schema of the modality
 * fields this model accepts, with its own enums, ranges, defaults and
 * required fields, derived from the records of its routes
 * (docs/upstream-models.md). A request that passes it is one every route's
 * provider documents, so a fallback never meets a refusal the first route
 * would not have; what a route's record does not map, the model does not
 * take. Routes whose bodies are built in code (OpenAI, Anthropic,
 * ElevenLabs: records without a map) restrict nothing here.
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

type Spec = Exclude<UpstreamModelRecord['map'][string], string>;

/** Values of an upstream property as mmgen's field means them, undoing the route's conversion; undefined if it cannot be undone. */
function backToMmgen(spec: Spec, value: unknown): number | string | boolean | undefined {
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

/** What one route's record says of one mmgen field: not taken, or taken with these limits. */
function routeLimits(record: UpstreamModelRecord, field: string): { taken: false } | { taken: true; limits: PropertySchema; required: boolean } {
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
  if (typeof property.maxLength === 'number' && !spec.as) limits.maxLength = property.maxLength;
  return { taken: true, limits, required };
}

/** Narrows a field's schema by a route's limits (intersection: the field must suit every route). */
function narrow(schema: PropertySchema, limits: PropertySchema): PropertySchema {
  const out = { ...schema };
  if (limits.enum) out.enum = out.enum ? out.enum.filter((v) => limits.enum!.includes(v)) : [...limits.enum];
  if (typeof limits.minimum === 'number') out.minimum = typeof out.minimum === 'number' ? Math.max(out.minimum, limits.minimum) : limits.minimum;
  if (typeof limits.maximum === 'number') out.maximum = typeof out.maximum === 'number' ? Math.min(out.maximum, limits.maximum) : limits.maximum;
  if (typeof limits.maxLength === 'number') out.maxLength = typeof out.maxLength === 'number' ? Math.min(out.maxLength, limits.maxLength) : limits.maxLength;
  if (out.enum && out.default !== undefined && !out.enum.includes(out.default)) delete out.default;
  return out;
}

/** The records of a model's routes that build requests from a map (Replicate and fal). */
function mappingRecords(model: CatalogModel): UpstreamModelRecord[] {
  return model.routes
    .map((r) => upstreamModel(r.provider, r.upstream))
    .filter((r): r is UpstreamModelRecord => r !== undefined && Object.keys(r.map).length > 0);
}

const cache = new Map<string, JsonSchemaObject>();

/** The model's parameters, from the modality's request schema (a JSON Schema object) narrowed by its routes. */
export function modelParameters(model: CatalogModel, modalitySchema: JsonSchemaObject): JsonSchemaObject {
  const cached = cache.get(model.slug);
  if (cached) return cached;
  const records = mappingRecords(model);
  const properties: Record<string, PropertySchema> = {};
  const required = new Set(modalitySchema.required ?? []);
  for (const [field, schema] of Object.entries(modalitySchema.properties)) {
    if (OWN_FIELDS.has(field) || records.length === 0) {
      properties[field] = schema;
      continue;
    }
    const imageField = IMAGE_REQUEST_FIELDS.includes(field);
    let out: PropertySchema | null = { ...schema };
    for (const record of records) {
      if (imageField) {
        // A text-only sibling serves requests without an image; the record itself says whether it takes one.
        if (!takesImage(record)) out = null;
        continue;
      }
      const r = routeLimits(record, field);
      if (!r.taken) {
        out = null;
        break;
      }
      out = narrow(out!, r.limits);
      if (r.required && out.default === undefined) required.add(field);
    }
    if (!out) {
      required.delete(field);
      continue;
    }
    const own = records.map((r) => r.defaults?.[field]).find((v) => v !== undefined);
    if (own !== undefined) out.default = own;
    properties[field] = out;
  }
  const imageRequired = records.length > 0 && records.every((r) => {
    const spec = r.map[IMAGE_FIELD];
    if (!spec || r.call.without_image) return false;
    const to = (typeof spec === 'string' ? spec : spec.to).split('.')[0]!;
    return ((r.input as { required?: string[] }).required ?? []).includes(to);
  });
  const schema: JsonSchemaObject = {
    ...modalitySchema,
    type: 'object',
    properties,
    required: [...required].filter((f) => f in properties),
    additionalProperties: false,
  };
  if (imageRequired && IMAGE_REQUEST_FIELDS.some((f) => f in properties)) {
    schema['x-mmgen-image'] = 'required';
  }
  if (schema.required!.length === 0) delete schema.required;
  cache.set(model.slug, schema);
  return schema;
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

/** A model's deprecation, or null when none of its routes is deprecated or shutting down. */
export function modelDeprecation(model: CatalogModel): ModelDeprecation | null {
  const lifecycles = [...model.routes, ...(model.retired_routes ?? [])].map((r) => upstreamModel(r.provider, r.upstream)?.lifecycle);
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
