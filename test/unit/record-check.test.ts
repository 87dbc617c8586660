import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROVIDER_DECLARATIONS } from '../../src/providers/index.js';
import { compileRecordSchema, MAX_SCHEMA_DEPTH } from '../../src/providers/record-schema.js';
import { recordProblem, type UpstreamModelRecord } from '../../src/providers/upstream-record.js';

/**
 * The one check of every upstream record (issue 42): its schemas are JSON Schemas of the draft they declare, held
 * to ajv's meta-schema of that draft, and its map and set name only fields its input declares. Every record the
 * repository ships passes it; the operator's, imported and synced records go through the same function.
 */
const record = (over: Partial<UpstreamModelRecord> = {}): UpstreamModelRecord => ({
  upstream: 'acme/model',
  call: {},
  sources: ['test'],
  lifecycle: { deprecated: null, shutdown: null, replacement: null, source: null },
  pricing: null,
  input: { type: 'object', properties: { prompt: { type: 'string' }, size: { type: 'object', properties: { width: { type: 'integer' } } } } },
  map: { prompt: 'prompt', width: 'size.width' },
  set: {},
  ...over,
});
const input = (prompt: unknown, extra: Record<string, unknown> = {}) => ({ type: 'object' as const, properties: { prompt }, ...extra });

describe('the check of an upstream record', () => {
  it('passes every record the repository ships', () => {
    const problems: string[] = [];
    let count = 0;
    for (const provider of PROVIDER_DECLARATIONS) {
      let files: string[] = [];
      try {
        files = readdirSync(provider.records).filter((f) => f.endsWith('.json'));
      } catch {
        continue;
      }
      for (const file of files) {
        count++;
        const problem = recordProblem(JSON.parse(readFileSync(new URL(file, provider.records), 'utf8')));
        if (problem) problems.push(`${provider.name}/models/${file}: ${problem.field}: ${problem.message}`);
      }
    }
    expect(count).toBeGreaterThan(100);
    expect(problems).toEqual([]);
  });

  it('passes a well-formed record', () => {
    expect(recordProblem(record())).toBeNull();
  });

  it("refuses an input that is not JSON Schema, naming the schema's field", () => {
    const typo = recordProblem(record({ input: input({ type: 'strnig' }), map: { prompt: 'prompt' } }));
    expect(typo).toMatchObject({ field: 'input.properties.prompt.type' });
    expect(typo!.message).toMatch(/must be one of .*"string"/);
    expect(recordProblem(record({ input: input({ type: 'string' }, { required: 'prompt' }), map: { prompt: 'prompt' } }))).toMatchObject({ field: 'input.required', message: expect.stringMatching(/must be array/) });
    expect(recordProblem(record({ input: input({ type: 'string', minLength: 'one' }), map: { prompt: 'prompt' } }))).toMatchObject({ field: 'input.properties.prompt.minLength', message: expect.stringMatching(/must be integer/) });
    expect(recordProblem(record({ edits_input: input({ type: 'file' }) }))).toMatchObject({ field: 'edits_input.properties.prompt.type' });
  });

  it('holds a schema to the draft its $schema names, and compiles it with that draft', () => {
    // draft-07's `items` may be a list; 2020-12 (the default) has `prefixItems` for that and refuses it.
    const tuple = { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] };
    expect(recordProblem(record({ input: input(tuple), map: { prompt: 'prompt' } }))).toMatchObject({ field: 'input.properties.prompt.items' });
    const draft07 = input(tuple, { $schema: 'http://json-schema.org/draft-07/schema#' });
    expect(recordProblem(record({ input: draft07, map: { prompt: 'prompt' } }))).toBeNull();
    expect(compileRecordSchema(draft07)({ prompt: ['a', 'b'] })).toBe(false);
    expect(compileRecordSchema(draft07)({ prompt: ['a', 2] })).toBe(true);
    // draft-07's exclusiveMinimum is a number, as in 2019-09 (draft-04's boolean is refused).
    const bool = input({ type: 'number', exclusiveMinimum: true }, { $schema: 'https://json-schema.org/draft/2019-09/schema' });
    expect(recordProblem(record({ input: bool, map: { prompt: 'prompt' } }))).toMatchObject({ field: 'input.properties.prompt.exclusiveMinimum', message: expect.stringMatching(/2019-09/) });
    const draft04 = input({ type: 'string' }, { $schema: 'http://json-schema.org/draft-04/schema#' });
    expect(recordProblem(record({ input: draft04, map: { prompt: 'prompt' } }))).toMatchObject({ field: 'input.$schema', message: expect.stringMatching(/does not compile/) });
  });

  it('refuses a map or set naming a field the input does not declare', () => {
    const map = recordProblem(record({ map: { prompt: 'text' } }));
    expect(map).toMatchObject({ field: 'map.prompt' });
    expect(map!.message).toMatch(/'text'.*does not declare \(its fields: prompt, size\)/);
    expect(recordProblem(record({ map: { width: 'size.height' } }))).toMatchObject({ field: 'map.width' });
    expect(recordProblem(record({ map: { seed: { to: 'seed', in: 'query' } } }))).toMatchObject({ field: 'map.seed', message: expect.stringMatching(/path_and_query/) });
    expect(recordProblem(record({ map: { seed: { to: 'seed', in: 'query' } }, path_and_query: { type: 'object', properties: { seed: { type: 'integer' } } } }))).toBeNull();
    expect(recordProblem(record({ set: { safety: false } }))).toMatchObject({ field: 'set.safety' });
  });

  it('bounds how deep a schema may nest, by a walk that does not recurse', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < MAX_SCHEMA_DEPTH * 100; i++) deep = { type: 'object', properties: { x: deep } };
    expect(recordProblem(record({ input: input(deep), map: { prompt: 'prompt' } }))).toMatchObject({ field: 'input', message: expect.stringMatching(/nests deeper than/) });
  });
});
