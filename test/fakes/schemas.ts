import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { ProviderName } from '../../src/catalog/index.js';
import { upstreamModel, upstreamModelsOf, type UpstreamModelRecord } from '../../src/providers/upstream-models.js';

/**
 * What makes the provider fakes strict: each validates a request against the
 * documented input schema recorded for the model it names
 * (src/providers/<provider>/models/, docs/upstream-models.md), and answers a
 * model it has no record of as its provider answers an unknown model. The
 * records are the fakes' knowledge of the provider; mmgen's adapters read
 * the same records, so what the fakes check is that mmgen's mapping obeys
 * them, and the records themselves are checked against the documentation
 * they cite (their `sources`).
 */
export interface Violation {
  /** The input field at fault, as a dotted path ('' for the body as a whole). */
  field: string;
  message: string;
  keyword: string;
}

const ajv = new Ajv2020({ allErrors: true, strict: false });
const compiled = new Map<UpstreamModelRecord, ValidateFunction>();

export function recordOf(provider: ProviderName, upstream: string): UpstreamModelRecord | undefined {
  return upstreamModel(provider, upstream);
}

/** The record of a Replicate community model, found by its pinned version. */
export function replicateRecordByVersion(version: string): UpstreamModelRecord | undefined {
  return [...upstreamModelsOf('replicate').values()].find((r) => r.call.version === version);
}

function fieldOf(e: ErrorObject): string {
  const path = e.instancePath.replace(/^\//, '').replaceAll('/', '.');
  if (e.keyword === 'required') return [path, (e.params as { missingProperty: string }).missingProperty].filter(Boolean).join('.');
  if (e.keyword === 'additionalProperties') return [path, (e.params as { additionalProperty: string }).additionalProperty].filter(Boolean).join('.');
  return path;
}

/** The ways `input` breaks the record's documented schema; empty when it is a valid request. */
export function violations(record: UpstreamModelRecord, input: unknown): Violation[] {
  let validate = compiled.get(record);
  if (!validate) {
    validate = ajv.compile(record.input);
    compiled.set(record, validate);
  }
  if (validate(input)) return [];
  return (validate.errors ?? []).map((e) => ({
    field: fieldOf(e),
    keyword: e.keyword,
    message: e.keyword === 'additionalProperties' ? 'extra inputs are not permitted' : (e.message ?? 'is invalid'),
  }));
}
