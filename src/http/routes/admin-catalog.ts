import { Type, type TSchema } from '@sinclair/typebox';
import { ModelDefinition } from '../../catalog/index.js';
import {
  AddModelBody,
  addModel,
  describeCatalog,
  EditModelBody,
  editModel,
  MarginBody,
  ModelAccessBody,
  modelAccessOf,
  readAudit,
  setGlobalMargin,
  setModelAccess,
} from '../../domain/catalog-admin.js';
import { ImportModelBody, importModel } from '../../domain/catalog-import.js';
import { SyncBody, syncPorts, syncRunningCatalog } from '../../domain/catalog-sync.js';
import { getOrganization } from '../../domain/organizations.js';
import { publishedSchemas } from '../../providers/schema-import.js';
import { buildOpenApi } from '../openapi.js';
import { operatorActor, requireOperator } from '../operator-auth.js';
import { defineRoute, type RouteDef, type RouteSchema } from '../route.js';
import { Nullable } from '../schemas.js';

/**
 * The admin API (`/v1/admin/…`): the catalog as the instance operator changes it at run time (issue 28). Opened by
 * the operator's credential only (operator-auth.ts), never by an organization's key; documented in a document of
 * its own, /v1/admin/openapi.json, so that the organizations' API, its SDK and its clients stay as they are.
 */
const TAG = 'Admin';
const OPERATOR_ERRORS = [400, 401, 403, 404, 429];

const Decimal = Nullable(Type.String({ description: 'A decimal string.' }));

const AdminModel = Type.Object(
  {
    slug: Type.String(),
    source: Type.String({ enum: ['shipped', 'override', 'added'] }),
    facts: Type.Record(Type.String(), Type.String({ enum: ['shipped', 'operator'] }), {
      description: "Each field of the definition: as shipped in the repository, or the operator's.",
    }),
    definition: ModelDefinition,
    status: Type.String({ enum: ['active', 'delisted'] }),
    disabled: Type.Boolean(),
    margin_percent: Decimal,
    effective_margin_percent: Decimal,
  },
  { title: 'AdminModel' },
);

const ModelAccess = Type.Object({
  organization_id: Type.String(),
  mode: Type.String({ enum: ['all', 'allow', 'deny'] }),
  models: Type.Array(Type.String()),
});

const AuditEntry = Type.Object({
  id: Type.Integer(),
  at: Type.String({ format: 'date-time' }),
  actor: Type.String(),
  action: Type.String({ description: 'model.add, model.edit, record.put, record.sync, margin.set, access.set' }),
  target: Type.String({ description: 'A model slug, `provider:upstream` for a record, an organization id, or `*` for the global margin.' }),
  before: Type.Unknown(),
  after: Type.Unknown(),
});

const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });
const OrgParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });

/** An admin route: no API key, the operator's credential instead. */
function adminRoute<S extends RouteSchema>(def: Omit<RouteDef<S>, 'auth' | 'tag' | 'gate' | 'errors'>, moreErrors: number[] = []): RouteDef<S> {
  return defineRoute({ ...def, tag: TAG, auth: null, gate: requireOperator, errors: [...OPERATOR_ERRORS, ...moreErrors] });
}

export const adminListModels = adminRoute({
  method: 'GET',
  path: '/v1/admin/models',
  operationId: 'adminListModels',
  summary: 'The effective catalog, with where each fact comes from',
  description: 'Every model (disabled and delisted ones too): the shipped catalog with the operator\'s changes laid over it, the global margin, and the overlay version every node follows.',
  schema: {
    response: { 200: Type.Object({ object: Type.Literal('list'), version: Type.Integer(), margin_percent: Decimal, data: Type.Array(AdminModel) }) },
  },
  handler: async ({ deps }) => ({ status: 200, body: { object: 'list', ...describeCatalog(deps) } }),
});

export const adminAddModel = adminRoute({
  method: 'POST',
  path: '/v1/admin/models',
  operationId: 'adminAddModel',
  summary: 'Add a model on a registered provider',
  description:
    "A model from its upstream id: its definition, and the upstream record of each route mmgen has none of (its documented input schema, how mmgen's fields map to it, its lifecycle and price; docs/upstream-models.md). Served by every node within seconds.",
  schema: { body: AddModelBody, response: { 201: AdminModel } },
  handler: async ({ deps, body, request }) => ({ status: 201, body: await addModel(deps, operatorActor(request), body) }),
});

export const adminImportModel = adminRoute({
  method: 'POST',
  path: '/v1/admin/models/import',
  operationId: 'adminImportModel',
  summary: "Add a model with its input schema imported from its provider",
  description:
    "For a provider that publishes a per-model input schema (Replicate's model versions, fal's endpoints): mmgen reads it with this installation's credentials and records it as the model's `input` (`additionalProperties: false`); the operator gives the definition (name, modality, price) and `record.map`, each of whose upstream fields the schema must have. A model the provider does not have is 400 on `upstream`; a provider that publishes no schema is 400 on `provider` (add such a model with its record, POST /v1/admin/models).",
  schema: { body: ImportModelBody, response: { 201: AdminModel } },
  handler: async ({ deps, body, request }) => ({
    status: 201,
    body: await importModel({ ...deps, schemas: publishedSchemas(deps.config.providers) }, operatorActor(request), body),
  }),
}, [502]);

const SyncFinding = Type.Object(
  {
    id: Type.String({ description: '`<kind>:<provider>:<upstream>`: what `apply` names to take it.' }),
    kind: Type.String({ enum: ['new', 'gone', 'schema', 'deprecation', 'unreachable'] }),
    provider: Type.String(),
    upstream: Type.String(),
    slugs: Type.Array(Type.String(), { description: 'The catalog models routed to it.' }),
    details: Type.Array(Type.String()),
    proposed: Type.Optional(Type.Object({ lifecycle: Type.Optional(Type.Unknown()), input: Type.Optional(Type.Unknown()) }, { description: 'What taking it sets in its record.' })),
    listed: Type.Optional(Type.Unknown()),
    source: Type.Optional(Type.String()),
  },
  { title: 'SyncFinding' },
);

export const adminSyncCatalog = adminRoute({
  method: 'POST',
  path: '/v1/admin/catalog/sync',
  operationId: 'adminSyncCatalog',
  summary: "Compare the catalog with the providers' model lists and schemas; take the approved findings",
  description:
    "What `mmgen catalog sync` does: each configured provider's live model list (OpenAI, Anthropic, ElevenLabs, fal) and published schemas (Replicate, fal) against the records the running catalog serves: new upstream models, models gone upstream, changed schemas, published deprecations. Without `apply` nothing changes. The findings `apply` names are taken into the catalog's data (a record's lifecycle or input; a new model, imported from its provider with the definition `add` gives), audited, and served by every node within seconds.",
  schema: {
    body: SyncBody,
    response: {
      200: Type.Object({
        date: Type.String(),
        providers: Type.Array(Type.Object({ provider: Type.String(), listed: Nullable(Type.Integer()), schemas: Nullable(Type.Integer()), skipped: Type.Optional(Type.String()) })),
        findings: Type.Array(SyncFinding),
        applied: Type.Array(Type.Object({ id: Type.String(), kind: Type.String(), target: Type.String(), changed: Type.Array(Type.String()) })),
        added: Type.Array(AdminModel),
      }),
    },
  },
  handler: async ({ deps, body, request }) => ({ status: 200, body: await syncRunningCatalog(syncPorts(deps), operatorActor(request), body) }),
}, [502]);

export const adminEditModel = adminRoute({
  method: 'PATCH',
  path: '/v1/admin/models/{slug}',
  operationId: 'adminEditModel',
  summary: 'Edit a model: price, name, capabilities, routes, records; disable or enable it; set its margin',
  description: 'Fields not given stay as they are. Editing a shipped model overrides it; edited back to what ships, it follows the repository again.',
  schema: { params: SlugParams, body: EditModelBody, response: { 200: AdminModel } },
  handler: async ({ deps, params, body, request }) => ({ status: 200, body: await editModel(deps, operatorActor(request), params.slug, body) }),
});

export const adminSetMargin = adminRoute({
  method: 'PUT',
  path: '/v1/admin/margin',
  operationId: 'adminSetMargin',
  summary: 'Set the global margin over upstream prices',
  description: "Applies to every model without its own margin: published prices, quotes, reservations and charges all carry it.",
  schema: { body: MarginBody, response: { 200: Type.Object({ margin_percent: Decimal }) } },
  handler: async ({ deps, body, request }) => ({ status: 200, body: await setGlobalMargin(deps, operatorActor(request), body) }),
});

export const adminGetModelAccess = adminRoute({
  method: 'GET',
  path: '/v1/admin/organizations/{id}/model-access',
  operationId: 'adminGetModelAccess',
  summary: "An organization's model access",
  description:
    'Its allowlist or denylist of models, as set by the operator; with neither, the organization may use every listed model.',
  schema: { params: OrgParams, response: { 200: ModelAccess } },
  handler: async ({ deps, params }) => {
    await getOrganization(deps.db, params.id);
    return { status: 200, body: modelAccessOf(deps, params.id) };
  },
});

export const adminSetModelAccess = adminRoute({
  method: 'PUT',
  path: '/v1/admin/organizations/{id}/model-access',
  operationId: 'adminSetModelAccess',
  summary: 'Set which models an organization may use',
  description: 'An allowlist or a denylist of models; a request for another gets 403 model_not_allowed, and GET /v1/models leaves it out.',
  schema: { params: OrgParams, body: ModelAccessBody, response: { 200: ModelAccess } },
  handler: async ({ deps, params, body, request }) => ({ status: 200, body: await setModelAccess(deps, operatorActor(request), params.id, body) }),
});

export const adminAudit = adminRoute({
  method: 'GET',
  path: '/v1/admin/audit',
  operationId: 'adminAudit',
  summary: "The catalog's audit: who changed what, when, before and after",
  description:
    'Newest first, paged back with `before`; `target` narrows it to one model (its slug), organization (its id) or provider record. Every catalog change writes its entry in the same transaction.',
  schema: {
    querystring: Type.Object(
      {
        limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
        before: Type.Optional(Type.Integer({ minimum: 1, description: 'Entries older than this id (paging back).' })),
        target: Type.Optional(Type.String({ maxLength: 300 })),
      },
      { additionalProperties: false },
    ),
    response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(AuditEntry) }) },
  },
  handler: async ({ deps, query }) => {
    const entries = await readAudit(deps, { limit: query.limit, before: query.before, target: query.target });
    return { status: 200, body: { object: 'list', data: entries.map((e) => ({ ...e, at: e.at.toISOString() })) } };
  },
});

const OPERATIONS: RouteDef[] = [adminListModels, adminAddModel, adminImportModel, adminSyncCatalog, adminEditModel, adminSetMargin, adminGetModelAccess, adminSetModelAccess, adminAudit] as RouteDef[];

/** The admin routes, and their own OpenAPI document (the operator credential as its one security scheme). */
export function adminRoutes(): RouteDef[] {
  let doc: Record<string, unknown> | undefined;
  const openapi = adminRoute({
    method: 'GET',
    path: '/v1/admin/openapi.json',
    operationId: 'adminOpenApi',
    summary: "The admin API's OpenAPI 3.1 document",
    description:
      'The operator\'s operations only, kept out of the organizations\' document (/v1/openapi.json) and its SDK. Behind the operator credential.',
    schema: { response: { 200: Type.Object({}, { additionalProperties: true }) as TSchema } },
    handler: async ({ deps }) => {
      doc ??= adminDocument(buildOpenApi([...OPERATIONS, openapi as RouteDef], deps.config.publicUrl));
      return { status: 200, body: doc };
    },
  });
  return [...OPERATIONS, openapi as RouteDef];
}

/** The document of the organizations' API made the operator's: its title, and the operator's credential on every operation. */
function adminDocument(doc: Record<string, unknown>): Record<string, unknown> {
  const security = [{ operatorToken: [] }];
  const paths = doc.paths as Record<string, Record<string, Record<string, unknown>>>;
  for (const ops of Object.values(paths)) for (const op of Object.values(ops)) op.security = security;
  const components = doc.components as Record<string, unknown>;
  return {
    ...doc,
    info: { ...(doc.info as object), title: 'mmgen admin API', description: "The instance operator's API: the catalog, margins and organizations' model access (MMGEN_ADMIN_TOKEN)." },
    security,
    components: {
      ...components,
      securitySchemes: { operatorToken: { type: 'http', scheme: 'bearer', description: 'The instance operator credential, MMGEN_ADMIN_TOKEN (never an organization key).' } },
    },
  };
}
