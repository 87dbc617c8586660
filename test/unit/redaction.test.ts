import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor, ruleProblem, TOO_DEEP } from '../../src/request-log/redaction.js';

const DEEP = 100_000;

/** A value nested `depth` levels deep, built without recursion: `{ a: { a: … { a: leaf } } }` or `[[… [leaf] …]]`. */
function nested(depth: number, kind: 'object' | 'array', leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = kind === 'object' ? { a: v } : [v];
  return v;
}

/** The value `depth` levels down, read without recursion. */
function down(v: unknown, depth: number): unknown {
  let x = v;
  for (let i = 0; i < depth; i++) x = Array.isArray(x) ? x[0] : (x as { a: unknown }).a;
  return x;
}

describe('Redactor.value: the walk', () => {
  const key = `sk_live_${'A'.repeat(30)}`;

  it('walks a value nested 100,000 levels deep (objects or arrays) without overflowing the stack, every rule applied', () => {
    const r = new Redactor({ fields: ['a.a.b'], patterns: ['TOPSECRET-[0-9]+'] });
    for (const kind of ['object', 'array'] as const) {
      const out = r.value(nested(DEEP, kind, { note: `TOPSECRET-42 and ${key}`, keep: 'plain', password: 'hunter2' }));
      expect(down(out, DEEP), kind).toEqual({ note: `${REDACTED} and ${REDACTED}`, keep: 'plain', password: REDACTED });
    }
    // Field rules still reach their paths at the top of a deep value.
    const out = r.value({ a: { a: { b: 'gone', c: nested(DEEP, 'array', 'kept') } } }) as { a: { a: { b: unknown; c: unknown } } };
    expect(out.a.a.b).toBe(REDACTED);
    expect(down(out.a.a.c, DEEP)).toBe('kept');
  });

  it('cuts a value below maxDepth with a marker, so that what is kept can be serialized', () => {
    const r = new Redactor({ fields: [], patterns: [] });
    const out = r.value(nested(DEEP, 'object', 'leaf'), 3);
    expect(out).toEqual({ a: { a: { a: TOO_DEEP } } });
    expect(r.value({ a: [1, 'x', null] }, 2)).toEqual({ a: [1, 'x', null] });
  });

  it('gives what the recursive walk gave: fields by path, credentials by name, patterns in keys and text, bytes by size', () => {
    const r = new Redactor({ fields: ['messages[*].content', 'metadata.internal', '[*]'], patterns: ['TOPSECRET-[0-9]+', 'ZAP'] });
    const input = {
      model: 'm',
      messages: [{ role: 'user', content: 'hello' }, { role: 'assistant', content: { nested: true } }],
      metadata: { internal: { deep: [1, 2] }, public: 'ok TOPSECRET-1' },
      Authorization: `Bearer ${key}`,
      'TOPSECRET-7': 'key named as a secret',
      'TOPSECRET-8': 'a later key redacted alike wins',
      upload: new Uint8Array(5),
      n: 1.5, t: true, z: null,
      list: [[['x']], { token: 'y' }],
    };
    expect(r.value(input)).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: REDACTED }, { role: 'assistant', content: REDACTED }],
      metadata: { internal: REDACTED, public: `ok ${REDACTED}` },
      Authorization: REDACTED,
      [REDACTED]: 'a later key redacted alike wins',
      upload: { bytes: 5 },
      n: 1.5, t: true, z: null,
      list: [[['x']], { token: REDACTED }],
    });
    expect(Object.keys(r.value(input) as object)).toEqual(['model', 'messages', 'metadata', 'Authorization', REDACTED, 'upload', 'n', 't', 'z', 'list']);
    // A path rule on the top array's items; the top value itself is never replaced by a path.
    expect(r.value([1, 'a'])).toEqual([REDACTED, REDACTED]);
    expect(r.value('ZAP TOPSECRET-9')).toBe(`${REDACTED} ${REDACTED}`);
  });
});

describe("an organization's patterns: RE2, linear in the text", () => {
  // Each accepted by safe-regex2, and exponential on a backtracking engine: 27 digits blocked the loop 9.4 s.
  const HOSTILE = ['(\\w|\\d)*!', '(a|a)*$', '(.|\\s)*x'];
  const digits = '7'.repeat(10_000);

  it('accepts RE2 syntax, the hostile patterns too', () => {
    for (const p of [...HOSTILE, 'TOPSECRET-[0-9a-f]+', '(?i)secret', '(?P<n>x)', '\\bcard\\d{4}\\b', '\\p{Greek}+']) expect(ruleProblem('pattern', p), p).toBeNull();
  });

  it('refuses what RE2 cannot compile, saying why: backreferences, lookaround, bad syntax', () => {
    for (const p of ['(a)\\1', '(?=a)b', '(?!a)b', '(?<=a)b', '(?<!a)b', '(', 'a{1001}']) {
      expect(ruleProblem('pattern', p), p).toMatch(/^is not an RE2 regular expression \(RE2 has no backreferences.*: error parsing regexp/);
    }
  });

  it('runs them over 10,000 digits to the right answer', () => {
    const [words, alternation, dot] = HOSTILE.map((p) => new Redactor({ fields: [], patterns: [p!] }));
    expect(words!.text(digits)).toBe(digits);
    expect(words!.text(`${digits}!`)).toBe(REDACTED);
    expect(words!.value({ prompt: `a ${digits}! b` })).toEqual({ prompt: `a ${REDACTED} b` });
    // `$` matches the empty string at the end, as a RegExp would.
    expect(alternation!.text(digits)).toBe(`${digits}${REDACTED}`);
    // And, as a RegExp's replace does, once more after a match that ends there.
    expect(alternation!.text(`${digits}aa`)).toBe(`${digits}${REDACTED}${REDACTED}`);
    expect(dot!.text(digits)).toBe(digits);
    expect(dot!.text(`${digits}x${digits}`)).toBe(`${REDACTED}${digits}`);
  });

  it('fails closed on a stored pattern RE2 cannot compile (kept from before): every text is redacted', () => {
    const r = new Redactor({ fields: [], patterns: ['(a)\\1'] });
    expect(r.value({ prompt: ['anything at all', 3] })).toEqual({ [REDACTED]: [REDACTED, 3] });
  });
});

describe('secret shapes in captured text (one list with the log and the audit)', () => {
  it('redacts a webhook signing secret and a token in a URL fragment, not only in the query', () => {
    const r = new Redactor({ fields: [], patterns: [] });
    const hook = `whsec_${'b2'.repeat(20)}`;
    expect(r.value({ note: `signed with ${hook}` })).toEqual({ note: `signed with ${REDACTED}` });
    expect(r.text('https://x.test/dashboard/accept-invitation#token=AbC_12-xyz')).toBe(`https://x.test/dashboard/accept-invitation#token=${REDACTED}`);
    expect(r.text('https://x.test/a?token=q1&b=2')).toBe(`https://x.test/a?token=${REDACTED}&b=2`);
  });
});

describe('PEM private keys', () => {
  const pem = (body: string) => `-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----`;
  it('are redacted whole, with legacy headers, and a BEGIN without END up to where it stops', () => {
    const r = new Redactor({ fields: [], patterns: [] });
    expect(r.text(`key: ${pem('MIIEow+IBAAK/CAQEA=\nAbc')} done`)).toBe(`key: ${REDACTED} done`);
    expect(r.text(`k ${pem('Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0F\n\nMIIE')}`)).toBe(`k ${REDACTED}`);
    expect(r.text('-----BEGIN PRIVATE KEY-----\nMIIEsecret and the rest')).toBe(REDACTED);
  });
  it('cost one pass over a body that repeats BEGIN with no END (the lazy pattern was quadratic: minutes here)', () => {
    const hostile = '-----BEGIN PRIVATE KEY-----x'.repeat(30_000);
    const out = new Redactor({ fields: [], patterns: [] }).text(hostile);
    expect(out).toBe(REDACTED.repeat(30_000));
  });
});
