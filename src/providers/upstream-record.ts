import { readdirSync, readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { schemaProblem } from './record-schema.js';

/**
 * What each provider documents for each upstream model the catalog routes to,
 * as data (docs/upstream-models.md): one JSON record per (provider, upstream
 * model) in the folder its declaration names (`records`, normally
 * `src/providers/<provider>/models/`). The adapters build requests from it
 * (upstream-input.ts), the strict fakes refuse what its `input` refuses, and
 * `GET /v1/models` derives each model's `parameters` from it. This module is a
 * leaf: the adapters are handed their records (declaration.ts), so they never
 * import the registration that imports them.
 */
const Conversion = Type.Union([
  Type.Literal('string'),
  Type.Literal('number'),
  Type.Literal('seconds_suffix'),
  Type.Literal('times_suffix'),
  Type.Literal('list'),
  Type.Literal('image_size'),
  Type.Literal('aspect_ratio'),
  Type.Literal('milliseconds'),
  Type.Literal('negate'),
  Type.Literal('frames'),
  Type.Literal('language_name'),
  Type.Literal('language_code'),
  Type.Literal('clamp'),
  Type.Literal('nonblank_list'),
  Type.Literal('size'),
]);
export type Conversion = Static<typeof Conversion>;

/** A decimal string of US dollars (money is never binary floating point). */
const Usd = Type.String({ pattern: '^\\d+(\\.\\d+)?$' });

/**
 * The route's documented price as data, in mmgen's unit of the model's modality (catalog/types.ts): read by
 * billing (billing/pricing.ts, through route-price.ts). Absent: the route costs the catalog's `unit_cost_usd`.
 */
const Price = Type.Object(
  {
    // The price of the variant the record sends when no tier matches (what `set` pins); absent: the catalog's.
    unit_cost_usd: Type.Optional(Usd),
    // Tiers decided by what is sent: the first whose every `when` field (an upstream field, dotted for an object's
    // field) has one of the listed values in the body built for the request prices it.
    tiers: Type.Optional(
      Type.Array(
        Type.Object(
          {
            when: Type.Optional(Type.Record(Type.String(), Type.Array(Type.Unknown(), { minItems: 1 }))),
            // And the output image is at most this many megapixels (fal's Topaz: $0.08 up to 24 MP, ...); a tier
            // with it matches only when the input image's size is known.
            output_megapixels_at_most: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
            // And the prompt is more than this many input tokens (a long-context price: Claude Haiku 5.5 over 100,000,
            // OpenAI's GPT-6 models over 272,000, on every token of the request). Reserved on a bound of the prompt's
            // tokens, charged on the count the provider reports (providers/route-price.ts).
            input_tokens_over: Type.Optional(Type.Integer({ minimum: 0 })),
            unit_cost_usd: Usd,
          },
          { additionalProperties: false },
        ),
        { minItems: 1 },
      ),
    ),
    // Billed per started megapixel of this upstream `{ width, height }` field (fal's "per megapixel, rounded up"):
    // the units are multiplied by ceil(width × height / 2^20). `input_image` and `output_image` (the input × the
    // request's `scale`) are the request's image as accepted, for a route whose output size follows its input.
    per_megapixel_of: Type.Optional(Type.String({ minLength: 1 })),
    // The price (`unit_cost_usd`, a tier's) is per output, whatever its length: fal's Stable Audio 2.5 is $0.20 a
    // track, MiniMax Music $0.03 a song. The units are the outputs (one track), not the modality's seconds.
    per_output: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type RoutePriceData = Static<typeof Price>;

const Date = Type.Union([Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }), Type.Null()]);

export const UpstreamModelRecord = Type.Object(
  {
    upstream: Type.String({ minLength: 1 }),
    call: Type.Object(
      {
        official: Type.Optional(Type.Boolean()),
        version: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$' })),
        operation: Type.Optional(Type.String()),
        // A sibling endpoint (its own record) for requests without an input image, where this one requires one.
        without_image: Type.Optional(Type.String()),
        // A sibling endpoint (its own record) for requests with an input image, where this one takes none.
        with_image: Type.Optional(Type.String()),
      },
      { additionalProperties: false },
    ),
    sources: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
    lifecycle: Type.Object(
      { deprecated: Date, shutdown: Date, replacement: Type.Union([Type.String(), Type.Null()]), source: Type.Union([Type.String(), Type.Null()]) },
      { additionalProperties: false },
    ),
    pricing: Type.Union([Type.String(), Type.Null()]),
    // Where the price (`pricing`, `price`, or the catalog's `unit_cost_usd` for this route) was read: a first-party
    // URL (the provider's pricing or model page), or text starting "estimate:" that says how it was estimated where
    // no first-party source publishes it. Published as the model's `pricing.source` / `pricing.estimate`.
    price_source: Type.Optional(Type.String({ minLength: 1 })),
    price: Type.Optional(Price),
    input: Type.Object({ type: Type.Literal('object'), properties: Type.Record(Type.String(), Type.Unknown()) }, { additionalProperties: true }),
    map: Type.Record(Type.String(), Type.Union([
        Type.String(),
        Type.Object(
          {
            to: Type.String(),
            as: Type.Optional(Conversion),
            // `frames`: seconds × fps, rounded to the nearest multiple_of × k + plus (e.g. 24 fps, 4k + 1).
            fps: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
            multiple_of: Type.Optional(Type.Integer({ minimum: 1 })),
            plus: Type.Optional(Type.Integer({ minimum: 0 })),
            // Where the value goes when not in the body: a URL path parameter or a query parameter (`path_and_query`).
            in: Type.Optional(Type.Union([Type.Literal('path'), Type.Literal('query')])),
            // Not sent when the request also sets this mmgen field (two upstream fields the model refuses together).
            unless: Type.Optional(Type.String()),
          },
          { additionalProperties: false },
        ),
      ])),
    set: Type.Record(Type.String(), Type.Unknown()),
    defaults: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    // URL path and query parameters (a JSON Schema object), where a map entry says `"in": "path"` or `"query"`.
    path_and_query: Type.Optional(Type.Unknown()),
    // OpenAI's GPT image models: the multipart form of POST /v1/images/edits (an image request), beside `input`.
    edits_input: Type.Optional(Type.Object({ type: Type.Literal('object'), properties: Type.Record(Type.String(), Type.Unknown()) }, { additionalProperties: true })),
    notes: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);
export type UpstreamModelRecord = Static<typeof UpstreamModelRecord>;

/** A JSON Schema object as the records write them: enough structure for the conversions and parameters to read. */
export interface PropertySchema {
  type?: string | string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  default?: unknown;
  items?: PropertySchema;
  [k: string]: unknown;
}

const ajv = new Ajv2020({ allErrors: true, strict: false });
const validRecord = ajv.compile(UpstreamModelRecord);

/** Where a mapped value goes: the body (the default), or the URL's path or query (`"in"` in the map). */
export type InputPart = 'body' | 'path' | 'query';

/**
 * The schema of an input field, a dotted path naming a field of an object field (`voice_setting.speed`); with
 * `part`, of a path or query parameter (the record's `path_and_query`).
 */
export function propertyAt(record: UpstreamModelRecord, path: string, part: InputPart = 'body'): PropertySchema | undefined {
  return propertyIn(part === 'body' ? record.input : (record.path_and_query as PropertySchema | undefined), path);
}

function propertyIn(top: PropertySchema | undefined, path: string): PropertySchema | undefined {
  let schema: PropertySchema | undefined = { properties: top?.properties };
  for (const key of path.split('.')) schema = (schema?.properties as Record<string, PropertySchema> | undefined)?.[key];
  return schema;
}

/** The record's fields that are JSON Schemas, each held to its draft's meta-schema. */
const SCHEMA_FIELDS = ['input', 'edits_input', 'path_and_query'] as const;

/**
 * What is wrong with a record: the one check of every record, shipped (read from its folder), added or edited by
 * the operator, imported from a provider, or changed by a sync. Its shape; its schemas, JSON Schemas of their draft
 * (record-schema.ts); its map and set naming only fields its input declares (a value sent to an undeclared field is
 * one the provider refuses, or one `additionalProperties: false` refuses before the call); defaults only for fields
 * it maps (any other would be a value the model never receives). `field`: the record's field at fault, dotted.
 */
export function recordProblem(record: unknown): { field: string; message: string } | null {
  if (!validRecord(record)) {
    const e = validRecord.errors![0]!;
    const missing = e.keyword === 'required' ? (e.params as { missingProperty: string }).missingProperty : undefined;
    const field = [...e.instancePath.split('/').filter(Boolean), ...(missing ? [missing] : [])].join('.');
    return { field, message: ajv.errorsText(validRecord.errors) };
  }
  const r = record as UpstreamModelRecord;
  for (const name of SCHEMA_FIELDS) {
    if (r[name] === undefined) continue;
    const problem = schemaProblem(r[name]);
    if (problem) {
      const field = problem.path ? `${name}.${problem.path}` : name;
      return { field, message: `${field} ${problem.message}` };
    }
  }
  const declared = (part: InputPart) => Object.keys((part === 'body' ? r.input : (r.path_and_query as PropertySchema | undefined))?.properties ?? {});
  for (const [from, spec] of Object.entries(r.map)) {
    const to = typeof spec === 'string' ? spec : spec.to;
    const part = typeof spec === 'string' ? 'body' : (spec.in ?? 'body');
    // OpenAI's edits form (`edits_input`) takes the input image its JSON body has no field for.
    if (!propertyAt(r, to, part) && !(part === 'body' && propertyIn(r.edits_input, to))) {
      const where = part === 'body' ? 'input' : 'path_and_query';
      return { field: `map.${from}`, message: `map.${from} names '${to}', which its ${where} does not declare (its fields: ${declared(part).join(', ') || 'none'})` };
    }
  }
  for (const path of Object.keys(r.set)) {
    if (!propertyAt(r, path)) return { field: `set.${path}`, message: `set names '${path}', which its input does not declare (its fields: ${declared('body').join(', ') || 'none'})` };
  }
  const mapped = new Set(Object.keys(r.map).flatMap((k) => k.split(',')));
  const stray = Object.keys(r.defaults ?? {}).filter((f) => !mapped.has(f));
  if (stray.length > 0) return { field: `defaults.${stray[0]}`, message: `defaults for fields it does not map: ${stray.join(', ')}` };
  return null;
}

/** The file a record is kept in, in its provider's records folder. */
export function recordFileName(upstream: string): string {
  return `${upstream.replaceAll('/', '__')}.json`;
}

/** One provider's records, by upstream id. */
export interface UpstreamRecords {
  /** The provider they belong to (for messages). */
  readonly provider: string;
  get(upstream: string): UpstreamModelRecord | undefined;
  all(): ReadonlyMap<string, UpstreamModelRecord>;
}

// The shipped folders are read-only files of the program: one reading per folder serves every installation of the
// process (the operator's records are each installation's own: RecordsOverlay).
const loaded = new Map<string, ReadonlyMap<string, UpstreamModelRecord>>();

/** Every record in a folder, by upstream id (read once per folder; a malformed record fails loudly at the first use). */
function readRecords(provider: string, dir: URL): ReadonlyMap<string, UpstreamModelRecord> {
  const cached = loaded.get(dir.href);
  if (cached) return cached;
  const byId = readRecordFolder(provider, dir);
  loaded.set(dir.href, byId);
  return byId;
}

/** Every record in a folder as it is on disk now, by upstream id (`mmgen catalog sync` writes them, then reads them again). */
export function readRecordFolder(provider: string, dir: URL): ReadonlyMap<string, UpstreamModelRecord> {
  const byId = new Map<string, UpstreamModelRecord>();
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  } catch {
    // A provider may route nothing yet: no folder is no records.
  }
  for (const file of files) {
    const record: unknown = JSON.parse(readFileSync(new URL(file, dir), 'utf8'));
    const problem = recordProblem(record);
    if (problem) throw new Error(`${provider}/models/${file}: ${problem.message}`);
    const checked = record as UpstreamModelRecord;
    if (recordFileName(checked.upstream) !== file) throw new Error(`${provider}/models/${file} names ${checked.upstream}`);
    byId.set(checked.upstream, checked);
  }
  return byId;
}

/** The operator's records by provider, then upstream id (each already checked with recordProblem; never mutated). */
export type OperatorRecords = ReadonlyMap<string, ReadonlyMap<string, UpstreamModelRecord>>;

/** No operator records: one object for every installation, so what is derived from the shipped records alone is shared. */
const NO_OPERATOR_RECORDS: OperatorRecords = new Map();

/**
 * The records an operator added at run time (catalog_records) on one installation, laid over the folders', so a
 * model added through the admin API is called, priced and described from its record like a shipped one. Each
 * runtime has its own (main.ts), which its catalog follower (catalog-follower.ts) replaces whole on each change:
 * two installations in one process (tests run many) never see each other's.
 */
export class RecordsOverlay {
  private held: OperatorRecords = NO_OPERATOR_RECORDS;
  /**
   * One view per provider and folder: asked for on every record lookup (several per request), it is made once. Its
   * functions read the operator's records as they are when called, so a kept view never goes stale.
   */
  private readonly views = new Map<string, UpstreamRecords>();

  /**
   * The operator's records as they are now. A new object whenever they are replaced, and the same one while they
   * are not: what is derived from records and cached keys on it.
   */
  get current(): OperatorRecords {
    return this.held;
  }

  /** Replaces the operator's records (each already checked with recordProblem). */
  replace(byProvider: OperatorRecords): void {
    this.held = byProvider.size > 0 ? byProvider : NO_OPERATOR_RECORDS;
  }

  /** The records of the folder `dir` (a directory URL, ending in a slash), read at the first lookup, under the operator's. */
  recordsIn(provider: string, dir: URL): UpstreamRecords {
    const key = `${provider} ${dir.href}`;
    let view = this.views.get(key);
    if (!view) this.views.set(key, (view = this.view(provider, dir)));
    return view;
  }

  private view(provider: string, dir: URL): UpstreamRecords {
    return {
      provider,
      get: (upstream) => this.held.get(provider)?.get(upstream) ?? readRecords(provider, dir).get(upstream),
      all: () => {
        const added = this.held.get(provider);
        return added && added.size > 0 ? new Map([...readRecords(provider, dir), ...added]) : readRecords(provider, dir);
      },
    };
  }
}

/** What reading through an overlay needs (the finders, the adapters' views): never its replacement. */
export type ReadonlyRecordsOverlay = Pick<RecordsOverlay, 'current' | 'recordsIn'>;

/** The shipped records alone, under no operator's: the checks of the records themselves, the fakes, the CLI's checks. */
export const SHIPPED_ONLY: ReadonlyRecordsOverlay = new RecordsOverlay();
