import { Type, type Static } from '@sinclair/typebox';
import { ModelDefinition } from '../catalog/index.js';
import { ApiError } from '../errors.js';
import { SchemaImportError, type PublishedSchemas } from '../providers/schema-import.js';
import { UpstreamModelRecord } from '../providers/upstream-record.js';
import { addModel, assertRegistered, validated, type AdminModelView, type CatalogAdminPorts } from './catalog-admin.js';

/**
 * A model added from its upstream id with its input schema imported from the provider (issue 28): Replicate's
 * model versions and fal's endpoints publish one (providers/schema-import.ts reads it). The schema becomes the
 * record's `input` as published, with `additionalProperties: false`; the operator gives what no schema says: the
 * model's name, modality, price, and how mmgen's fields map onto the provider's (`map`, `set`). The rest is
 * addModel: one transaction, audited, followed by every node.
 */
export interface CatalogImportPorts extends CatalogAdminPorts {
  schemas: PublishedSchemas;
}

const { routes: _routes, ...definitionFields } = ModelDefinition.properties;
const R = UpstreamModelRecord.properties;

export const ImportModelBody = Type.Object(
  {
    provider: Type.String({ minLength: 1, maxLength: 100, description: 'A registered provider that publishes per-model schemas (replicate, fal).' }),
    upstream: Type.String({ minLength: 1, maxLength: 300, description: "The model's id in the provider's API (Replicate `owner/name`, fal's endpoint id)." }),
    model: Type.Object(definitionFields, {
      additionalProperties: false,
      description: 'The definition of POST /v1/admin/models without `routes`: its one route is `provider`/`upstream`.',
    }),
    record: Type.Object(
      {
        map: R.map,
        set: Type.Optional(R.set),
        defaults: Type.Optional(R.defaults),
        call: Type.Optional(R.call),
        sources: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 20 })),
        lifecycle: Type.Optional(R.lifecycle),
        pricing: Type.Optional(R.pricing),
        price_source: Type.Optional(R.price_source),
        price: Type.Optional(R.price),
        path_and_query: Type.Optional(R.path_and_query),
        notes: Type.Optional(R.notes),
      },
      {
        additionalProperties: false,
        description:
          "The upstream record (docs/upstream-models.md) without `input`, which is imported: `map` names each mmgen field's upstream field, which the published schema must have.",
      },
    ),
  },
  { additionalProperties: false },
);
export type ImportModelBody = Static<typeof ImportModelBody>;

/** Adds a model whose record's input is the schema its provider publishes today. */
export async function importModel(ports: CatalogImportPorts, actor: string, input: unknown, today = new Date().toISOString().slice(0, 10)): Promise<AdminModelView> {
  const body = validated<ImportModelBody>(ImportModelBody, input);
  // Before anything is looked up by it: the record lookup below holds an unregistered name to be a catalog bug.
  assertRegistered(body.provider, 'provider');
  const taken = ports.catalog.find(body.model.slug);
  if (taken) throw new ApiError('parameter_invalid', `A model named '${body.model.slug}' is in the catalog already (${taken.slug}).`, 'model.slug');
  if (ports.providers.records(body.provider, body.upstream)) {
    throw new ApiError(
      'parameter_invalid',
      `mmgen has a record of ${body.provider}'s '${body.upstream}' already: add the model with POST /v1/admin/models, routed to it, without importing.`,
      'upstream',
    );
  }
  let imported;
  try {
    imported = await ports.schemas.read(body.provider, body.upstream);
  } catch (err) {
    if (!(err instanceof SchemaImportError)) throw err;
    if (err.upstreamFault) throw new ApiError('upstream_error', err.message);
    throw new ApiError('parameter_invalid', err.message, err.field);
  }
  const { sources, lifecycle, ...rest } = body.record;
  const record: UpstreamModelRecord = {
    ...rest,
    upstream: body.upstream,
    call: body.record.call ?? {},
    sources: [`${imported.source}, imported on ${today}`, ...(sources ?? [])],
    lifecycle: lifecycle ?? { deprecated: null, shutdown: null, replacement: null, source: null },
    pricing: body.record.pricing ?? null,
    input: imported.input,
    set: body.record.set ?? {},
  };
  try {
    return await addModel(ports, actor, { model: { ...body.model, routes: [{ provider: body.provider, upstream: body.upstream }] }, records: [record] });
  } catch (err) {
    // addModel names the fields of its own body: the record here is `record`, the definition `model`, and the
    // record's input is not the operator's but what the provider publishes for `upstream`.
    if (!(err instanceof ApiError) || !err.param?.startsWith('records[0]')) throw err;
    if (err.param.startsWith('records[0].input')) throw new ApiError(err.code, `${imported.source} is not one mmgen can take: ${err.message}`, 'upstream');
    throw new ApiError(err.code, `${err.message} (the input is ${imported.source})`, err.param.replace('records[0]', 'record'));
  }
}
