import { RE2JS, RE2JSException } from 're2js';
import { redactSecretShapes } from '../secret-shapes.js';

export const REDACTED = '[REDACTED]';
/** What replaces a value nested deeper than a walk keeps. */
export const TOO_DEEP = '[TOO DEEP]';

/**
 * Field names whose values are never kept, wherever they appear (any depth, any case): credentials by name.
 */
const SECRET_FIELDS = new Set([
  'authorization', 'proxy-authorization', 'x-api-key', 'api-key', 'api_key', 'apikey', 'cookie', 'set-cookie', 'password', 'passwd',
  'secret', 'client_secret', 'token', 'access_token', 'refresh_token', 'id_token', 'private_key', 'signature',
]);

/** What a stored pattern that RE2 cannot compile stands for: any text. */
const EVERYTHING = '[\\s\\S]+';

export const MAX_RULES = 20;
export const MAX_PATTERN_LENGTH = 200;
const FIELD_PATH = /^[A-Za-z0-9_-]+(\[\*\])?(\.[A-Za-z0-9_-]+(\[\*\])?)*$/;

/**
 * An organization's pattern, compiled by RE2 (re2js, a JavaScript port): linear time in the text, whatever the
 * pattern. A backtracking engine (RegExp) runs `(\w|\d)*!` for ever on a line of digits, on the event loop of every
 * tenant; heuristics such as safe-regex2 let it through. RE2 has no backreferences and no lookaround.
 */
function compilePattern(rule: string): RE2JS {
  return RE2JS.compile(rule);
}

/** Why a field path or pattern is refused, or null. Patterns are RE2 syntax (compilePattern). */
export function ruleProblem(kind: 'field' | 'pattern', rule: string): string | null {
  if (rule.length === 0 || rule.length > MAX_PATTERN_LENGTH) return `must be 1 to ${MAX_PATTERN_LENGTH} characters`;
  if (kind === 'field') return FIELD_PATH.test(rule) ? null : 'must be a field path such as `prompt` or `messages[*].content`';
  try {
    compilePattern(rule);
    return null;
  } catch (err) {
    const why = err instanceof RE2JSException ? err.message : String(err);
    return `is not an RE2 regular expression (RE2 has no backreferences such as \\1 and no lookaround such as (?=, (?!, (?<=): ${why}`;
  }
}

export interface RedactionRules {
  /** Field paths (`messages[*].content`): the value there, and all below it, is replaced. */
  fields: readonly string[];
  /** Regular expressions: every match in any text is replaced. */
  patterns: readonly string[];
}

/** Marks, on the walk's stack, a value under a credential's name: replaced as it is, the organization's patterns unapplied. */
const SECRET_FIELD = Symbol('secret field');

/** A compiled set of rules: the organization's and the ones always applied. */
export class Redactor {
  private readonly fields: ReadonlySet<string>;
  private readonly patterns: readonly RE2JS[];

  constructor(rules: RedactionRules) {
    this.fields = new Set(rules.fields);
    this.patterns = rules.patterns.map((p) => {
      try {
        return compilePattern(p);
      } catch {
        // A pattern kept from before RE2 (docs/contract-addenda.md, "Payload capture and redaction"): failing closed,
        // every text is redacted rather than kept with what the organization meant to hide.
        return compilePattern(EVERYTHING);
      }
    });
  }

  text(s: string): string {
    // Ours (secret-shapes.ts), with the engine's RegExp; the organization's with RE2.
    let out = redactSecretShapes(s, REDACTED);
    // The replacement has no `$`, which would name a group.
    for (const p of this.patterns) out = p.matcher(out).replaceAll(REDACTED);
    return out;
  }

  /**
   * A JSON value with every rule applied (a new value; the input is not changed). Walked with a stack of its own, not
   * by recursion: a body nested 100,000 levels deep is walked like any other (the call stack would overflow). Below
   * `maxDepth` levels a value is replaced by TOO_DEEP, so that what is kept can be serialized (JSON.stringify
   * recurses); the default keeps every level.
   */
  value(v: unknown, maxDepth = Infinity): unknown {
    // Paths are tracked only while a field rule could still match one: past the longest rule, a path only grows, and
    // hashing ever longer paths would make a deep walk quadratic.
    const longest = Math.max(0, ...[...this.fields].map((f) => f.length));
    const holder: Record<string, unknown> = {};
    // Pending values, four slots each: the value, its path (null once no rule can match), where its result goes
    // (an object or array, and the key or index there), and its depth.
    const stack: unknown[] = [v, '', holder, 'v', 0];
    while (stack.length > 0) {
      const depth = stack.pop() as number;
      const key = stack.pop() as string | number;
      const target = stack.pop() as Record<string | number, unknown>;
      const path = stack.pop() as string | null;
      const x = stack.pop();
      if (x === SECRET_FIELD || (path !== null && path !== '' && this.fields.has(path))) {
        target[key] = REDACTED;
      } else if (typeof x === 'string') {
        target[key] = this.text(x);
      } else if (x instanceof Uint8Array) {
        // A file's bytes (an upload, a multipart part) are not kept: only their size.
        target[key] = { bytes: x.length };
      } else if (x === null || typeof x !== 'object') {
        target[key] = x;
      } else if (depth >= maxDepth) {
        target[key] = TOO_DEEP;
      } else if (Array.isArray(x)) {
        const out: unknown[] = new Array<unknown>(x.length);
        target[key] = out;
        const below = path === null || path.length + 3 > longest ? null : `${path}[*]`;
        // Pushed last to first, so taken first to last: results are assigned in the order of a recursive walk.
        for (let i = x.length - 1; i >= 0; i--) stack.push(x[i], below, out, i, depth + 1);
      } else {
        const out: Record<string, unknown> = {};
        target[key] = out;
        const entries = Object.entries(x);
        const keys = entries.map(([k]) => this.text(k));
        // Keys are created in their order now; a later duplicate (two keys redacted alike) still wins, as assigned last.
        for (const k of keys) out[k] = undefined;
        for (let i = entries.length - 1; i >= 0; i--) {
          const [k, item] = entries[i]!;
          if (SECRET_FIELDS.has(k.toLowerCase())) {
            stack.push(SECRET_FIELD, null, out, keys[i]!, depth + 1);
            continue;
          }
          const below = path === null ? null : path === '' ? k : path.length + 1 + k.length > longest ? null : `${path}.${k}`;
          stack.push(item, below, out, keys[i]!, depth + 1);
        }
      }
    }
    return holder.v;
  }

  /**
   * A response body as sent: JSON redacted field by field; a server-sent event stream event by event (each `data:`
   * line that is JSON, as a JSON value; the rest as text); other text by pattern. Bytes that are not text are not
   * kept, only their size.
   */
  body(bytes: Buffer, contentType: string | undefined, maxDepth = Infinity): unknown {
    const type = (contentType ?? '').toLowerCase();
    if (type.includes('json')) {
      const text = bytes.toString('utf8');
      try {
        return this.value(JSON.parse(text), maxDepth);
      } catch {
        return this.text(text);
      }
    }
    if (type.includes('text/event-stream')) {
      return bytes
        .toString('utf8')
        .split('\n')
        .filter((line) => line.length > 0)
        .map((line) => {
          if (!line.startsWith('data:')) return this.text(line);
          const data = line.slice(5).trim();
          try {
            return { data: this.value(JSON.parse(data), maxDepth) };
          } catch {
            return this.text(line);
          }
        });
    }
    if (type.startsWith('text/')) return this.text(bytes.toString('utf8'));
    return { bytes: bytes.length, content_type: contentType ?? null };
  }
}

const redactors = new WeakMap<object, Redactor>();

/** The Redactor of a data policy, compiled once per policy object (the policy cache hands out the same one until it changes). */
export function redactorOf(policy: { redact_fields: readonly string[]; redact_patterns: readonly string[] }): Redactor {
  let r = redactors.get(policy);
  if (!r) redactors.set(policy, (r = new Redactor({ fields: policy.redact_fields, patterns: policy.redact_patterns })));
  return r;
}
