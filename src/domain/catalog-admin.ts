import { Type, type Static } from '@sinclair/typebox';
import { definitionOf, fromDefinition, ModelDefinition, type Catalog, type CatalogModel, type ModelAccess } from '../catalog/index.js';
import { ApiError } from '../errors.js';
import { PROVIDER_NAMES } from '../providers/index.js';
import type { ProviderRegistry } from '../providers/registry.js';
import { recordProblem, UpstreamModelRecord } from '../providers/upstream-record.js';
import {
  bumpCatalogVersion,
  insertAudit,
  replaceModelAccess,
  selectAudit,
  selectGlobalMargin,
  selectModelAccess,
  selectModelRow,
  selectRecord,
  updateGlobalMargin,
  upsertModelRow,
  upsertRecord,
  type AuditEntry,
} from '../store/catalog.js';
import type { Db, Queryable } from '../store/db.js';
import { operatorOrigin, recordAudit } from './audit.js';
import { makeAjv, validationError } from '../validation.js';
import { getOrganization } from './organizations.js';

/**
 * The operator's changes to the catalog (issue 28): add a model on a registered provider, edit one, turn one off,
 * set margins and organizations' model access, read the audit. Each change is one transaction that writes the
 * overlay (store/catalog.ts), an audit entry (who, what, before and after) and bumps the catalog's version, which
 * every node follows within a second (catalog-follower.ts); this node reloads at once. The admin API and
 * `mmgen catalog …` both call these, with the same body schemas.
 */
export interface CatalogAdminPorts {
  db: Db;
  catalog: Catalog;
  catalogFollower: { refresh(): Promise<void> };
  /** The installation's records (the shipped ones under its operator's), which a route needs one of. */
  providers: Pick<ProviderRegistry, 'records'>;
}

/** A percentage over the upstream price; null clears it. */
const Margin = Type.Union([Type.Number({ minimum: 0, maximum: 1000 }), Type.Null()], {
  description: 'Percent over the upstream price (20: prices × 1.2); null: none (a model then takes the global margin).',
});

export const AddModelBody = Type.Object(
  {
    model: ModelDefinition,
    records: Type.Optional(
      Type.Array(UpstreamModelRecord, {
        maxItems: 16,
        description:
          "Upstream records (docs/upstream-models.md) for the model's routes that have none shipped: the documented input schema, how mmgen's fields map to it, its lifecycle and price. Matched to a route by `upstream`.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type AddModelBody = Static<typeof AddModelBody>;

export const EditModelBody = Type.Object(
  {
    display_name: Type.Optional(ModelDefinition.properties.display_name),
    unit_cost_usd: Type.Optional(ModelDefinition.properties.unit_cost_usd),
    capabilities: Type.Optional(ModelDefinition.properties.capabilities),
    routes: Type.Optional(ModelDefinition.properties.routes),
    aliases: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 50 })),
    records: Type.Optional(AddModelBody.properties.records),
    disabled: Type.Optional(Type.Boolean({ description: 'true: refused to every organization (403 model_not_allowed) and unlisted.' })),
    margin_percent: Type.Optional(Margin),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type EditModelBody = Static<typeof EditModelBody>;

export const MarginBody = Type.Object({ margin_percent: Margin }, { additionalProperties: false });
export type MarginBody = Static<typeof MarginBody>;

export const ModelAccessBody = Type.Object(
  {
    mode: Type.Union([Type.Literal('all'), Type.Literal('allow'), Type.Literal('deny')], {
      description: '`allow`: only the models listed; `deny`: every model but those listed; `all`: every model (the list is ignored).',
    }),
    models: Type.Array(Type.String({ minLength: 1 }), { maxItems: 1000, default: [], description: 'Model slugs, ids or aliases.' }),
  },
  { additionalProperties: false },
);
export type ModelAccessBody = Static<typeof ModelAccessBody>;

const ajv = makeAjv(false);
const checkers = new Map<object, ReturnType<typeof ajv.compile>>();

/** The body held to its schema, as the admin API does before its handler (for callers that are not the API: the CLI). */
export function validated<T>(schema: object, body: unknown): T {
  let check = checkers.get(schema);
  if (!check) {
    check = ajv.compile(schema);
    checkers.set(schema, check);
  }
  if (!check(body)) throw validationError(check.errors ?? [], 'body');
  return body as T;
}

/** Where a fact of a model comes from. */
export type FactSource = 'shipped' | 'operator';

export interface AdminModelView {
  slug: string;
  /** `shipped`: as the repository has it; `override`: a shipped model the operator edited; `added`: the operator's. */
  source: 'shipped' | 'override' | 'added';
  /** Each field of the definition: from the shipped catalog or from the operator. */
  facts: Record<string, FactSource>;
  definition: ModelDefinition;
  status: CatalogModel['status'];
  disabled: boolean;
  /** Its own margin; null: the global one applies. */
  margin_percent: string | null;
  /** The margin its prices carry (its own, else the global one); null: none. */
  effective_margin_percent: string | null;
}

/** The effective catalog as the operator sees it: every model (disabled and delisted ones too), and where each fact comes from. */
export function describeCatalog(ports: Pick<CatalogAdminPorts, 'catalog'>): { margin_percent: string | null; version: number; data: AdminModelView[] } {
  const { catalog } = ports;
  const rows = new Map(catalog.overlay.models.map((r) => [r.slug, r]));
  return {
    margin_percent: catalog.overlay.marginPercent,
    version: catalog.version,
    data: catalog.models.map((m) => {
      const shipped = catalog.shippedModel(m.slug);
      const row = rows.get(m.slug);
      const definition = canonical(row?.definition ?? definitionOf(m));
      const shippedDefinition = shipped ? definitionOf(shipped) : undefined;
      const facts = Object.fromEntries(
        Object.keys(definition).map((k) => {
          const key = k as keyof ModelDefinition;
          const same = shippedDefinition !== undefined && JSON.stringify(shippedDefinition[key]) === JSON.stringify(definition[key]);
          return [k, same ? 'shipped' : 'operator'];
        }),
      ) as Record<string, FactSource>;
      return {
        slug: m.slug,
        source: !shipped ? 'added' : row?.definition ? 'override' : 'shipped',
        facts,
        definition,
        status: m.status,
        disabled: m.disabled === true,
        margin_percent: row?.marginPercent ?? null,
        effective_margin_percent: m.margin_percent ?? null,
      };
    }),
  };
}

/** A model the operator adds, on a registered provider; its routes' records given where none is shipped. */
export async function addModel(ports: CatalogAdminPorts, actor: string, input: unknown): Promise<AdminModelView> {
  const body = validated<AddModelBody>(AddModelBody, input);
  const def = body.model;
  const taken = ports.catalog.find(def.slug);
  if (taken) {
    throw new ApiError('parameter_invalid', `A model named '${def.slug}' is in the catalog already (${taken.slug}); edit it with PATCH /v1/admin/models/${taken.slug}.`, 'model.slug');
  }
  checkDefinition(ports, def, body.records ?? [], { def: 'model', records: 'records' });
  await ports.db.tx(async (q) => {
    if (await selectModelRow(q, def.slug)) throw new ApiError('parameter_invalid', `A model named '${def.slug}' was just added.`, 'model.slug');
    await putRecords(ports, q, actor, def, body.records ?? []);
    await upsertModelRow(q, { slug: def.slug, definition: def, disabled: false, marginPercent: null });
    await auditCatalog(q, actor, { action: 'model.add', target: def.slug, before: null, after: { definition: def, disabled: false, margin_percent: null } });
    await bumpCatalogVersion(q);
  });
  await ports.catalogFollower.refresh();
  return viewOf(ports, def.slug);
}

/** Edits a model: fields of its definition (a shipped model is then overridden), its disabled flag, its own margin. */
export async function editModel(ports: CatalogAdminPorts, actor: string, slug: string, input: unknown): Promise<AdminModelView> {
  const patch = validated<EditModelBody>(EditModelBody, input);
  const model = ports.catalog.find(slug);
  if (!model || model.slug !== slug) throw new ApiError('model_not_found', `No such model: '${slug}'. GET /v1/admin/models lists the catalog.`, 'slug');
  const { disabled, margin_percent, records, ...fields } = patch;
  await ports.db.tx(async (q) => {
    const row = await selectModelRow(q, slug);
    const shipped = ports.catalog.shippedModel(slug);
    const before = {
      definition: (row?.definition as ModelDefinition | null | undefined) ?? null,
      disabled: row?.disabled ?? false,
      margin_percent: row?.margin_percent === null || row?.margin_percent === undefined ? null : String(row.margin_percent),
    };
    let definition = before.definition;
    if (Object.keys(fields).length > 0 || records) {
      const current = definition ?? definitionOf(shipped ?? model);
      const next: ModelDefinition = canonical({ ...current, ...fields });
      checkDefinition(ports, next, records ?? [], { def: '', records: 'records' });
      await putRecords(ports, q, actor, next, records ?? []);
      // Edited back to what ships: the shipped model again, which follows the repository's later releases.
      definition = shipped && JSON.stringify(definitionOf(shipped)) === JSON.stringify(next) ? null : next;
    }
    const after = {
      definition,
      disabled: disabled ?? before.disabled,
      margin_percent: margin_percent === undefined ? before.margin_percent : margin_percent === null ? null : String(margin_percent),
    };
    await upsertModelRow(q, { slug, definition: after.definition, disabled: after.disabled, marginPercent: after.margin_percent });
    await auditCatalog(q, actor, { action: 'model.edit', target: slug, before, after });
    await bumpCatalogVersion(q);
  });
  await ports.catalogFollower.refresh();
  return viewOf(ports, slug);
}

/** The margin over the upstream price of every model without its own. */
export async function setGlobalMargin(ports: CatalogAdminPorts, actor: string, input: unknown): Promise<{ margin_percent: string | null }> {
  const body = validated<MarginBody>(MarginBody, input);
  const after = body.margin_percent === null ? null : String(body.margin_percent);
  await ports.db.tx(async (q) => {
    const before = await selectGlobalMargin(q);
    await updateGlobalMargin(q, after);
    await auditCatalog(q, actor, { action: 'margin.set', target: '*', before: { margin_percent: before === null ? null : String(before) }, after: { margin_percent: after } });
    await bumpCatalogVersion(q);
  });
  await ports.catalogFollower.refresh();
  return { margin_percent: ports.catalog.overlay.marginPercent };
}

export interface ModelAccessView {
  organization_id: string;
  mode: 'all' | ModelAccess['mode'];
  models: string[];
}

/** Which models an organization may use: an allowlist, a denylist, or all of them. */
export async function setModelAccess(ports: CatalogAdminPorts, actor: string, organizationId: string, input: unknown): Promise<ModelAccessView> {
  const body = validated<ModelAccessBody>(ModelAccessBody, input);
  await getOrganization(ports.db, organizationId);
  const slugs = body.models.map((name, i) => {
    const m = ports.catalog.find(name);
    if (!m) throw new ApiError('model_not_found', `No such model: '${name}'.`, `models[${i}]`);
    return m.slug;
  });
  const access: ModelAccess | null = body.mode === 'all' ? null : { mode: body.mode, models: [...new Set(slugs)].sort() };
  await ports.db.tx(async (q) => {
    const before = await selectModelAccess(q, organizationId);
    await replaceModelAccess(q, organizationId, access);
    await auditCatalog(q, actor, { action: 'access.set', target: organizationId, before: before ?? { mode: 'all' }, after: access ?? { mode: 'all' } });
    await bumpCatalogVersion(q);
  });
  await ports.catalogFollower.refresh();
  return modelAccessOf(ports, organizationId);
}

export function modelAccessOf(ports: Pick<CatalogAdminPorts, 'catalog'>, organizationId: string): ModelAccessView {
  const access = ports.catalog.accessOf(organizationId);
  return { organization_id: organizationId, mode: access?.mode ?? 'all', models: [...(access?.models ?? [])] };
}

export function readAudit(ports: Pick<CatalogAdminPorts, 'db'>, opts: { limit: number; before?: number | undefined; target?: string | undefined }): Promise<AuditEntry[]> {
  return selectAudit(ports.db, opts);
}

/** A definition with its fields in one order (jsonb keeps its own), so that two can be compared as text. */
function canonical(d: ModelDefinition): ModelDefinition {
  return definitionOf(fromDefinition(d));
}

function viewOf(ports: Pick<CatalogAdminPorts, 'catalog'>, slug: string): AdminModelView {
  return describeCatalog(ports).data.find((m) => m.slug === slug)!;
}

/** 400 on `param` unless `provider` is a registered provider's name (a model added or imported names one). */
export function assertRegistered(provider: string, param: string): void {
  if (!PROVIDER_NAMES.includes(provider)) {
    throw new ApiError('parameter_invalid', `No provider '${provider}' is registered; the registered ones are ${PROVIDER_NAMES.join(', ')}.`, param);
  }
}

/**
 * What the schema cannot say of a definition: its providers are registered, each route has a record (shipped, or
 * given and valid, matching one of its routes), its names collide with no other model's, its speech model is a
 * voice model. 400 names the field.
 */
function checkDefinition(
  { catalog, providers }: Pick<CatalogAdminPorts, 'catalog' | 'providers'>,
  def: ModelDefinition,
  records: UpstreamModelRecord[],
  at: { def: string; records: string },
): void {
  const field = (f: string) => (at.def ? `${at.def}.${f}` : f);
  records.forEach((record, i) => {
    const problem = recordProblem(record);
    if (problem) throw new ApiError('parameter_invalid', `Invalid record: ${problem.message}.`, `${at.records}[${i}]${problem.field ? `.${problem.field}` : ''}`);
    if (!def.routes.some((r) => r.upstream === record.upstream)) {
      throw new ApiError('parameter_invalid', `The record of '${record.upstream}' matches none of the model's routes.`, `${at.records}[${i}].upstream`);
    }
  });
  def.routes.forEach((r, i) => {
    assertRegistered(r.provider, field(`routes[${i}].provider`));
    if (!records.some((rec) => rec.upstream === r.upstream) && !providers.records(r.provider, r.upstream)) {
      throw new ApiError('parameter_invalid', `mmgen has no record of ${r.provider}'s '${r.upstream}': give its record in \`records\` (docs/upstream-models.md).`, field(`routes[${i}].upstream`));
    }
  });
  (def.aliases ?? []).forEach((alias, i) => {
    const other = catalog.find(alias);
    if (other && other.slug !== def.slug) throw new ApiError('parameter_invalid', `'${alias}' names the model '${other.slug}' already.`, field(`aliases[${i}]`));
  });
  if (def.speech_model !== undefined) {
    const speech = catalog.find(def.speech_model);
    if (!speech || speech.modality !== 'voice') throw new ApiError('parameter_invalid', `'${def.speech_model}' is not a voice model of the catalog.`, field('speech_model'));
  }
}

/**
 * The audit log's name of each catalog change (catalog_audit keeps the operator's short one, which
 * `mmgen catalog audit` shows), and where it goes: a change of one organization's model access into that
 * organization's chain (its owners read it), the rest into the installation's.
 */
const CATALOG_ACTIONS = {
  'model.add': { action: 'catalog.model_added', target: 'model' },
  'model.edit': { action: 'catalog.model_edited', target: 'model' },
  'margin.set': { action: 'catalog.margin_set', target: 'catalog' },
  'access.set': { action: 'organization.model_access_set', target: 'organization' },
  'record.put': { action: 'catalog.record_put', target: 'upstream_record' },
  'record.sync': { action: 'catalog.record_synced', target: 'upstream_record' },
} as const;

/** Writes a catalog change's entry in catalog_audit and in the audit log, in the change's transaction. */
export async function auditCatalog(
  q: Queryable,
  actor: string,
  e: { action: keyof typeof CATALOG_ACTIONS; target: string; before: unknown; after: unknown },
): Promise<void> {
  await insertAudit(q, { actor, ...e });
  const named = CATALOG_ACTIONS[e.action];
  await recordAudit(q, {
    ...operatorOrigin(actor),
    organizationId: e.action === 'access.set' ? e.target : null,
    action: named.action,
    target: { type: named.target, id: e.target },
    before: e.before,
    after: e.after,
  });
}

/** Stores the given records, each audited with the one it replaces. */
async function putRecords(ports: Pick<CatalogAdminPorts, 'providers'>, q: Queryable, actor: string, def: ModelDefinition, records: UpstreamModelRecord[]): Promise<void> {
  for (const record of records) {
    const provider = def.routes.find((r) => r.upstream === record.upstream)!.provider;
    const before = (await selectRecord(q, provider, record.upstream)) ?? ports.providers.records(provider, record.upstream) ?? null;
    await upsertRecord(q, provider, record.upstream, record);
    await auditCatalog(q, actor, { action: 'record.put', target: `${provider}:${record.upstream}`, before, after: record });
  }
}
