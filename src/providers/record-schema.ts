import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { JSON_LIMITS } from '../json-shape.js';

/**
 * The JSON Schemas a record carries (`input`, `edits_input`, `path_and_query`) are held to the meta-schema of the
 * draft they declare in `$schema` (none: 2020-12), and compiled with that draft, the same choice in both places:
 * a schema the meta-schema refuses would otherwise be taken, then fail at the first request (issue 42). The
 * meta-schemas are ajv's own (draft-07 in `Ajv`, 2019-09 in `Ajv2019`, 2020-12 in `Ajv2020`), never rewritten here.
 */

// `binary` is OpenAPI's mark of a file part in a multipart form (checked as the part's file name); strict off
// because providers publish their own keywords (`x-order`, `nullable`).
const options = { strict: false, formats: { binary: true } } as const;

/** Each supported draft's `$schema` URI (with and without the empty fragment) and the ajv that speaks it. */
const DRAFTS: ReadonlyArray<{ name: string; ids: readonly string[]; ajv: Ajv | Ajv2019 | Ajv2020 }> = [
  { name: '2020-12', ids: ['https://json-schema.org/draft/2020-12/schema'], ajv: new Ajv2020(options) },
  { name: '2019-09', ids: ['https://json-schema.org/draft/2019-09/schema'], ajv: new Ajv2019(options) },
  { name: 'draft-07', ids: ['http://json-schema.org/draft-07/schema'], ajv: new Ajv(options) },
];

/** Records have no `$schema` so far: mmgen has always compiled them as 2020-12. */
const DEFAULT_DRAFT = DRAFTS[0]!;

/**
 * As deep as a request body may nest (src/json-shape.ts), since a record travels in one (POST /v1/admin/models), and
 * a provider's published schema is kept to the same depth (schema-references.ts): the meta-schema check and the
 * compile recurse once per level, so the level is bounded here, by an iterative walk, whatever the schema came from
 * (a body, a provider's document, a stored row).
 */
export const MAX_SCHEMA_DEPTH = JSON_LIMITS.depth;

function draftOf(schema: object): (typeof DRAFTS)[number] | undefined {
  const declared = (schema as { $schema?: unknown }).$schema;
  if (declared === undefined) return DEFAULT_DRAFT;
  if (typeof declared !== 'string') return undefined;
  const id = declared.replace(/#$/, '');
  return DRAFTS.find((d) => d.ids.includes(id));
}

/** How deep a JSON value nests, walked with a stack; stops counting past `limit`. */
function depthExceeds(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/** One ajv error as the schema's dotted path (`properties.prompt.type`) and what is wrong there. */
function describe(e: ErrorObject): { path: string; message: string } {
  const path = e.instancePath
    .split('/')
    .filter(Boolean)
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.');
  const allowed = e.keyword === 'enum' ? (e.params as { allowedValues?: unknown[] }).allowedValues : undefined;
  const detail = allowed ? `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}` : (e.message ?? 'is invalid');
  return { path, message: detail };
}

/**
 * Why a schema is not a JSON Schema of its draft, or null. `path`: the field at fault inside the schema, dotted
 * ('' for the schema itself), as precise as ajv's instancePath.
 */
export function schemaProblem(schema: unknown): { path: string; message: string } | null {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return { path: '', message: 'must be a JSON Schema object' };
  if (depthExceeds(schema, MAX_SCHEMA_DEPTH)) return { path: '', message: `nests deeper than ${MAX_SCHEMA_DEPTH} levels` };
  const draft = draftOf(schema);
  if (!draft) {
    return { path: '$schema', message: `names a draft mmgen does not compile (it takes ${DRAFTS.map((d) => d.ids[0]).join(', ')}; none: 2020-12)` };
  }
  const meta = draft.ajv.getSchema(draft.ids[0]!) as ValidateFunction | undefined;
  if (!meta) throw new Error(`ajv has no meta-schema ${draft.ids[0]}`);
  if (meta(schema)) return null;
  // The most precise error: the deepest path (an anyOf's own error repeats its branches' at the same place).
  const errors = [...(meta.errors ?? [])].sort((a, b) => b.instancePath.length - a.instancePath.length);
  const { path, message } = describe(errors[0]!);
  return { path, message: `${message} (JSON Schema ${draft.name})` };
}

const compiled = new WeakMap<object, ValidateFunction>();

/** A record's schema compiled with its draft's ajv (held to schemaProblem first: a record that loaded passed it). */
export function compileRecordSchema(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    const draft = draftOf(schema);
    if (!draft) throw new Error(`a record's schema names an unsupported $schema: ${String((schema as { $schema?: unknown }).$schema)}`);
    validate = draft.ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}
