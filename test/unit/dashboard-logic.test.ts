import { describe, expect, it } from 'vitest';
import { MODALITIES } from '../../src/catalog/index.js';
import { MODALITY_RULES } from '../../src/generations/modalities.js';
import { buildOpenApi } from '../../src/http/openapi.js';
import { MODALITY_ROUTES } from '../../src/http/routes/generation-route.js';
import { makeAjv, paramPath } from '../../src/validation.js';
import { allRoutes } from '../../src/http/routes/index.js';
import { readSse } from '../../web/src/api/sse.js';
import { permission, ApiSpec, type Caller, type OpenApiDoc } from '../../web/src/api/spec.js';
import type { ApiKey } from '../../web/src/api/types.js';
import { toCsv } from '../../web/src/lib/csv.js';
import { MODALITY_INFO } from '../../web/src/lib/modalities.js';
import { validate, type JsonSchema } from '../../web/src/lib/schema.js';
import type { ErrorObject } from 'ajv';

/**
 * The dashboard repeats a few rules of the API in the browser (request
 * validation, permissions). These tests hold the copies to the originals, so
 * they cannot drift apart silently. What a request reserves it does not
 * repeat: it shows the server's quote (test/e2e/dashboard.test.ts holds the
 * page to it, test/integration/quotes.test.ts the quote to the reservation).
 */

const routes = allRoutes();
const bodySchema = (method: string, path: string): JsonSchema => {
  const def = routes.find((r) => r.method === method && r.path === path);
  if (!def?.schema.body) throw new Error(`no body schema for ${method} ${path}`);
  return JSON.parse(JSON.stringify(def.schema.body)) as JsonSchema;
};

/** The params the API's own validator (ajv, as configured in src/http/app.ts) flags in a body. */
function apiFlags(schema: JsonSchema, body: unknown): string[] {
  const check = makeAjv(false).compile(schema);
  if (check(structuredClone(body))) return [];
  return [
    ...new Set(
      (check.errors as ErrorObject[]).map((e) => {
        if (e.keyword === 'required') return paramPath(e.instancePath, (e.params as { missingProperty: string }).missingProperty);
        if (e.keyword === 'additionalProperties') return paramPath(e.instancePath, (e.params as { additionalProperty: string }).additionalProperty);
        return paramPath(e.instancePath) || '(body)';
      }),
    ),
  ].sort();
}

const dashboardFlags = (schema: JsonSchema, body: unknown) => Object.keys(validate(schema, body)).sort();

describe('dashboard form checks agree with the API validator', () => {
  const long = (n: number) => 'x'.repeat(n);
  const cases: [string, string, unknown][] = [
    ['POST', '/v1/images', {}],
    ['POST', '/v1/images', { model: 'flux-schnell', prompt: '' }],
    ['POST', '/v1/images', { model: 'flux-schnell', prompt: 'p', width: 300, height: 4096 }],
    ['POST', '/v1/images', { model: 'flux-schnell', prompt: 'p', width: '512', num_outputs: 1.5, seed: -1 }],
    ['POST', '/v1/images', { model: 'flux-schnell', prompt: 'p', nmae: 'typo', negative_prompt: long(4001) }],
    ['POST', '/v1/images', { model: 'flux-schnell', prompt: 'p', image_url: 'not a url', simulate: { outcome: 'weird', delay_ms: -5 } }],
    ['POST', '/v1/images', { model: 'flux-schnell', prompt: 'p', width: 1024, height: 512, num_outputs: 4, seed: 42, simulate: { delay_ms: 10 } }],
    ['POST', '/v1/videos', { model: 'kling-v2.1-master', prompt: 'p', duration_s: 21, aspect_ratio: '2:1' }],
    ['POST', '/v1/voice', { model: 'eleven-multilingual-v2', text: long(5001), speed: 0.2 }],
    ['POST', '/v1/voice', { model: 'eleven-multilingual-v2', text: 'hello', speed: 2 }],
    ['POST', '/v1/music', { model: 'm', prompt: 'p', duration_s: 4, with_vocals: 'yes' }],
    ['POST', '/v1/chat', { model: 'gpt-4o-mini', messages: [] }],
    ['POST', '/v1/chat', { model: 'gpt-4o-mini', messages: [{ role: 'robot', content: 'a' }, { role: 'user' }], temperature: 3, max_tokens: 0 }],
    ['POST', '/v1/upscale', { model: 'u', scale: 3, face_restore: 1 }],
    ['POST', '/v1/three-d', { model: 't', format: 'obj' }],
    ['POST', '/v1/comparisons', { models: ['a'], prompt: '' }],
    ['POST', '/v1/comparisons', { models: ['a', 'a'], prompt: 'p', params: { width: 256 } }],
    ['POST', '/v1/webhooks', { url: '', events: [] }],
    ['POST', '/v1/webhooks', { url: 'https://example.com/h', events: ['nope', '*'] }],
    ['POST', '/v1/api-keys', { name: '', role: 'god', scopes: ['bad'], monthly_budget_usd: 0.001 }],
    ['POST', '/v1/api-keys', { name: 'ci', scopes: ['usage:read'], ipAllowlist: ['10.0.0.0/8'], monthly_budget_usd: 10.25 }],
    ['PATCH', '/v1/api-keys/{id}', { monthly_budget_usd: -1, name: long(201) }],
  ];
  for (const [method, path, body] of cases) {
    it(`${method} ${path} ${JSON.stringify(body).slice(0, 90)}`, () => {
      const schema = bodySchema(method, path);
      expect(dashboardFlags(schema, body)).toEqual(apiFlags(schema, body));
    });
  }

  it('words its messages as the API does', () => {
    const schema = bodySchema('POST', '/v1/images');
    const found = validate(schema, { model: 'm', prompt: 'p', width: 300, num_outputs: 9, nmae: 1 });
    expect(found).toEqual({ width: 'must be multiple of 8', num_outputs: 'must be <= 4', nmae: 'is not a known parameter' });
  });

  it("tells a value of a nullable field what its own type's branch wants, and accepts null", () => {
    const schema = bodySchema('PATCH', '/v1/organization/data-policy');
    expect(validate(schema, { generation_days: 0 })).toEqual({ generation_days: 'must be >= 1' });
    expect(validate(schema, { generation_days: null, file_days: 7 })).toEqual({});
    expect(validate(schema, { file_days: 'soon' })).toEqual({ file_days: 'is invalid' });
  });
});

describe("each modality's endpoint, from the OpenAPI document", () => {
  // The document as served: buildOpenApi over the routes, as GET /v1/openapi.json answers it.
  const doc = buildOpenApi(routes, 'http://localhost') as unknown as OpenApiDoc;
  const spec = new ApiSpec(doc);
  it('is what the server declares for it: path, sync, prompt field and image rule (the dashboard keeps no copy)', () => {
    for (const modality of MODALITIES) {
      const rules = MODALITY_RULES[modality];
      const route = MODALITY_ROUTES[modality];
      expect(spec.modality(modality), modality).toEqual({
        modality,
        path: route.path,
        operationId: route.operationId,
        sync: rules.sync,
        promptField: rules.request.prompt?.field ?? null,
        image: rules.request.image ?? 'none',
        requestSchema: JSON.parse(JSON.stringify(rules.request.schema)),
      });
    }
  });
  it('leaves the dashboard only presentation per modality: a label and a colour', () => {
    for (const info of MODALITY_INFO) expect(Object.keys(info).sort()).toEqual(['color', 'id', 'label']);
    expect(MODALITY_INFO.map((m) => m.id).sort()).toEqual([...MODALITIES].sort());
  });
});

describe('permissions from the OpenAPI document', () => {
  const spec = new ApiSpec({
    info: { version: '1' },
    paths: {
      '/v1/images': { post: { operationId: 'createImage', 'x-mmgen-role': 'developer', 'x-mmgen-scope': 'images:write', 'x-mmgen-consumes-credits': true } },
      '/v1/models': { get: { operationId: 'listModels', 'x-mmgen-role': 'viewer' } },
      '/v1/api-keys': { post: { operationId: 'createApiKey', 'x-mmgen-role': 'admin', 'x-mmgen-scope': 'api_keys:manage', 'x-mmgen-session-role': 'developer' } },
      '/v1/session': {
        get: { operationId: 'getSession', 'x-mmgen-role': 'viewer', 'x-mmgen-session-only': true, 'x-mmgen-key-session': true },
        patch: { operationId: 'switchSession', 'x-mmgen-role': 'viewer', 'x-mmgen-session-only': true },
      },
      '/v1/sessions': { get: { operationId: 'listSessions', 'x-mmgen-role': 'viewer', 'x-mmgen-session-only': true, 'x-mmgen-key-session': true } },
      '/v1/passkeys': { get: { operationId: 'listPasskeys', 'x-mmgen-role': 'viewer', 'x-mmgen-session-only': true } },
      '/v1/invitations': { post: { operationId: 'createInvitation', 'x-mmgen-role': 'admin', 'x-mmgen-scope': 'members:manage', 'x-mmgen-mode': 'live' } },
    },
  } as OpenApiDoc);
  const key = (role: ApiKey['role'], scopes: string[]): Caller => ({ kind: 'key', id: 'key_1', name: 'k', mode: 'test', role, scopes });
  const person = (role: ApiKey['role']): Caller => ({ kind: 'session', id: 'ses_1', name: 'a@b.test', mode: 'live', role, scopes: [] });
  it("a signed-in person has the member's role, and a session's own role where the server declares one", () => {
    expect(permission(spec.op('createApiKey'), person('developer'), false)).toEqual({ ok: true });
    expect(permission(spec.op('createApiKey'), key('developer', []), false).reason).toBe('Needs the admin role; this key is a developer.');
    expect(permission(spec.op('createApiKey'), person('viewer'), false).reason).toBe('Needs the developer role; you are a viewer.');
    expect(permission(spec.op('createImage'), person('viewer'), false).ok).toBe(false);
    expect(permission(spec.op('getSession'), person('viewer'), false)).toEqual({ ok: true });
    expect(permission(spec.op('getSession'), key('owner', []), false).ok).toBe(false);
    // A key's dashboard session (POST /v1/session/key) may read its own session and list, never a person's operations, nor a person's sessionRole.
    const viaSession = { ...key('developer', []), viaSession: true };
    expect(permission(spec.op('getSession'), viaSession, false)).toEqual({ ok: true });
    expect(permission(spec.op('listSessions'), viaSession, false)).toEqual({ ok: true });
    expect(permission(spec.op('switchSession'), viaSession, false).ok).toBe(false);
    expect(permission(spec.op('listPasskeys'), viaSession, false).ok).toBe(false);
    expect(permission(spec.op('createApiKey'), viaSession, false).reason).toBe('Needs the admin role; this key is a developer.');
  });
  it('checks role, then scope, then a paused organization', () => {
    expect(permission(spec.op('createImage'), key('owner', []), false)).toEqual({ ok: true });
    expect(permission(spec.op('createImage'), key('viewer', []), false).reason).toBe('Needs the developer role; this key is a viewer.');
    expect(permission(spec.op('createImage'), key('admin', ['usage:read']), false).reason).toBe('Needs the images:write scope, which this key lacks.');
    expect(permission(spec.op('createImage'), key('admin', ['images:write']), true).reason).toMatch(/paused/);
    expect(permission(spec.op('listModels'), key('viewer', ['usage:read']), true)).toEqual({ ok: true });
    expect(permission(spec.op('nope'), key('owner', []), false).ok).toBe(false);
  });
  it('an operation that changes the organization (x-mmgen-mode: live) is for a live-mode caller only, after role and scope', () => {
    expect(permission(spec.op('createInvitation'), person('admin'), false)).toEqual({ ok: true });
    expect(permission(spec.op('createInvitation'), { ...person('admin'), mode: 'test' }, false).reason).toBe('Changes the organization: switch to live mode.');
    expect(permission(spec.op('createInvitation'), key('owner', []), false).reason).toBe('Changes the organization: only a live key may; this is a test key.');
    expect(permission(spec.op('createInvitation'), { ...key('owner', []), mode: 'live' }, false)).toEqual({ ok: true });
    expect(permission(spec.op('createInvitation'), key('developer', []), false).reason).toBe('Needs the admin role; this key is a developer.');
  });
});

describe('reading a text/event-stream', () => {
  it('splits events across chunk boundaries, CRLF or LF, and skips comments', async () => {
    const text = ': ping\r\nid: 1\r\nevent: generation\r\ndata: {"a":\r\ndata: 1}\r\n\r\n: ping\n\nid: 2\nevent: progress\ndata: 50\n\n';
    const bytes = new TextEncoder().encode(text);
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < bytes.length; i += 7) c.enqueue(bytes.slice(i, i + 7));
        c.close();
      },
    });
    const events = [];
    for await (const ev of readSse(stream)) events.push(ev);
    expect(events).toEqual([
      { id: '1', event: 'generation', data: '{"a":\n1}' },
      { id: '2', event: 'progress', data: '50' },
    ]);
  });
});

describe('CSV export', () => {
  it('quotes what needs quoting and defuses spreadsheet formulas', () => {
    expect(toCsv([['key', 'n'], ['a,b', 1], ['say "hi"', 2], ['=HYPERLINK("x")', -3]])).toBe(
      'key,n\r\n"a,b",1\r\n"say ""hi""",2\r\n"\'=HYPERLINK(""x"")",-3\r\n',
    );
  });
});
