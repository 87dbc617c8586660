import type { Model } from '../../sdk/src/index.js';
import { parse, UsageError } from './args.js';
import { printJson, say, table, type Context } from './context.js';

export const MODELS_USAGE = `mmgen models show SLUG [--json]           the fields a model takes (type, allowed values or range, default,
                                         required), whether it needs an input image, its speech step; --json: its JSON Schema`;

/** The parts of JSON Schema a model's `parameters` use (GET /v1/models, contract §3a). */
interface FieldSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
  items?: FieldSchema;
  properties?: Record<string, FieldSchema>;
}

interface Parameters {
  properties?: Record<string, FieldSchema>;
  required?: string[];
  'x-mmgen-image'?: string;
  'x-mmgen-speech'?: string;
}

const show = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));
const number = (n: number): string => String(Number.isInteger(n) ? n : Number(n.toFixed(3)));
/** A price as written, never in exponent notation ($0.0000006, not $6e-7). */
const price = (n: number): string => n.toLocaleString('en-US', { maximumFractionDigits: 12, useGrouping: false });
/** Fields every model takes, mmgen's own (the cache, the simulator): named once below the table, not in it. */
const OWN_FIELDS = new Set(['model', 'cache', 'simulate']);

function typeName(s: FieldSchema): string {
  const t = Array.isArray(s.type) ? s.type.join('|') : (s.type ?? (s.enum ? typeof s.enum[0] : 'any'));
  if (t === 'array') return `array of ${s.items ? typeName(s.items) : 'any'}`;
  if (t === 'object' && s.properties) return `object (${Object.keys(s.properties).join(', ')})`;
  return s.format ? `${t} (${s.format})` : t;
}

/** What a field allows: its values, or its range and limits, as the server enforces them. */
function allowed(s: FieldSchema): string {
  if (s.const !== undefined) return show(s.const);
  if (s.enum) return s.enum.map(show).join(', ');
  const parts: string[] = [];
  // An integer field's bounds as integers: a bound converted from frames can be 8.29 s, which allows 8 at most.
  const integer = s.type === 'integer';
  const min = s.minimum === undefined ? undefined : integer ? Math.ceil(s.minimum) : s.minimum;
  const max = s.maximum === undefined ? undefined : integer ? Math.floor(s.maximum) : s.maximum;
  if (min !== undefined && max !== undefined) parts.push(`${number(min)} to ${number(max)}`);
  else if (min !== undefined) parts.push(`at least ${number(min)}`);
  else if (max !== undefined) parts.push(`at most ${number(max)}`);
  if (s.multipleOf !== undefined) parts.push(`multiple of ${number(s.multipleOf)}`);
  if (s.maxLength !== undefined) parts.push(s.minLength ? `${s.minLength} to ${s.maxLength} characters` : `at most ${s.maxLength} characters`);
  if (s.maxItems !== undefined) parts.push(`${s.minItems ?? 0} to ${s.maxItems} items`);
  return parts.join(', ');
}

/**
 * A model's published prices as the server priced them (GET /v1/models pricing.tiers): what each request reserves on
 * this installation, in credits, as sent; nothing is recomputed here. `mmgen quote` prices any other request.
 */
export function describePrices(model: Model): string {
  const p = model.pricing;
  const condition = (t: Model['pricing']['tiers'][number]) =>
    [
      ...Object.entries(t.when).map(([k, v]) => `${k}=${show(v)}`),
      ...(t.input_image ? [`input image ${t.input_image.width}x${t.input_image.height}`] : []),
      ...(t.output_megapixels_at_most === undefined ? [] : [`output <= ${t.output_megapixels_at_most} MP`]),
      ...(t.input_tokens_over === undefined ? [] : [`prompt > ${t.input_tokens_over} tokens`]),
    ].join(' ') || 'default';
  const rows = p.tiers.map((t) => [condition(t), String(t.credits), t.provider]);
  const source = p.source ?? (p.estimate ? 'an estimate' : 'not recorded');
  return [`prices (${p.version}; ${p.unit_description} Source: ${source})`, table([['REQUEST', 'RESERVES (CREDITS)', 'PRICED BY'], ...rows])].join('\n');
}

/** The human rendering of a model's parameters: a header, one row per field, then the input image and speech step. */
export function describeParameters(model: Model): string {
  const p = model.parameters as Parameters;
  const required = new Set(p.required ?? []);
  // `model` is the slug being shown; cache and simulate are the same for every model.
  const fields = Object.entries(p.properties ?? {}).filter(([name]) => !OWN_FIELDS.has(name));
  const own = Object.keys(p.properties ?? {}).filter((name) => name !== 'model' && OWN_FIELDS.has(name));
  const rows = fields.map(([name, s]) => [name, typeName(s), required.has(name) ? 'yes' : '', s.default === undefined ? '' : show(s.default), allowed(s)]);
  const takesImage = 'upload_id' in (p.properties ?? {}) || 'image_url' in (p.properties ?? {});
  const image = p['x-mmgen-image'] === 'required' ? 'required (upload_id or image_url)' : takesImage ? 'optional (upload_id or image_url)' : 'not taken';
  const lines = [
    `${model.slug}  ${model.display_name}  (${model.modality}, $${price(model.pricing.unit_cost_usd)}/${model.pricing.unit}, ${model.status})`,
    '',
    table([['FIELD', 'TYPE', 'REQUIRED', 'DEFAULT', 'ALLOWED'], ...rows]),
    '',
    `input image: ${image}`,
  ];
  if (own.length) lines.push(`also taken, as by every model: ${own.join(', ')} (--json for their schema)`);
  lines.push('', describePrices(model));
  if (p['x-mmgen-speech']) lines.push(`speech step: text (with voice_id) is spoken by ${p['x-mmgen-speech']} first; or give audio_url`);
  else if (model.modality === 'avatar') lines.push('speech step: none');
  const d = model.deprecation;
  if (d) lines.push(`deprecation: ${[d.deprecated_on && `deprecated ${d.deprecated_on}`, d.shutdown_on && `shuts down ${d.shutdown_on}`, d.replacement && `replacement ${d.replacement}`].filter(Boolean).join(', ') || 'announced'}`);
  return lines.join('\n');
}

export async function models(ctx: Context, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'show':
    case 'get': {
      const { positionals: [slug] } = parse(rest, {}, { min: 1, max: 1, names: 'the model slug' });
      const model = await ctx.sdk().models.get(slug!);
      // --json: the raw JSON Schema, as a client (or the SDK's generator) would read it.
      if (ctx.json) printJson(ctx, model.parameters);
      else say(ctx, describeParameters(model));
      return 0;
    }
    default:
      throw new UsageError(`unknown command: models ${sub ?? ''}`);
  }
}
