import safeRegex from 'safe-regex2';

export const REDACTED = '[REDACTED]';

/**
 * Field names whose values are never kept, wherever they appear (any depth, any case): credentials by name.
 */
const SECRET_FIELDS = new Set([
  'authorization', 'proxy-authorization', 'x-api-key', 'api-key', 'api_key', 'apikey', 'cookie', 'set-cookie', 'password', 'passwd',
  'secret', 'client_secret', 'token', 'access_token', 'refresh_token', 'id_token', 'private_key', 'signature',
]);

/** Credentials by shape, wherever they appear in text: mmgen's keys, the providers', cloud keys, bearer tokens, PEM keys. */
const SECRET_PATTERNS: readonly RegExp[] = [
  /sk_(?:live|test)_[0-9A-Za-z]{20,200}/g,
  /sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g,
  /r8_[A-Za-z0-9]{20,}/g,
  /(?:AKIA|ASIA)[0-9A-Z]{16}/g,
  /\bBearer\s+[A-Za-z0-9._~+/-]{8,}=*/gi,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /(?<=[?&](?:signature|X-Amz-Signature|X-Amz-Credential|token)=)[^&\s"]+/g,
];

export const MAX_RULES = 20;
export const MAX_PATTERN_LENGTH = 200;
const FIELD_PATH = /^[A-Za-z0-9_-]+(\[\*\])?(\.[A-Za-z0-9_-]+(\[\*\])?)*$/;

/** Why a field path or pattern is refused, or null. Patterns must be safe from catastrophic backtracking (safe-regex2). */
export function ruleProblem(kind: 'field' | 'pattern', rule: string): string | null {
  if (rule.length === 0 || rule.length > MAX_PATTERN_LENGTH) return `must be 1 to ${MAX_PATTERN_LENGTH} characters`;
  if (kind === 'field') return FIELD_PATH.test(rule) ? null : 'must be a field path such as `prompt` or `messages[*].content`';
  try {
    new RegExp(rule, 'g');
  } catch {
    return 'is not a valid regular expression';
  }
  return safeRegex(rule) ? null : 'could backtrack catastrophically; simplify it';
}

export interface RedactionRules {
  /** Field paths (`messages[*].content`): the value there, and all below it, is replaced. */
  fields: readonly string[];
  /** Regular expressions: every match in any text is replaced. */
  patterns: readonly string[];
}

/** A compiled set of rules: the organization's and the ones always applied. */
export class Redactor {
  private readonly fields: ReadonlySet<string>;
  private readonly patterns: readonly RegExp[];

  constructor(rules: RedactionRules) {
    this.fields = new Set(rules.fields);
    this.patterns = [...SECRET_PATTERNS, ...rules.patterns.map((p) => new RegExp(p, 'g'))];
  }

  text(s: string): string {
    let out = s;
    for (const p of this.patterns) out = out.replace(p, REDACTED);
    return out;
  }

  /** A JSON value with every rule applied (a new value; the input is not changed). */
  value(v: unknown, path = ''): unknown {
    if (path !== '' && this.fields.has(path)) return REDACTED;
    if (typeof v === 'string') return this.text(v);
    // A file's bytes (an upload, a multipart part) are not kept: only their size.
    if (v instanceof Uint8Array) return { bytes: v.length };
    if (Array.isArray(v)) return v.map((x) => this.value(x, `${path}[*]`));
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        out[this.text(k)] = SECRET_FIELDS.has(k.toLowerCase()) ? REDACTED : this.value(x, path === '' ? k : `${path}.${k}`);
      }
      return out;
    }
    return v;
  }

  /**
   * A response body as sent: JSON redacted field by field; a server-sent event stream event by event (each `data:`
   * line that is JSON, as a JSON value; the rest as text); other text by pattern. Bytes that are not text are not
   * kept, only their size.
   */
  body(bytes: Buffer, contentType: string | undefined): unknown {
    const type = (contentType ?? '').toLowerCase();
    if (type.includes('json')) {
      const text = bytes.toString('utf8');
      try {
        return this.value(JSON.parse(text));
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
            return { data: this.value(JSON.parse(data)) };
          } catch {
            return this.text(line);
          }
        });
    }
    if (type.startsWith('text/')) return this.text(bytes.toString('utf8'));
    return { bytes: bytes.length, content_type: contentType ?? null };
  }
}
