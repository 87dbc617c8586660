/**
 * Renders sdk/src/model-parameters.generated.ts: one request type per model of
 * the catalog, from the model's `parameters` (the JSON Schema GET /v1/models
 * serves, contract §3a), so that the SDK's create methods hold a known model to
 * its own fields, enums and required fields at compile time.
 *
 * The schemas come from this checkout's server code (the catalog as served on
 * a date, and parametersOf), not from a running server: the output depends
 * only on the code and the date, so a test can regenerate it in memory and
 * compare (sdk/test/model-parameters.test.ts).
 */
import { Catalog, MODALITIES, type CatalogModel, type Modality } from '../../src/catalog/index.js';
import { CATALOG } from '../../src/catalog/models.js';
import { parametersOf } from '../../src/generations/hold-to-model.js';
import type { JsonSchemaObject } from '../../src/providers/parameters.js';
import { recordedLifecycle } from '../../src/providers/lifecycle.js';
import { SHIPPED_RECORDS } from '../../src/providers/upstream-models.js';

/** Where the generated per-model types live, relative to the sdk package. */
export const MODEL_PARAMETERS_PATH = 'src/model-parameters.generated.ts';

/**
 * The catalog date the committed file is generated for: the tests' date
 * (TEST_CATALOG_DATE in test/helpers/catalog.ts), so that an upstream shutdown
 * recorded for a later day does not change the file as the calendar moves.
 */
export const DEFAULT_CATALOG_DATE = '2026-11-24';

/** The name of each modality's interface in the generated file. */
export const INTERFACE_BY_MODALITY: Record<Modality, string> = {
  image: 'ImageModelParameters',
  video: 'VideoModelParameters',
  voice: 'VoiceModelParameters',
  music: 'MusicModelParameters',
  avatar: 'AvatarModelParameters',
  chat: 'ChatModelParameters',
  '3d': 'ThreeDModelParameters',
  upscale: 'UpscaleModelParameters',
};

export interface ServedModelParameters {
  slug: string;
  display_name: string;
  modality: Modality;
  parameters: JsonSchemaObject;
}

/** Every model active on `date`, with its parameters, in catalog order. */
export function servedModelParameters(date: string = DEFAULT_CATALOG_DATE): ServedModelParameters[] {
  const catalog = new Catalog(CATALOG, recordedLifecycle(date, SHIPPED_RECORDS));
  return catalog.models
    .filter((m: CatalogModel) => m.status === 'active')
    .map((m) => ({ slug: m.slug, display_name: m.display_name, modality: m.modality, parameters: parametersOf(SHIPPED_RECORDS, m) }));
}

/** The subset of JSON Schema that mmgen's request schemas use. */
interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: boolean | Schema;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
  anyOf?: Schema[];
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (name: string): string => (IDENTIFIER.test(name) ? name : JSON.stringify(name));
/** A number as people read it (a frame-count bound converted to seconds can be 8.291666…). */
const num = (n: number): string => String(Number.isInteger(n) ? n : Number(n.toFixed(3)));

/** The TypeScript type of a schema; nested objects are indented under `indent`. */
function typeOf(schema: Schema, indent: string): string {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.anyOf) return schema.anyOf.map((s) => typeOf(s, indent)).join(' | ');
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types
    .map((t) => {
      switch (t) {
        case 'string':
          return 'string';
        case 'integer':
        case 'number':
          return 'number';
        case 'boolean':
          return 'boolean';
        case 'null':
          return 'null';
        case 'array':
          return `Array<${schema.items ? typeOf(schema.items, indent) : 'unknown'}>`;
        case 'object':
          if (!schema.properties || Object.keys(schema.properties).length === 0) return 'Record<string, unknown>';
          return objectType(schema, indent);
        default:
          return 'unknown';
      }
    })
    .join(' | ');
}

/** The JSDoc of a field: its description, then its limits and default as the server enforces them. */
function docOf(schema: Schema, indent: string): string {
  const lines: string[] = [];
  if (schema.description) lines.push(schema.description);
  const limits: string[] = [];
  const integer = schema.type === 'integer';
  if (!schema.enum) {
    if (schema.minimum !== undefined && schema.maximum !== undefined) limits.push(`${num(schema.minimum)} to ${num(schema.maximum)}`);
    else if (schema.minimum !== undefined) limits.push(`at least ${num(schema.minimum)}`);
    else if (schema.maximum !== undefined) limits.push(`at most ${num(schema.maximum)}`);
  }
  if (integer && !schema.enum) limits.push('an integer');
  if (schema.multipleOf !== undefined) limits.push(`a multiple of ${num(schema.multipleOf)}`);
  // Every text takes at least one character; a longer minimum is the model's own (MiniMax Music's 10).
  if (schema.maxLength !== undefined) limits.push((schema.minLength ?? 0) > 1 ? `${schema.minLength} to ${schema.maxLength} characters` : `at most ${schema.maxLength} characters`);
  else if ((schema.minLength ?? 0) > 1) limits.push(`at least ${schema.minLength} characters`);
  if (schema.maxItems !== undefined) limits.push(`${schema.minItems ?? 0} to ${schema.maxItems} items`);
  if (schema.format) limits.push(`format: ${schema.format}`);
  if (limits.length) lines.push(`${limits.join('; ')}.`.replace(/^./, (c) => c.toUpperCase()));
  if (schema.default !== undefined) lines.push(`@default ${JSON.stringify(schema.default)}`);
  if (lines.length === 0) return '';
  // `*/` inside a description would end the comment early.
  const safe = lines.map((l) => l.replaceAll('*/', '*\\/'));
  return safe.length === 1 ? `${indent}/** ${safe[0]} */\n` : `${indent}/**\n${safe.map((l) => `${indent} * ${l}`).join('\n')}\n${indent} */\n`;
}

function objectType(schema: Schema, indent: string, first?: [string, string]): string {
  const inner = `${indent}  `;
  const required = new Set(schema.required ?? []);
  const fields: string[] = [];
  if (first) fields.push(`${inner}${key(first[0])}: ${first[1]};\n`);
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    if (first && name === first[0]) continue;
    fields.push(`${docOf(prop, inner)}${inner}${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(prop, inner)};\n`);
  }
  return `{\n${fields.join('')}${indent}}`;
}

/** The fields of a "one of these" rule (`anyOf`/`oneOf` of single required fields), or null for another shape. */
function ruleFields(branches: unknown): string[] | null {
  if (!Array.isArray(branches)) return null;
  const fields = branches.map((b: Schema) => (b.required?.length === 1 && Object.keys(b).length === 1 ? b.required[0]! : null));
  return fields.every((f): f is string => f !== null) ? fields : null;
}

/**
 * A "one of these" rule as a union: each branch requires its field (with `exclusive`, the others are absent). An
 * avatar's speech fields (x-mmgen-speech: `voice_id`) come only with the `text` they voice.
 */
function ruleType(fields: string[], exclusive: boolean, schema: Schema & Record<string, unknown>, indent: string): string {
  if (fields.join() === 'upload_id,image_url' && !exclusive) return 'InputImage';
  const speech = typeof schema['x-mmgen-speech'] === 'string' && fields.includes('text');
  const branches = fields.map((f) => {
    const absent = [...(exclusive ? fields.filter((o) => o !== f) : []), ...(speech && f !== 'text' ? ['voice_id'] : [])];
    const type = typeOf(schema.properties?.[f] ?? {}, indent);
    return `{ ${[`${key(f)}: ${type}`, ...absent.map((o) => `${key(o)}?: never`)].join('; ')} }`;
  });
  return `(${branches.join(' | ')})`;
}

/** The schema's "one of these" rules (top-level `anyOf`/`oneOf`, or combined in `allOf`), in order. */
function rulesOf(schema: Schema & Record<string, unknown>): Array<{ fields: string[]; exclusive: boolean }> {
  const parts = [schema, ...(Array.isArray(schema.allOf) ? (schema.allOf as Array<Record<string, unknown>>) : [])];
  const rules: Array<{ fields: string[]; exclusive: boolean }> = [];
  for (const part of parts) {
    for (const [keyword, exclusive] of [['anyOf', false], ['oneOf', true]] as const) {
      if (part[keyword] === undefined) continue;
      const fields = ruleFields(part[keyword]);
      if (!fields) throw new Error(`${keyword} of another shape than "one of these fields": ${JSON.stringify(part[keyword])}`);
      rules.push({ fields, exclusive });
    }
  }
  return rules;
}

/** The request type of one model: its parameters, `model` as its slug, and each "one of these" rule as a union. */
function modelType(m: ServedModelParameters, indent: string): string {
  const schema = m.parameters as Schema & Record<string, unknown>;
  return [objectType(schema, indent, ['model', JSON.stringify(m.slug)]), ...rulesOf(schema).map((r) => ruleType(r.fields, r.exclusive, schema, indent))].join(' & ');
}

const listed = (fields: string[], last: string) => fields.map((f) => `\`${f}\``).join(', ').replace(/, ([^,]*)$/, ` ${last} $1`);

function modelDoc(m: ServedModelParameters, indent: string): string {
  const schema = m.parameters as Schema & Record<string, unknown>;
  const notes = [`${m.display_name}.`];
  for (const rule of rulesOf(schema)) {
    if (rule.fields.join() === 'upload_id,image_url') notes.push('Needs an input image: `upload_id` or `image_url`.');
    else notes.push(`Give ${rule.exclusive ? 'one of ' : ''}${listed(rule.fields, rule.exclusive ? 'and' : 'or')}.`);
  }
  if (typeof schema['x-mmgen-speech'] === 'string') notes.push(`\`text\` is spoken first by ${schema['x-mmgen-speech']} (with \`voice_id\`).`);
  return `${indent}/** ${notes.join(' ')} */\n`;
}

/** The TypeScript text of the generated file. */
export function renderModelParameterTypes(models: readonly ServedModelParameters[], date: string = DEFAULT_CATALOG_DATE): string {
  const out: string[] = [
    '/* eslint-disable */',
    `// Generated from the \`parameters\` of the models mmgen serves on ${date} by \`npm run generate -w @mmgen/sdk\`.`,
    "// Do not edit: a test fails when this file differs from what this checkout's catalog gives.",
    '',
    '/** The catalog date these types were generated for. */',
    `export type ModelParametersCatalogDate = ${JSON.stringify(date)};`,
    '',
    '/** An input image, for a model that needs one (`anyOf` upload_id, image_url in its parameters). */',
    'export type InputImage = { upload_id: string } | { image_url: string };',
    '',
  ];
  for (const modality of MODALITIES) {
    out.push(`/** The ${modality} models and the request each takes (POST body), by slug. */`);
    out.push(`export interface ${INTERFACE_BY_MODALITY[modality]} {`);
    for (const m of models.filter((x) => x.modality === modality)) {
      out.push(`${modelDoc(m, '  ')}  ${key(m.slug)}: ${modelType(m, '  ')};`);
    }
    out.push('}', '');
  }
  out.push('/** Every modality\'s models, by the modality\'s name. */');
  out.push('export interface ModelParameters {');
  for (const modality of MODALITIES) out.push(`  ${key(modality)}: ${INTERFACE_BY_MODALITY[modality]};`);
  out.push('}', '');
  return out.join('\n');
}
