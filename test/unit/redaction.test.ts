import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor, TOO_DEEP } from '../../src/request-log/redaction.js';

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
