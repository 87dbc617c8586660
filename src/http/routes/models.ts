import { Type } from '@sinclair/typebox';
import { MODALITIES, UNIT_BY_MODALITY, UNIT_DESCRIPTION_BY_MODALITY } from '../../catalog/index.js';
import { ApiError } from '../../errors.js';
import { announceDeprecation } from '../deprecation-headers.js';
import { defineRoute } from '../route.js';
import { parametersOf } from '../../generations/hold-to-model.js';
import { modelDeprecation } from '../../providers/parameters.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import { publishedPricing, PublishedTierSchema } from '../../generations/published-prices.js';
import type { CatalogModel, ModelView } from '../../catalog/index.js';
import { IdParams, Nullable } from '../schemas.js';


export const Model = Type.Object(
  {
    id: Type.String({ description: 'mdl_…' }),
    object: Type.Literal('model'),
    created: Type.Integer({ description: "Unix seconds: the day mmgen's catalog was first published, the same for every model (OpenAI's Model requires it); not the model's age upstream." }),
    owned_by: Type.String({ description: 'The provider of its primary route, as `provider`.' }),
    slug: Type.String(),
    provider: Type.String(),
    display_name: Type.String(),
    modality: Type.String({ enum: [...MODALITIES] }),
    capabilities: Type.Array(Type.String()),
    pricing: Type.Object(
      {
        unit_cost_usd: Type.Number({ description: "The catalog's price per unit of the default variant on the primary route, margin included." }),
        unit: Type.String({ enum: [...new Set(Object.values(UNIT_BY_MODALITY))] }),
        unit_description: Type.String({ description: 'What one unit covers (chat: output tokens only; input tokens are not billed).' }),
        source: Nullable(Type.String({ description: "Where the primary route's price was read: a first-party URL; null when none is recorded or it is an estimate." })),
        estimate: Type.Boolean({ description: 'The price is an estimate (no first-party source publishes it, or none is recorded).' }),
        version: Type.String({ description: "The price version (pv_…): a digest of everything the model's prices are made from. Each generation records the version that priced it." }),
        tiers: Type.Array(PublishedTierSchema, {
          description:
            "What requests reserve on this installation, priced by the function that prices every reservation: tiers[0] is the default variant (`when` is {}), then one per differently priced tier a request selects. POST /v1/quotes with a tier's `example` (and an input image of `input_image`'s size) answers its `credits`.",
        }),
      },
      { description: "Prices with the operator's margin." },
    ),
    status: Type.String({ enum: ['active', 'delisted'] }),
    aliases: Type.Array(Type.String(), {
      description: "Other names `model` may give for this model: its providers' own ids (dated snapshots, Anthropic's dashed names, ElevenLabs' ids), so code written for a provider's SDK runs unchanged.",
    }),
    deprecation: Nullable(
      Type.Object(
        {
          deprecated_on: Nullable(Type.String({ description: 'YYYY-MM-DD: when a route of this model was announced deprecated upstream.' })),
          shutdown_on: Nullable(Type.String({ description: 'YYYY-MM-DD: when the last of its routes shuts down upstream; null while one has no announced end.' })),
          replacement: Nullable(Type.String({ description: "The provider's named replacement, where it names one." })),
          sources: Type.Array(Type.String()),
        },
        { description: "The model's upstream end of life as its providers announced it; null when none is announced." },
      ),
    ),
    parameters: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          "JSON Schema of the request fields this model takes, with its own enums, ranges, defaults and required fields (contract §3a), derived from what its providers document. Enforced: a request outside it is refused with 400 (parameter_invalid or parameter_missing, `param` naming the field) before anything is reserved. `x-mmgen-image: \"required\"`: the model needs an input image; `x-mmgen-speech`: the voice model that speaks an avatar's `text` first.",
      },
    ),
  },
  { title: 'Model' },
);

/** A model's view with what its routes' records say of it: its end of life, its parameters, and its prices here. */
function describe(providers: ProviderRegistry, view: ModelView, model: CatalogModel) {
  const priced = publishedPricing(providers, model);
  return {
    ...view,
    pricing: { ...view.pricing, unit_description: UNIT_DESCRIPTION_BY_MODALITY[model.modality], ...priced },
    deprecation: modelDeprecation(providers.records, model),
    parameters: parametersOf(providers.records, model),
  };
}

export const listModels = defineRoute({
  method: 'GET',
  path: '/v1/models',
  operationId: 'listModels',
  summary: 'List the model catalog',
  description:
    'Every active model the organization may use, with capabilities and pricing (with the operator\'s margin). Not paged: the whole catalog is returned. Models the operator turned off, or does not let this organization use, are left out.',
  tag: 'Models',
  auth: { role: 'viewer' },
  schema: {
    querystring: Type.Object(
      {
        modality: Type.Optional(Type.String({ enum: [...MODALITIES] })),
        include_delisted: Type.Optional(Type.Boolean({ default: false })),
      },
      { additionalProperties: false },
    ),
    response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(Model), has_more: Type.Boolean() }) },
  },
  handler: async ({ query, deps, principal }) => ({
    status: 200,
    body: {
      object: 'list',
      data: deps.catalog
        .list({ modality: query.modality as (typeof MODALITIES)[number] | undefined, includeDelisted: query.include_delisted, organizationId: principal.organizationId })
        .map((v) => describe(deps.providers, v, deps.catalog.find(v.slug)!)),
      has_more: false,
    },
  }),
});

export const getModel = defineRoute({
  method: 'GET',
  path: '/v1/models/{id}',
  operationId: 'getModel',
  summary: 'Get one model by slug or id',
  description:
    'The model\'s modality, provider, price, parameters and announced end of life, by its slug, `mdl_` id or one of its aliases. A deprecated model\'s answer carries Deprecation, Sunset and Link headers.',
  tag: 'Models',
  auth: { role: 'viewer' },
  schema: { params: IdParams, response: { 200: Model } },
  handler: async ({ params, deps, principal, reply }) => {
    const m = deps.catalog.find(params.id);
    if (!m) throw new ApiError('model_not_found', `No such model: '${params.id}'.`, 'id');
    deps.catalog.admit(m, principal.organizationId, 'id');
    announceDeprecation(reply, deps.providers.records, [m], 'model', (name) => deps.catalog.find(name));
    return { status: 200, body: describe(deps.providers, deps.catalog.view(m), m) };
  },
});
