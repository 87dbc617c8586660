import { ApiError } from '../errors.js';
import { JSON_LIMITS } from '../json-shape.js';

/**
 * Checks on request input that JSON Schema cannot say, run on the body, the
 * query and the path parameters after schema validation and before any
 * handler (or idempotency fingerprint) sees them:
 *
 * - text must be well-formed Unicode without U+0000. PostgreSQL cannot store
 *   NUL in `text` or `jsonb`, and refuses an unpaired surrogate escape in
 *   `jsonb`; elsewhere an unpaired surrogate silently becomes U+FFFD. Either
 *   way the request would fail with a 500 or be stored as something it did
 *   not say, so it is refused up front, naming the field.
 * - a body nests at most JSON_LIMITS.depth levels. A JSON body is measured
 *   before it is parsed (src/json-shape.ts); this catches what reaches a handler
 *   by another road (a multipart form, a query string).
 */
const MAX_JSON_DEPTH = JSON_LIMITS.depth;

// An unpaired surrogate: a high one not followed by a low one, or a low one not preceded by a high one.
const BAD_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export type InputPart = 'body' | 'querystring' | 'params';

function describe(text: string): string | null {
  const m = BAD_TEXT.exec(text);
  if (!m) return null;
  return m[0] === '\u0000' ? 'must not contain the NUL character (U+0000)' : 'must be valid Unicode text (it contains an unpaired surrogate)';
}

/** "messages", 0, "content" → "messages[0].content" (the `param` convention of validation errors). */
function paramOf(path: ReadonlyArray<string | number>): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${p}` : p;
  return out;
}

/** Throws 400 parameter_invalid for the first bad string, object key or excess nesting in `value`. */
export function assertCleanInput(value: unknown, part: InputPart): void {
  const where = part === 'querystring' ? 'query parameter' : part === 'params' ? 'path parameter' : 'parameter';
  // Iterative, so that the walk itself cannot overflow the stack on a deep body.
  const stack: Array<{ v: unknown; path: Array<string | number> }> = [{ v: value, path: [] }];
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    if (path.length > MAX_JSON_DEPTH) {
      throw new ApiError('parameter_invalid', `The request ${part === 'body' ? 'body' : part} is nested more than ${MAX_JSON_DEPTH} levels deep.`, paramOf(path.slice(0, 1)) || undefined);
    }
    if (typeof v === 'string') {
      const problem = describe(v);
      if (problem) {
        const param = paramOf(path);
        throw new ApiError('parameter_invalid', param ? `Invalid ${where} ${param}: ${problem}.` : `The request ${part} ${problem}.`, param || undefined);
      }
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: [...path, i] });
    } else if (v !== null && typeof v === 'object' && !Buffer.isBuffer(v)) {
      for (const [k, child] of Object.entries(v)) {
        const problem = describe(k);
        if (problem) {
          const param = paramOf(path);
          throw new ApiError('parameter_invalid', `A field name${param ? ` in ${param}` : ''} ${problem}.`, param || undefined);
        }
        stack.push({ v: child, path: [...path, k] });
      }
    }
  }
}

/**
 * The `param` of the first key the JSON body parser refuses (`__proto__`, or a `constructor` holding `prototype`,
 * which could reach an object's prototype), or null when `text` is not JSON at all. Such a body is valid JSON with a
 * field no operation takes, so it is answered as an unknown parameter, not as malformed JSON. JSON.parse defines
 * `__proto__` as an own property, so reading the body this way is safe.
 */
export function forbiddenKeyParam(text: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const stack: Array<{ v: unknown; path: Array<string | number> }> = [{ v: value, path: [] }];
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: [...path, i] });
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v);
      for (const [k, child] of entries) {
        const pollutes = k === '__proto__' || (k === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype'));
        if (pollutes) return paramOf([...path, k]);
      }
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ v: entries[i]![1], path: [...path, entries[i]![0]] });
    }
  }
  return null;
}
