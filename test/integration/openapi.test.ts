import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_TABLE } from '../../src/errors.js';
import { MODALITIES, type Modality } from '../../src/catalog/index.js';
import { MODALITY_RULES } from '../../src/generations/modalities.js';
import { client, startTestServer, type TestServer } from '../helpers/server.js';

describe('GET /v1/openapi.json', () => {
  let s: TestServer;
  let doc: any;

  beforeAll(async () => {
    s = await startTestServer('pglite');
    const res = await client(s.url)('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
  });
  afterAll(async () => s?.close());

  it('is a valid OpenAPI 3.1 document, version 1.1.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(doc.info.version).toBe('1.1.1');
  });

  it('documents every route the server serves, with bearer auth and error responses', () => {
    const ops = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method, op })),
    );
    const names = ops.map((o) => `${o.method.toUpperCase()} ${o.path}`);
    for (const expected of ['GET /v1/models', 'GET /v1/models/{id}', 'GET /v1/organization', 'GET /v1/wallet', 'POST /v1/api-keys', 'GET /v1/api-keys', 'PATCH /v1/api-keys/{id}', 'DELETE /v1/api-keys/{id}']) {
      expect(names).toContain(expected);
    }
    const create = doc.paths['/v1/api-keys'].post;
    expect(create.security).toEqual([{ bearerAuth: [] }, { apiKeyAuth: [] }, { sessionCookie: [] }]);
    expect(doc.components.securitySchemes.sessionCookie).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'mmgen_session' });
    expect(doc.components.securitySchemes.apiKeyAuth).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    expect(create.responses['201'].content['application/json'].schema.properties.key).toBeDefined();
    expect(create.responses['401'].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
    expect(create.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
    expect(doc.paths['/v1/openapi.json'].get.security).toEqual([]);
    const messages = doc.paths['/v1/messages'].post;
    expect(messages).toMatchObject({ tags: ['Compatible'], 'x-mmgen-compatible': { api: 'anthropic', reference: 'https://docs.anthropic.com/en/api/messages' } });
    expect(messages.requestBody.content['application/json'].schema.required).toEqual(expect.arrayContaining(['model', 'max_tokens', 'messages']));
    // Every compatible path (contract §12) is marked with the API whose shape it serves, and only those.
    const compatible = ops.filter((o) => o.op['x-mmgen-compatible']).map((o) => `${o.method.toUpperCase()} ${o.path} ${o.op['x-mmgen-compatible'].api}`);
    expect(compatible.sort()).toEqual([
      'POST /v1/audio/speech openai', 'POST /v1/chat/completions openai', 'POST /v1/images/edits openai', 'POST /v1/images/generations openai', 'POST /v1/messages anthropic', 'POST /v1/responses openai',
    ]);
    for (const o of ops) expect(o.op.tags.includes('Compatible'), `${o.method} ${o.path}`).toBe(Boolean(o.op['x-mmgen-compatible']));
    expect(doc.components.schemas.Error.properties.error.properties.code.enum).toEqual(Object.keys(ERROR_TABLE));
  });

  it("marks each modality's endpoint with x-mmgen-modality, from its declaration, and only those", () => {
    const marked = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
      Object.values(methods).filter((op) => op['x-mmgen-modality']).map((op) => ({ path, ext: op['x-mmgen-modality'] })),
    );
    expect(marked.map((m) => m.ext.modality).sort()).toEqual([...MODALITIES].sort());
    for (const { path, ext } of marked) {
      const rules = MODALITY_RULES[ext.modality as Modality];
      expect(ext, path).toEqual({ modality: ext.modality, sync: rules.sync, prompt_field: rules.request.prompt?.field ?? null, image: rules.request.image ?? 'none' });
      // A synchronous endpoint answers 200 with the finished generation, the others 202.
      expect(Object.keys(doc.paths[path].post.responses), path).toContain(ext.sync ? '200' : '202');
    }
    expect(doc.paths['/v1/images'].post['x-mmgen-modality']).toEqual({ modality: 'image', sync: true, prompt_field: 'prompt', image: 'optional' });
    expect(doc.paths['/v1/upscale'].post['x-mmgen-modality']).toEqual({ modality: 'upscale', sync: false, prompt_field: null, image: 'required' });
  });

  it('documents POST /v1/quotes and the plan limits of the organization', () => {
    const quote = doc.paths['/v1/quotes'].post;
    expect(quote).toMatchObject({ operationId: 'createQuote', 'x-mmgen-role': 'developer' });
    expect(quote['x-mmgen-consumes-credits']).toBeUndefined();
    expect(Object.keys(quote.responses['200'].content['application/json'].schema.properties).sort()).toEqual(['credits', 'modality', 'model', 'object']);
    const org = doc.paths['/v1/organization'].get.responses['200'].content['application/json'].schema;
    expect(org.properties.limits.properties.models_per_comparison).toMatchObject({ type: 'integer' });
  });
});
