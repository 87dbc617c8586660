import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { ProviderName } from '../../src/catalog/index.js';
import { shippedRecord, shippedRecordsOf } from '../../src/providers/upstream-models.js';
import type { UpstreamModelRecord } from '../../src/providers/upstream-record.js';

/**
 * What makes the provider fakes strict: each validates a request against the
 * documented input schema recorded for the model it names
 * (src/providers/<provider>/models/, docs/upstream-models.md), and answers a
 * model it has no record of as its provider answers an unknown model. The
 * records are the fakes' knowledge of the provider; mmgen's adapters read
 * the same records, so what the fakes check is that mmgen's mapping obeys
 * them, and the records themselves are checked against the documentation
 * they cite (their `sources`). The shipped records only: an operator's are an
 * installation's, not the provider's, so a test that adds a model publishes it
 * upstream first (the fake's `listing.add`, with its schema).
 */
export interface Violation {
  /** The input field at fault, as a dotted path ('' for the body as a whole). */
  field: string;
  message: string;
  keyword: string;
}

// `binary` marks a file part of a multipart form (OpenAI's image edits), checked as the part's file name.
const ajv = new Ajv2020({ allErrors: true, strict: false, formats: { binary: true } });
const compiled = new WeakMap<object, ValidateFunction>();

export function recordOf(provider: ProviderName, upstream: string): UpstreamModelRecord | undefined {
  return shippedRecord(provider, upstream);
}

/** The record of a Replicate community model, found by its pinned version. */
export function replicateRecordByVersion(version: string): UpstreamModelRecord | undefined {
  return [...shippedRecordsOf('replicate').values()].find((r) => r.call.version === version);
}

function fieldOf(e: ErrorObject): string {
  const path = e.instancePath.replace(/^\//, '').replaceAll('/', '.');
  if (e.keyword === 'required') return [path, (e.params as { missingProperty: string }).missingProperty].filter(Boolean).join('.');
  if (e.keyword === 'additionalProperties') return [path, (e.params as { additionalProperty: string }).additionalProperty].filter(Boolean).join('.');
  return path;
}

/** The ways `input` breaks the record's documented schema (or another of its schemas); empty when it is a valid request. */
export function violations(record: UpstreamModelRecord, input: unknown, schema: object = record.input): Violation[] {
  return schemaViolations(schema, input);
}

/** The ways `input` breaks a published schema; empty when it is a valid request. */
export function schemaViolations(schema: object, input: unknown): Violation[] {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(input)) return [];
  return (validate.errors ?? []).map((e) => ({
    field: fieldOf(e),
    keyword: e.keyword,
    message: e.keyword === 'additionalProperties' ? 'extra inputs are not permitted' : (e.message ?? 'is invalid'),
  }));
}

/**
 * A multipart form's entries as the typed values its schema documents (a form carries text: "2" for an integer
 * field is 2), a file part as its file name, a repeated `name[]` part as a list under `name`.
 */
export function formValues(form: FormData, schema: { properties: Record<string, unknown> }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [rawKey, v] of form.entries()) {
    const many = rawKey.endsWith('[]');
    const key = many ? rawKey.slice(0, -2) : rawKey;
    let value: unknown;
    if (typeof v !== 'string') value = v.name;
    else {
      const type = (schema.properties[key] as { type?: unknown } | undefined)?.type;
      const types = Array.isArray(type) ? type : [type];
      if ((types.includes('integer') || types.includes('number')) && v.trim() !== '' && Number.isFinite(Number(v))) value = Number(v);
      else if (types.includes('boolean') && (v === 'true' || v === 'false')) value = v === 'true';
      else value = v;
    }
    if (many) out[key] = [...((out[key] as unknown[] | undefined) ?? []), value];
    else out[key] = value;
  }
  return out;
}
