import { dataUri, nearestAspectRatio } from './files.js';
import { providerError } from './http.js';
import type { ImageInput, UpstreamRequest } from './types.js';
import { compileRecordSchema } from './record-schema.js';
import { propertyAt, type InputPart, type PropertySchema, type UpstreamModelRecord, type UpstreamRecords } from './upstream-record.js';

/**
 * mmgen's request fields as one upstream model's input, from its record's
 * `map` and `set` (docs/upstream-models.md): the same few conversions for
 * every model, so a per-model difference is a line of data, never an `if`.
 */
type Input = Record<string, unknown>;

/**
 * An input image as the model takes it: a data URI, or the caller's own URL where the model documents a URL
 * length a data URI would break (veed's fabric takes 2,083 characters).
 */
function imageReference(image: ImageInput, property: PropertySchema | undefined): string {
  const uri = dataUri(image);
  const max = property?.maxLength ?? property?.items?.maxLength;
  if (typeof max === 'number' && uri.length > max && image.url) return image.url;
  return uri;
}

/** The pseudo-field of the input image in a record's `map`. */
export const IMAGE_FIELD = 'image';

type MapSpec = Exclude<UpstreamModelRecord['map'][string], string>;

function target(spec: UpstreamModelRecord['map'][string]): MapSpec {
  return typeof spec === 'string' ? { to: spec } : spec;
}

/** Language codes as the English names some models take (a code whose name the model's enum lacks is refused by its schema). */
const LANGUAGE_NAMES: Record<string, string> = {
  en: 'English', zh: 'Chinese', yue: 'Chinese,Yue', es: 'Spanish', fr: 'French', de: 'German', it: 'Italian', pt: 'Portuguese',
  ru: 'Russian', ja: 'Japanese', ko: 'Korean', ar: 'Arabic', hi: 'Hindi', id: 'Indonesian', nl: 'Dutch', tr: 'Turkish',
  uk: 'Ukrainian', vi: 'Vietnamese', th: 'Thai', pl: 'Polish', ro: 'Romanian', el: 'Greek', cs: 'Czech', fi: 'Finnish',
};

/** The "WxH" choice of an enum nearest to width × height in shape, then in area ("auto" and the like are never chosen). */
function nearestSize(width: number, height: number, choices: unknown[]): string {
  const sizes = choices.filter((c): c is string => typeof c === 'string' && /^\d+x\d+$/.test(c));
  if (sizes.length === 0) throw new Error('size needs an enum of "WxH" strings on its target');
  const score = (s: string) => {
    const [w, h] = s.split('x').map(Number) as [number, number];
    return [Math.abs(Math.log(w / h) - Math.log(width / height)), Math.abs(Math.log((w * h) / (width * height)))] as const;
  };
  return [...sizes].sort((a, b) => {
    const [ra, aa] = score(a);
    const [rb, ab] = score(b);
    return ra - rb || aa - ab;
  })[0]!;
}

/** A value as a list: a list as it is, anything else as its one item. */
const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v]);

/** The converted value; undefined when the value has no form the target takes (then nothing is sent). */
function convert(spec: MapSpec, values: unknown[], property: PropertySchema | undefined): unknown {
  const [v] = values;
  switch (spec.as) {
    case undefined:
      return v;
    case 'string':
      return String(v);
    case 'number':
      return Number(v);
    case 'seconds_suffix':
      return `${String(v)}s`;
    case 'times_suffix':
      return `${String(v)}x`;
    case 'list':
      return asList(v);
    case 'nonblank_list':
      // A provider that refuses a whitespace-only item (Anthropic's stop sequences) cannot be asked to stop at one.
      return asList(v).filter((s) => typeof s === 'string' && /\S/.test(s));
    case 'clamp': {
      const n = Number(v);
      const lo = typeof property?.minimum === 'number' ? property.minimum : -Infinity;
      const hi = typeof property?.maximum === 'number' ? property.maximum : Infinity;
      return Math.min(hi, Math.max(lo, n));
    }
    case 'size':
      return nearestSize(Number(values[0]), Number(values[1]), property?.enum ?? []);
    case 'language_code': {
      // The primary subtag of a language tag (`en-US` → `en`); a value that has none (`English`) is not sent.
      const code = String(v).split(/[-_]/)[0]!.toLowerCase();
      return /^[a-z]{2,3}$/.test(code) ? code : undefined;
    }
    case 'milliseconds':
      return Number(v) * 1000;
    case 'negate':
      return !v;
    case 'frames': {
      const step = spec.multiple_of ?? 1;
      const plus = spec.plus ?? 0;
      return Math.round((Number(v) * (spec.fps ?? 1)) / step) * step + plus;
    }
    case 'language_name': {
      const code = String(v).toLowerCase();
      return LANGUAGE_NAMES[code] ?? LANGUAGE_NAMES[code.split('-')[0]!] ?? String(v);
    }
    case 'image_size':
      return { width: values[0], height: values[1] };
    case 'aspect_ratio': {
      const choices = (property?.enum ?? []).filter((c): c is string => typeof c === 'string' && /^\d+:\d+$/.test(c));
      if (choices.length === 0) throw new Error('aspect_ratio needs an enum of "w:h" strings on its target');
      return nearestAspectRatio(Number(values[0]), Number(values[1]), choices);
    }
  }
}

/** Whether a route takes an input image: its record maps one, or names a sibling endpoint for requests with one. */
export function takesImage(record: UpstreamModelRecord): boolean {
  return mappedFields(record).has(IMAGE_FIELD) || record.call.with_image !== undefined;
}

// Read on every request (routeRefusal); a record is not mutated once read, so its set is kept with it.
const mappedByRecord = new WeakMap<UpstreamModelRecord, ReadonlySet<string>>();

/** The mmgen fields a record maps (the input image as `image`), each joined field name split out. */
export function mappedFields(record: UpstreamModelRecord): ReadonlySet<string> {
  let mapped = mappedByRecord.get(record);
  if (!mapped) mappedByRecord.set(record, (mapped = new Set(Object.keys(record.map).flatMap((k) => k.split(',')))));
  return mapped;
}

/**
 * The record a request is sent by: its route's own, or the sibling endpoint that record names for what the
 * request carries (an edit-only endpoint's text-only sibling, a text-only endpoint's image one).
 */
export function recordForRequest(records: UpstreamRecords, req: Pick<UpstreamRequest, 'upstreamModel' | 'image'>): UpstreamModelRecord {
  const record = records.get(req.upstreamModel);
  if (!record) throw providerError(records.provider, 'bad_request', `has no documented schema for ${req.upstreamModel} in mmgen`);
  const siblingId = req.image ? record.call.with_image : record.call.without_image;
  if (!siblingId) return record;
  const sibling = records.get(siblingId);
  if (!sibling) throw providerError(records.provider, 'bad_request', `has no documented schema for ${siblingId} in mmgen`);
  return sibling;
}

const isSet = (v: unknown) => v !== undefined && v !== null;

/**
 * The upstream input for a request's validated fields (and its input image), per the record: the body, or with
 * `part` the path or query parameters the map sends there. A value that converts to nothing (an empty list, a
 * language with no code) is not sent, nor is an entry whose `unless` field the request also sets.
 */
export function upstreamInput(record: UpstreamModelRecord, params: Input, image?: ImageInput, part: InputPart = 'body'): Input {
  const out: Input = {};
  for (const [key, spec] of Object.entries(record.map)) {
    const t = target(spec);
    if ((t.in ?? 'body') !== part) continue;
    const property = propertyAt(record, t.to, part);
    if (key === IMAGE_FIELD) {
      if (image) put(out, t.to, convert(t, [imageReference(image, property)], property));
      continue;
    }
    const values = key.split(',').map((k) => params[k]);
    if (!values.every(isSet)) continue;
    if (t.unless !== undefined && isSet(params[t.unless])) continue;
    const value = convert(t, values, property);
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    put(out, t.to, value);
  }
  if (part === 'body') for (const [path, value] of Object.entries(record.set)) put(out, path, value);
  return out;
}

/** The request's fields with the model's own defaults (the record's `defaults`) for those it did not set. */
export function withModelDefaults(record: UpstreamModelRecord, params: Input): Input {
  const out = { ...params };
  for (const [field, value] of Object.entries(record.defaults ?? {})) if (!isSet(out[field])) out[field] = value;
  return out;
}

/** Sets a value at a dotted path, making (or joining) the objects on the way: two fields may share one object. */
function put(out: Input, path: string, value: unknown): void {
  const parts = path.split('.');
  let at = out;
  for (const part of parts.slice(0, -1)) {
    const next = at[part];
    at = (at[part] = typeof next === 'object' && next !== null ? next : {}) as Input;
  }
  at[parts.at(-1)!] = value;
}

/**
 * The body as built, once it is one its provider documents (the record's `input`, or another schema of the
 * record such as OpenAI's edits form): a body the provider would refuse is never sent. A request within the
 * model's `parameters` always passes; one that is not (a field's value outside the route's range reached the
 * adapter unchecked) fails here as the provider would fail it, without the call.
 */
export function documentedBody<T extends Input>(provider: string, record: UpstreamModelRecord, body: T, schema: object = record.input): T {
  const validate = compileRecordSchema(schema);
  if (validate(body)) return body;
  const e = validate.errors?.[0];
  const where = e ? [e.instancePath.replace(/^\//, '').replaceAll('/', '.'), (e.params as { additionalProperty?: string }).additionalProperty].filter(Boolean).join('.') : '';
  throw providerError(provider, 'bad_request', `would refuse this request to ${record.upstream}: ${where || 'body'} ${e?.message ?? 'is invalid'}`);
}
