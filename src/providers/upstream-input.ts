import type { ProviderName } from '../catalog/index.js';
import { dataUri, nearestAspectRatio } from './files.js';
import { providerError } from './http.js';
import type { ImageInput, UpstreamRequest } from './types.js';
import { upstreamModel, type PropertySchema, type UpstreamModelRecord } from './upstream-models.js';

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
      return [v];
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

/** The mmgen fields a record maps (the input image as `image`), each joined field name split out. */
export function mappedFields(record: UpstreamModelRecord): Set<string> {
  return new Set(Object.keys(record.map).flatMap((k) => k.split(',')));
}

/**
 * The record a request is sent by: its route's own, or the sibling endpoint that record names for what the
 * request carries (an edit-only endpoint's text-only sibling, a text-only endpoint's image one).
 */
export function recordForRequest(provider: ProviderName, req: Pick<UpstreamRequest, 'upstreamModel' | 'image'>): UpstreamModelRecord {
  const record = upstreamModel(provider, req.upstreamModel);
  if (!record) throw providerError(provider, 'bad_request', `has no documented schema for ${req.upstreamModel} in mmgen`);
  const siblingId = req.image ? record.call.with_image : record.call.without_image;
  if (!siblingId) return record;
  const sibling = upstreamModel(provider, siblingId);
  if (!sibling) throw providerError(provider, 'bad_request', `has no documented schema for ${siblingId} in mmgen`);
  return sibling;
}

/** The upstream input for a request's validated fields (and its input image), per the record. */
export function upstreamInput(record: UpstreamModelRecord, params: Input, image?: ImageInput): Input {
  const out: Input = {};
  for (const [key, spec] of Object.entries(record.map)) {
    const t = target(spec);
    const property = propertyAt(record, t.to);
    if (key === IMAGE_FIELD) {
      if (image) put(out, t.to, convert(t, [imageReference(image, property)], property));
      continue;
    }
    const values = key.split(',').map((k) => params[k]);
    if (values.some((v) => v === undefined || v === null)) continue;
    put(out, t.to, convert(t, values, property));
  }
  for (const [path, value] of Object.entries(record.set)) put(out, path, value);
  return out;
}

/** The schema of an input field, a dotted path naming a field of an object field (`voice_setting.speed`). */
export function propertyAt(record: UpstreamModelRecord, path: string): PropertySchema | undefined {
  let schema: PropertySchema | undefined = { properties: record.input.properties };
  for (const part of path.split('.')) schema = (schema?.properties as Record<string, PropertySchema> | undefined)?.[part];
  return schema;
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
