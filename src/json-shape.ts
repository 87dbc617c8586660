/** A JSON body's size; files go through POST /v1/uploads. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/**
 * The shape every JSON body must keep, whatever its size in bytes, checked on the text before it is parsed.
 *
 * The byte limit alone lets 1 MiB hold an object 500,000 levels deep or with 100,000 keys. Parsing such a body is
 * cheap, but everything after the parser that walks it (validation, the idempotency fingerprint, payload capture's
 * redaction, JSON.stringify when it is stored) recurses or works per key, and a stack overflow in a walk that runs
 * outside a request's error handling stops the whole process. So the body is measured first, in one pass over its
 * characters that keeps only a small stack of counters, and refused before anything else sees it.
 */
export const JSON_LIMITS = {
  /** Objects and arrays nested inside each other: `{"a":{"b":[1]}}` is 3. */
  depth: 32,
  /** Members of one object. */
  keys: 1_000,
  /** Items of one array. */
  items: 10_000,
} as const;

export interface ShapeProblem {
  limit: keyof typeof JSON_LIMITS;
  message: string;
  /** The top-level field the offending value is in, when the body is an object. */
  param?: string;
}

const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/**
 * The first limit `text` breaks, or null. `text` need not be valid JSON: what does not parse is the parser's to
 * refuse, and this pass only has to stay linear and never throw on it. Counts are by syntax (a duplicated key counts
 * twice), which is what the walkers after the parser would pay for anyway.
 */
export function jsonShapeProblem(text: string): ShapeProblem | null {
  // counts[d]: members or items seen so far in the container open at depth d+1; kinds[d]: whether it is an object.
  const counts: number[] = [];
  const kinds: boolean[] = [];
  // Whether the container at the top has seen anything but white space since it opened (an empty one has 0 members).
  let pendingFirst = false;
  let topKey: string | undefined;
  let keyStart = -1;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === SPACE || c === TAB || c === LF || c === CR) continue;
    const depth = counts.length;
    if (pendingFirst) {
      pendingFirst = false;
      if (c !== CLOSE_OBJECT && c !== CLOSE_ARRAY) counts[depth - 1] = 1;
    }
    if (c === QUOTE) {
      const start = i;
      for (i++; i < n; i++) {
        const s = text.charCodeAt(i);
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
      // A top-level object's key: the string that opens one of its members (after `{` or `,`).
      if (depth === 1 && kinds[0] === true && keyStart === start) topKey = parseKey(text.slice(start, i + 1)) ?? topKey;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth + 1 > JSON_LIMITS.depth) {
        return { limit: 'depth', message: `The request body nests objects and arrays more than ${JSON_LIMITS.depth} levels deep.`, ...(topKey ? { param: topKey } : {}) };
      }
      counts.push(0);
      kinds.push(c === OPEN_OBJECT);
      pendingFirst = true;
      if (depth === 0 && c === OPEN_OBJECT) keyStart = nextNonSpace(text, i + 1);
      continue;
    }
    if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      counts.pop();
      kinds.pop();
      continue;
    }
    if (c === COMMA && depth > 0) {
      const count = ++counts[depth - 1]!;
      const isObject = kinds[depth - 1]!;
      if (isObject && count > JSON_LIMITS.keys) {
        return { limit: 'keys', message: `An object in the request body has more than ${JSON_LIMITS.keys} members.`, ...(depth > 1 && topKey ? { param: topKey } : {}) };
      }
      if (!isObject && count > JSON_LIMITS.items) {
        return { limit: 'items', message: `An array in the request body has more than ${JSON_LIMITS.items} items.`, ...(depth > 1 && topKey ? { param: topKey } : {}) };
      }
      if (depth === 1 && isObject) keyStart = nextNonSpace(text, i + 1);
    }
  }
  return null;
}

function nextNonSpace(text: string, from: number): number {
  let i = from;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== SPACE && c !== TAB && c !== LF && c !== CR) break;
  }
  return i;
}

function parseKey(quoted: string): string | undefined {
  try {
    const key: unknown = JSON.parse(quoted);
    return typeof key === 'string' ? key : undefined;
  } catch {
    return undefined;
  }
}

/** The limits in words, for error messages and the OpenAPI document. */
export const JSON_LIMITS_TEXT = `A JSON body nests at most ${JSON_LIMITS.depth} levels, with at most ${JSON_LIMITS.keys} members per object and ${JSON_LIMITS.items} items per array.`;

/** What the OpenAPI document says of every JSON request body. */
export const JSON_BODY_DESCRIPTION = `At most ${MAX_JSON_BODY_BYTES} bytes (413 payload_too_large). ${JSON_LIMITS_TEXT} Beyond a limit: 400 parameter_invalid naming it, before anything else reads the body.`;
