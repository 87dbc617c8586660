import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical-json.js';
import { JSON_LIMITS } from '../../src/json-shape.js';
import { withoutReferences } from '../../src/providers/catalog-sync.js';
import { collectFiles, type FoundFile } from '../../src/providers/files.js';
import { inlineReferences } from '../../src/providers/schema-references.js';

/**
 * Issue 42: every walk over data from outside is iterative or depth-bounded. Each one here is given a value
 * 100,000 levels deep (built in a loop: a recursive builder would overflow first), which a recursive walk cannot
 * survive, and, where it was rewritten, is held to what the recursive version it replaced answered.
 */
const LEVELS = 100_000;

function deep(levels: number, leaf: unknown, wrap: (inner: unknown) => unknown): unknown {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = wrap(v);
  return v;
}

/** The recursive canonical JSON that price versions and idempotency fingerprints were made with before. */
function recursiveCanonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(recursiveCanonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${recursiveCanonical(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** The recursive collectFiles it replaced. */
function recursiveFiles(value: unknown, key = ''): FoundFile[] {
  if (typeof value === 'string') return /^(https?:\/\/|data:)/i.test(value) ? [{ url: value, key }] : [];
  if (Array.isArray(value)) return value.flatMap((v) => recursiveFiles(v, key));
  if (value === null || typeof value !== 'object') return [];
  const o = value as Record<string, unknown>;
  if (typeof o.url === 'string' && /^(https?:\/\/|data:)/i.test(o.url)) {
    const f: FoundFile = { url: o.url, key };
    if (typeof o.content_type === 'string') f.mime = o.content_type;
    if (typeof o.width === 'number') f.width = o.width;
    if (typeof o.height === 'number') f.height = o.height;
    return [f];
  }
  return Object.entries(o).flatMap(([k, v]) => recursiveFiles(v, k));
}

describe('walks over outside data', () => {
  it('canonicalJson writes 100,000 levels, and writes what the recursive version wrote for any JSON', () => {
    const text = canonicalJson(deep(LEVELS, 1, (inner) => ({ b: inner, a: [inner === 1 ? 0 : 2] })));
    expect(text.startsWith('{"a":[2],"b":{"a":[2],"b":')).toBe(true);
    expect(text.length).toBeGreaterThan(LEVELS * 10);
    expect(() => recursiveCanonical(deep(LEVELS, 1, (inner) => [inner]))).toThrow(RangeError);
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => {
        expect(canonicalJson(v)).toBe(recursiveCanonical(v));
      }),
      { seed: 42, numRuns: 1000 },
    );
    expect(canonicalJson({ b: undefined, a: [undefined, 1] })).toBe('{"a":[null,1]}');
    expect(canonicalJson({ f: Buffer.from('x') }, (v) => (Buffer.isBuffer(v) ? '"file"' : undefined))).toBe('{"f":"file"}');
  });

  it("collectFiles finds the file at the bottom of a provider's answer 100,000 levels deep, in document order as before", () => {
    const answer = deep(LEVELS, { url: 'https://cdn.example/out.mp4', content_type: 'video/mp4' }, (inner) => ({ data: [inner] }));
    expect(collectFiles(answer)).toEqual([{ url: 'https://cdn.example/out.mp4', key: 'data', mime: 'video/mp4' }]);
    const files = fc.oneof(fc.constant('https://x.example/a.png'), fc.record({ url: fc.constantFrom('https://x.example/b.mp4', 'data:image/png;base64,AA'), width: fc.nat() }));
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }).chain((v) => fc.tuple(fc.constant(v), files)), ([v, f]) => {
        const answerWithFiles = { first: f, rest: v, list: [f, { nested: [v, f] }] };
        expect(collectFiles(answerWithFiles)).toEqual(recursiveFiles(answerWithFiles));
      }),
      { seed: 43, numRuns: 500 },
    );
  });

  it('a published schema 100,000 levels deep is kept to the records\' depth, with a note where it was cut', () => {
    const published = deep(LEVELS, { type: 'string' }, (inner) => ({ type: 'object', properties: { x: inner } }));
    for (const kept of [inlineReferences(published, {}), withoutReferences(published)]) {
      let at = kept as Record<string, unknown>;
      let levels = 0;
      while (at.properties) {
        at = (at.properties as Record<string, Record<string, unknown>>).x!;
        levels++;
      }
      expect(levels).toBeLessThanOrEqual(JSON_LIMITS.depth);
      expect(String(at.description)).toMatch(/nested deeper than/);
    }
    // A schema within the limit is untouched.
    const shallow = { type: 'object', properties: { prompt: { type: 'string' }, size: { $ref: '#/components/schemas/Size' } } };
    expect(inlineReferences(shallow, { components: { schemas: { Size: { enum: ['s', 'm'] } } } })).toEqual({ type: 'object', properties: { prompt: { type: 'string' }, size: { enum: ['s', 'm'] } } });
  });
});
