import type { TSchema } from '@sinclair/typebox';
import { ERROR_TABLE, type ErrorCode } from '../errors.js';
import { JSON_BODY_DESCRIPTION } from '../json-shape.js';
import { tagsOf } from './openapi-tags.js';
import type { RouteDef } from './route.js';
import { ErrorEnvelope } from './schemas.js';

export const API_VERSION = '1.1.1';

/** The project's licence, as package.json declares it (test/integration/openapi-lint.test.ts holds the two together). */
export const LICENSE = { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' } as const;

/** /v1/api-keys/{id} → /v1/api-keys/:id */
export function toFastifyPath(path: string): string {
  return path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
}

/** TypeBox schemas carry symbol keys; JSON round-tripping leaves plain JSON Schema. */
function plain(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request', 401: 'Authentication failed', 402: 'Insufficient credits or budget exceeded', 403: 'Forbidden',
  404: 'Not found', 409: 'Conflict', 410: 'Gone', 413: 'Payload too large', 415: 'Unsupported media type',
  422: 'Idempotency key reused', 429: 'Rate limited', 451: 'Blocked by moderation', 500: 'Internal error', 502: 'Upstream error', 503: 'Unavailable',
};

function codesFor(status: number): ErrorCode[] {
  return (Object.keys(ERROR_TABLE) as ErrorCode[]).filter((c) => ERROR_TABLE[c].status === status);
}

function errorStatuses(def: RouteDef): number[] {
  // 400 everywhere: any request can be malformed HTTP, carry an unknown query parameter or an undecodable URL.
  const set = new Set<number>([400, 500, ...(def.errors ?? [])]);
  if (def.auth) [401, 403, 429].forEach((s) => set.add(s));
  // Any method that may carry a body can be sent one too large or of the wrong type, declared or not.
  if (def.method !== 'GET') [413, 415].forEach((s) => set.add(s));
  const query = def.schema.querystring as { properties?: Record<string, unknown> } | undefined;
  if (def.schema.params || query?.properties?.starting_after) set.add(404);
  // Idempotency-Key: 409 while the first request runs, 422 for a reuse with another request.
  if (def.method === 'POST' && def.auth?.consumesCredits) [409, 422].forEach((s) => set.add(s));
  return [...set].sort((a, b) => a - b);
}

function parametersOf(schema: TSchema | undefined, where: 'path' | 'query'): unknown[] {
  if (!schema) return [];
  const s = plain(schema) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return Object.entries(s.properties ?? {}).map(([name, prop]) => {
    const { description, ...rest } = prop;
    return {
      name,
      in: where,
      required: where === 'path' || (s.required ?? []).includes(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

/** Either header carries the key (alternatives, as OpenAPI lists them). */
const KEY_SCHEMES = [{ bearerAuth: [] }, { apiKeyAuth: [] }];
/** The dashboard's session cookie opens the same operations as a key (with the CSRF header on state-changing ones). */
const AUTH_SCHEMES = [...KEY_SCHEMES, { sessionCookie: [] }];

export function buildOpenApi(routes: readonly RouteDef[], serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const def of routes) {
    const responses: Record<string, unknown> = {};
    for (const [status, schema] of Object.entries(def.schema.response)) {
      const isJson = !(schema as { 'x-raw'?: boolean })['x-raw'];
      responses[status] = {
        description: (schema as { description?: string }).description ?? 'Success',
        ...(isJson ? { content: { 'application/json': { schema: plain(schema) } } } : {}),
      };
    }
    for (const status of errorStatuses(def)) {
      responses[String(status)] = {
        description: `${STATUS_TEXT[status] ?? 'Error'}: ${codesFor(status).join(', ')}`,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    }
    const op: Record<string, unknown> = {
      operationId: def.operationId,
      summary: def.summary,
      description: def.description,
      tags: [def.tag],
      security: def.auth ? (def.auth.sessionOnly ? [{ sessionCookie: [] }] : AUTH_SCHEMES) : [],
      parameters: [...parametersOf(def.schema.params, 'path'), ...parametersOf(def.schema.querystring, 'query')],
      responses,
    };
    if (def.auth) {
      op['x-mmgen-role'] = def.auth.role;
      if (def.auth.scope) op['x-mmgen-scope'] = def.auth.scope;
      if (def.auth.sessionOnly) op['x-mmgen-session-only'] = true;
      // A dashboard session opened with an API key (POST /v1/session/key) may call this session-only operation too.
      if (def.auth.sessionOnly && def.auth.keySession) op['x-mmgen-key-session'] = true;
      if (def.auth.sessionRole) op['x-mmgen-session-role'] = def.auth.sessionRole;
      // Refused with 403 organization_paused while the anomaly detector has paused the organization.
      if (def.auth.consumesCredits) op['x-mmgen-consumes-credits'] = true;
      // Refused with 403 live_mode_required to a test-mode key or session.
      if (def.auth.mode) op['x-mmgen-mode'] = def.auth.mode;
    }
    // Same generation, another API's shape: named so that generated clients and readers can tell the two apart.
    if (def.compatible) op['x-mmgen-compatible'] = def.compatible;
    Object.assign(op, def.extensions);
    if (def.schema.body) {
      op.requestBody = { required: true, description: JSON_BODY_DESCRIPTION, content: { 'application/json': { schema: plain(def.schema.body) } } };
    } else if (def.rawBody) {
      op.requestBody = {
        required: true,
        content: Object.fromEntries(
          def.rawBody.contentTypes.map((t) => [t, { schema: def.rawBody!.schema ? plain(def.rawBody!.schema) : { type: 'string', contentEncoding: 'binary' } }]),
        ),
      };
    }
    (paths[def.path] ??= {})[def.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'mmgen API',
      version: API_VERSION,
      description: 'One API key and one credit wallet in front of image, video, voice, music, avatar, chat, 3D and upscale models.',
      // Self-hosted: whoever runs this deployment answers for it, at the address it is served from.
      contact: { name: 'The operator of this mmgen deployment', url: serverUrl },
      license: LICENSE,
    },
    servers: [{ url: serverUrl }],
    security: KEY_SCHEMES,
    tags: tagsOf(routes.map((r) => r.tag)),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: sk_live_… or sk_test_…' },
        apiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-api-key', description: "The same key as Anthropic's SDKs send it. With Authorization too, both must name the same key." },
        sessionCookie: {
          type: 'apiKey', in: 'cookie', name: 'mmgen_session',
          description: 'A dashboard session: a signed-in person\'s (POST /v1/session), or one opened with an API key (POST /v1/session/key), which acts exactly as that key. Named __Host-mmgen_session when the deployment is served over https. A request that changes something also sends the session\'s CSRF token in X-CSRF-Token. Used only when no API key is sent.',
        },
      },
      schemas: { Error: plain(ErrorEnvelope) },
    },
  };
}
