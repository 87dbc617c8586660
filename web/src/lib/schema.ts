/** The subset of JSON Schema that the API's request schemas use (TypeBox output in /v1/openapi.json). */
export interface JsonSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'null';
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: (string | number)[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  format?: string;
  default?: unknown;
  description?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  title?: string;
}

export type FieldErrors = Record<string, string>;

function typeOk(s: JsonSchema, v: unknown): boolean {
  switch (s.type) {
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'array':
      return Array.isArray(v);
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'null':
      return v === null;
    default:
      return true;
  }
}

function isUri(v: string): boolean {
  try {
    return Boolean(new URL(v).protocol);
  } catch {
    return false;
  }
}

/** Multiples of fractional steps (0.01) are compared in integers, as a decimal would be. */
function multipleOk(v: number, m: number): boolean {
  const scale = 10 ** Math.max(0, (String(m).split('.')[1] ?? '').length);
  return Math.round(v * scale) % Math.round(m * scale) === 0 && Math.abs(v * scale - Math.round(v * scale)) < 1e-6;
}

/**
 * Checks a value against a schema the way the API's validator (ajv) does, with
 * the same wording, so a form says before sending what the API would answer
 * with 400. Errors are keyed by the API's `param` naming (`messages[0].role`).
 */
export function validate(schema: JsonSchema, value: unknown, path = '', errors: FieldErrors = {}): FieldErrors {
  const at = (p: string) => p || '(body)';
  // An object's anyOf/oneOf beside its properties is a rule on top of them: a model's "a prompt or an input image".
  if (schema.type === 'object' && (schema.anyOf || schema.oneOf)) {
    oneOfRules(schema, value, path, errors);
    return validate({ ...schema, anyOf: undefined, oneOf: undefined }, value, path, errors);
  }
  if (schema.anyOf) {
    const verdicts = schema.anyOf.map((s) => validate(s, value, path, {}));
    if (verdicts.some((v) => Object.keys(v).length === 0)) return errors;
    // A value of one branch's type is told what that branch wants of it ("must be >= 1" for a number of an
    // "integer or null"), not a bare "is invalid".
    const ofItsType = schema.anyOf.findIndex((s) => s.type !== undefined && typeOk(s, value));
    Object.assign(errors, ofItsType >= 0 ? verdicts[ofItsType] : { [at(path)]: 'is invalid' });
    return errors;
  }
  if (!typeOk(schema, value)) {
    errors[at(path)] = `must be ${schema.type}`;
    return errors;
  }
  if (schema.enum && !schema.enum.includes(value as string | number)) {
    errors[at(path)] = `must be one of: ${schema.enum.join(', ')}`;
    return errors;
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) errors[at(path)] = `must be >= ${schema.minimum}`;
    else if (schema.maximum !== undefined && value > schema.maximum) errors[at(path)] = `must be <= ${schema.maximum}`;
    else if (schema.multipleOf !== undefined && !multipleOk(value, schema.multipleOf)) errors[at(path)] = `must be multiple of ${schema.multipleOf}`;
  }
  if (typeof value === 'string') {
    const len = [...value].length;
    if (schema.minLength !== undefined && len < schema.minLength) {
      errors[at(path)] = schema.minLength === 1 ? 'must not be empty' : `must NOT have fewer than ${schema.minLength} characters`;
    } else if (schema.maxLength !== undefined && len > schema.maxLength) errors[at(path)] = `must NOT have more than ${schema.maxLength} characters`;
    else if (schema.format === 'uri' && !isUri(value)) errors[at(path)] = 'must match format "uri"';
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) errors[at(path)] = `must NOT have fewer than ${schema.minItems} items`;
    else if (schema.maxItems !== undefined && value.length > schema.maxItems) errors[at(path)] = `must NOT have more than ${schema.maxItems} items`;
    else if (schema.uniqueItems && new Set(value.map((x) => JSON.stringify(x))).size !== value.length) errors[at(path)] = 'must NOT have duplicate items';
    if (schema.items) value.forEach((item, i) => validate(schema.items!, item, `${path}[${i}]`, errors));
  }
  if (schema.type === 'object' && typeof value === 'object' && value !== null) {
    const obj = value as Record<string, unknown>;
    for (const name of schema.required ?? []) {
      if (obj[name] === undefined) errors[path ? `${path}.${name}` : name] = 'is required';
    }
    for (const [name, v] of Object.entries(obj)) {
      const child = schema.properties?.[name];
      const p = path ? `${path}.${name}` : name;
      if (child) validate(child, v, p, errors);
      else if (schema.additionalProperties === false) errors[p] = 'is not a known parameter';
    }
  }
  return errors;
}

/**
 * A model's "one of these" rules (`anyOf`/`oneOf` of branches that each require one field): none given is reported
 * on the first field, as the API's 400 names it; a second one given where only one may be, on that field.
 */
function oneOfRules(schema: JsonSchema, value: unknown, path: string, errors: FieldErrors): void {
  const name = (field: string) => (path ? `${path}.${field}` : field);
  for (const [branches, exclusive] of [[schema.anyOf, false], [schema.oneOf, true]] as const) {
    if (!branches) continue;
    const passing = branches.filter((b) => Object.keys(validate({ type: 'object', ...b }, value, path, {})).length === 0);
    const fields = branches.map((b) => b.required?.[0]).filter((f): f is string => f !== undefined);
    if (passing.length === 0 && fields[0]) errors[name(fields[0])] ??= 'is required';
    if (exclusive && passing.length > 1 && passing[1]!.required?.[0]) errors[name(passing[1]!.required[0])] ??= `give only one of: ${fields.join(', ')}`;
  }
}

/** "scopes[2]" → "scopes": an item of a list is reported on the list's field. */
export const listField = (param: string): string => param.replace(/\[\d+\]$/, '');

/** The request schema's verdict on a body, one message per form field (the first found). */
export function checkFields(schema: JsonSchema | undefined, body: unknown, fieldOf: (param: string) => string = listField): FieldErrors {
  const found: FieldErrors = {};
  for (const [param, message] of Object.entries(schema ? validate(schema, body) : {})) found[fieldOf(param)] ??= message;
  return found;
}

/** "256–2048, multiple of 8 · default 1024": what a field accepts, in words. */
export function describeConstraints(s: JsonSchema): string {
  const parts: string[] = [];
  if (s.minimum !== undefined && s.maximum !== undefined) parts.push(`${s.minimum}–${s.maximum}`);
  else if (s.minimum !== undefined) parts.push(`≥ ${s.minimum}`);
  else if (s.maximum !== undefined) parts.push(`≤ ${s.maximum}`);
  if (s.multipleOf !== undefined && s.multipleOf !== 1) parts.push(`multiple of ${s.multipleOf}`);
  if (s.maxLength !== undefined && s.type === 'string' && !s.enum) parts.push(`up to ${s.maxLength.toLocaleString('en-US')} characters`);
  if (s.default !== undefined) parts.push(`default ${String(s.default)}`);
  return parts.join(' · ');
}
