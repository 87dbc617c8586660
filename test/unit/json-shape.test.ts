import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JSON_LIMITS, jsonShapeProblem } from '../../src/json-shape.js';

/** Depth, widest object and longest array of a parsed value, walked without recursion. */
function measured(value: unknown): { depth: number; keys: number; items: number } {
  let depth = 0;
  let keys = 0;
  let items = 0;
  const stack: Array<{ v: unknown; d: number }> = [{ v: value, d: 0 }];
  while (stack.length > 0) {
    const { v, d } = stack.pop()!;
    if (Array.isArray(v)) {
      depth = Math.max(depth, d + 1);
      items = Math.max(items, v.length);
      for (const x of v) stack.push({ v: x, d: d + 1 });
    } else if (v !== null && typeof v === 'object') {
      depth = Math.max(depth, d + 1);
      keys = Math.max(keys, Object.keys(v).length);
      for (const x of Object.values(v)) stack.push({ v: x, d: d + 1 });
    }
  }
  return { depth, keys, items };
}

const deepObject = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
const deepArray = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describe('the shape of a JSON body', () => {
  it('refuses 100,000 levels of objects or arrays, at the top or inside a named field', () => {
    expect(jsonShapeProblem(deepObject(100_000))).toMatchObject({ limit: 'depth' });
    expect(jsonShapeProblem(deepArray(100_000))).toMatchObject({ limit: 'depth' });
    expect(jsonShapeProblem(`{"model":"flux-schnell","prompt":"a cat","x":${deepObject(100_000)}}`)).toMatchObject({ limit: 'depth', param: 'x' });
    expect(jsonShapeProblem(`{"messages":[${deepArray(100_000)}]}`)).toMatchObject({ limit: 'depth', param: 'messages' });
  });

  it('takes exactly the limit and refuses one more', () => {
    expect(jsonShapeProblem(deepArray(JSON_LIMITS.depth))).toBeNull();
    expect(jsonShapeProblem(deepArray(JSON_LIMITS.depth + 1))).toMatchObject({ limit: 'depth' });
    const members = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`;
    expect(jsonShapeProblem(members(JSON_LIMITS.keys))).toBeNull();
    expect(jsonShapeProblem(members(JSON_LIMITS.keys + 1))).toMatchObject({ limit: 'keys' });
    expect(jsonShapeProblem(`{"params":${members(JSON_LIMITS.keys + 1)}}`)).toMatchObject({ limit: 'keys', param: 'params' });
    const items = (n: number) => `[${Array.from({ length: n }, () => '0').join(',')}]`;
    expect(jsonShapeProblem(items(JSON_LIMITS.items))).toBeNull();
    expect(jsonShapeProblem(`{"input": ${items(JSON_LIMITS.items + 1)}}`)).toMatchObject({ limit: 'items', param: 'input' });
    // 100,000 keys fit in 1 MiB.
    expect(jsonShapeProblem(members(100_000))).toMatchObject({ limit: 'keys' });
  });

  it('does not count brackets, commas and quotes inside strings', () => {
    const text = JSON.stringify({ prompt: `${'['.repeat(500)}${',"'.repeat(20_000)}\\"`, 'odd "key",{[': '}]' });
    expect(jsonShapeProblem(text)).toBeNull();
  });

  it('agrees with the parsed value on any JSON, with white space anywhere', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 40 }), fc.boolean(), (value, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        const m = measured(JSON.parse(text));
        const problem = jsonShapeProblem(text);
        const expected = m.depth > JSON_LIMITS.depth || m.keys > JSON_LIMITS.keys || m.items > JSON_LIMITS.items;
        expect(problem !== null, text.slice(0, 200)).toBe(expected);
      }),
      { seed: 4242, numRuns: 500 },
    );
  });

  it('never throws on text that is not JSON', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        jsonShapeProblem(text);
      }),
      { seed: 4243, numRuns: 2000 },
    );
    expect(jsonShapeProblem('"unterminated \\')).toBeNull();
    expect(jsonShapeProblem(']]]]}}}')).toBeNull();
  });
});
