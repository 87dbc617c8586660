import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { ApiError } from './errors.js';

/**
 * Two validators: request bodies are taken exactly as sent (no type coercion,
 * no silent removal of unknown fields); query strings and path parameters are
 * text by nature, so they are coerced to the schema's types.
 */
export function makeAjv(coerce: boolean): Ajv {
  // allErrors lets validationError() report the most useful error (a typo'd field before the field it misses).
  // multipleOfPrecision: 19.99 / 0.01 is 1998.9999999999998 in binary floating point; without it a valid amount is refused.
  const ajv = new Ajv({ allErrors: true, removeAdditional: false, useDefaults: true, coerceTypes: coerce, strict: false, multipleOfPrecision: 9 });
  addFormats.default(ajv);
  return ajv;
}

/** "/messages/0/role" → "messages[0].role" */
export function paramPath(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').filter(Boolean);
  if (child !== undefined) parts.push(child);
  let out = '';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  return out;
}

const ERROR_PRIORITY = ['additionalProperties', 'required'];

export function validationError(errors: ErrorObject[], context: string | undefined): ApiError {
  const rank = (x: ErrorObject) => {
    const i = ERROR_PRIORITY.indexOf(x.keyword);
    return i === -1 ? ERROR_PRIORITY.length : i;
  };
  const e = [...errors].sort((a, b) => rank(a) - rank(b))[0]!;
  const where = context === 'querystring' ? 'query parameter' : context === 'params' ? 'path parameter' : 'parameter';
  if (e.keyword === 'required') {
    const param = paramPath(e.instancePath, (e.params as { missingProperty: string }).missingProperty);
    return new ApiError('parameter_missing', `Missing required ${where}: ${param}.`, param);
  }
  if (e.keyword === 'additionalProperties') {
    const param = paramPath(e.instancePath, (e.params as { additionalProperty: string }).additionalProperty);
    return new ApiError('parameter_unknown', `Unknown ${where}: ${param}.`, param);
  }
  const param = paramPath(e.instancePath);
  if (!param) return new ApiError('parameter_invalid', `The request body ${e.message ?? 'is invalid'}.`);
  let detail = e.message ?? 'is invalid';
  if (e.keyword === 'enum') detail = `must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  return new ApiError('parameter_invalid', `Invalid ${where} ${param}: ${detail}.`, param);
}
