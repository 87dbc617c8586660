import { Type } from '@sinclair/typebox';
import { ROLES, SCOPES } from '../../domain/access.js';
import { createApiKey, getApiKey, listApiKeys, revokeApiKey, updateApiKey } from '../../domain/api-keys.js';
import { requestOrigin } from '../audit-origin.js';
import { defineRoute } from '../route.js';
import { Budget, BudgetAction, Deleted, IdParams, ListOf, Nullable, PageQuery, SpentUsd, Timestamp } from '../schemas.js';

const ScopeList = Type.Array(Type.String({ enum: [...SCOPES] }), { maxItems: SCOPES.length * 2, description: 'Empty: every operation the role allows.' });
const Allowlist = Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100, description: 'IPv4/IPv6 CIDR ranges (Enterprise).' });

const apiKeyFields = {
  id: Type.String({ description: 'key_…' }),
  object: Type.Literal('api_key'),
  name: Type.String(),
  mode: Type.String({ enum: ['live', 'test'] }),
  role: Type.String({ enum: [...ROLES] }),
  effective_role: Type.String({ enum: [...ROLES], description: "What the key may do now: the lesser of `role` and the role of the member it belongs to (lowering a member's role lowers their keys')." }),
  scopes: Type.Array(Type.String()),
  ipAllowlist: Type.Array(Type.String()),
  monthly_budget_usd: Nullable(Type.Number()),
  budget_action: Type.String({ enum: ['notify', 'block'] }),
  spent_usd: SpentUsd,
  prefix: Type.String({ description: 'The first characters of the secret, to recognize it.' }),
  created_at: Timestamp,
  last_used_at: Nullable(Timestamp),
};
export const ApiKey = Type.Object(apiKeyFields, { title: 'ApiKey' });
const CreatedApiKey = Type.Object(
  { ...apiKeyFields, key: Type.String({ description: 'The secret. Returned only here; store it now.' }) },
  { title: 'CreatedApiKey' },
);

const auth = { role: 'admin', scope: 'api_keys:manage' } as const;
/** A signed-in developer makes and revokes their own keys (never above their role); a developer key manages none. */
const memberAuth = { ...auth, sessionRole: 'developer' } as const;
const readAuth = { role: 'viewer', scope: 'api_keys:manage' } as const;

export const createKey = defineRoute({
  method: 'POST',
  path: '/v1/api-keys',
  operationId: 'createApiKey',
  summary: 'Create an API key',
  description: 'The key inherits the role of the calling key unless a narrower `role` is given; it can never be broader than the caller.',
  tag: 'API keys',
  auth: memberAuth,
  schema: {
    body: Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: 200 }),
        mode: Type.Optional(Type.String({ enum: ['live', 'test'] })),
        role: Type.Optional(Type.String({ enum: [...ROLES] })),
        scopes: Type.Optional(ScopeList),
        ipAllowlist: Type.Optional(Allowlist),
        monthly_budget_usd: Type.Optional(Budget),
        budget_action: Type.Optional(BudgetAction),
      },
      { additionalProperties: false },
    ),
    response: { 201: CreatedApiKey },
  },
  handler: async ({ principal, body, deps, request }) => ({
    status: 201,
    body: await createApiKey(deps.db, principal, body as Parameters<typeof createApiKey>[2], requestOrigin(principal, request)),
  }),
});

export const listKeys = defineRoute({
  method: 'GET',
  path: '/v1/api-keys',
  operationId: 'listApiKeys',
  summary: "List the organization's API keys of the caller's mode",
  description:
    'A live key lists live keys, a test key test keys. Paged with `limit` and `starting_after`; secrets are never listed.',
  tag: 'API keys',
  auth: readAuth,
  schema: {
    querystring: Type.Object(PageQuery, { additionalProperties: false }),
    response: { 200: ListOf(ApiKey) },
  },
  handler: async ({ principal, query, deps }) => ({
    status: 200,
    body: await listApiKeys(deps.db, principal, { limit: query.limit ?? 20, startingAfter: query.starting_after }),
  }),
});

export const getCurrentKey = defineRoute({
  method: 'GET',
  path: '/v1/api-keys/current',
  operationId: 'getCurrentApiKey',
  summary: 'The calling key itself: its name, mode, role, scopes and limits',
  description:
    'Any key may read its own record (no scope needed), so that a client such as the dashboard can tell in advance which operations the key may call: compare its role and scopes with `x-mmgen-role` and `x-mmgen-scope` of each operation in this document.',
  tag: 'API keys',
  auth: { role: 'viewer' },
  schema: { response: { 200: ApiKey } },
  handler: async ({ principal, deps }) => ({ status: 200, body: await getApiKey(deps.db, principal, principal.keyId) }),
});

export const getKey = defineRoute({
  method: 'GET',
  path: '/v1/api-keys/{id}',
  operationId: 'getApiKey',
  summary: 'Get an API key (never its secret)',
  description:
    'The key\'s name, mode, role, scopes, IP allowlist, monthly budget and when it was last used. Only the key\'s creation answer carries its secret.',
  tag: 'API keys',
  auth: readAuth,
  schema: { params: IdParams, response: { 200: ApiKey } },
  handler: async ({ principal, params, deps }) => ({ status: 200, body: await getApiKey(deps.db, principal, params.id) }),
});

export const updateKey = defineRoute({
  method: 'PATCH',
  path: '/v1/api-keys/{id}',
  operationId: 'updateApiKey',
  summary: "Update a key's name, scopes, IP allowlist or monthly budget and its action",
  description:
    'Fields left out keep their value. A change takes effect on the next request, on every node; a key cannot be given more than the caller has.',
  tag: 'API keys',
  auth,
  schema: {
    params: IdParams,
    body: Type.Object(
      {
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        scopes: Type.Optional(ScopeList),
        ipAllowlist: Type.Optional(Allowlist),
        monthly_budget_usd: Type.Optional(Budget),
        budget_action: Type.Optional(BudgetAction),
      },
      { additionalProperties: false },
    ),
    response: { 200: ApiKey },
  },
  handler: async ({ principal, params, body, deps, request }) => ({
    status: 200,
    body: await updateApiKey(deps.db, principal, params.id, body as Parameters<typeof updateApiKey>[3], requestOrigin(principal, request)),
  }),
});

export const deleteKey = defineRoute({
  method: 'DELETE',
  path: '/v1/api-keys/{id}',
  operationId: 'deleteApiKey',
  summary: 'Revoke an API key, effective on the next request',
  description:
    'The key answers 401 from its next request on, on every node. Its generations, usage and ledger entries stay.',
  tag: 'API keys',
  auth: memberAuth,
  schema: { params: IdParams, response: { 200: Deleted('api_key') } },
  handler: async ({ principal, params, deps, request }) => ({ status: 200, body: await revokeApiKey(deps.db, principal, params.id, requestOrigin(principal, request)) }),
});
