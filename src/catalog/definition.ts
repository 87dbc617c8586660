import { Type, type Static } from '@sinclair/typebox';
import { MODALITIES } from './types.js';

/**
 * A model's definition as the operator writes it: the admin API's body and the shape every overlay row in the
 * database is read back through (catalog_models.definition), so the two can never disagree. It is a CatalogModel
 * without what the catalog derives (status, retired routes, the linked speech model).
 */
export const ModelDefinition = Type.Object(
  {
    slug: Type.String({ pattern: '^[a-z0-9][a-z0-9.-]{0,99}$', description: 'The public name users send in `model`: lowercase, [a-z0-9.-].' }),
    display_name: Type.String({ minLength: 1, maxLength: 200 }),
    modality: Type.Union(MODALITIES.map((m) => Type.Literal(m))),
    routes: Type.Array(
      Type.Object(
        {
          provider: Type.String({ minLength: 1, description: 'A registered provider (src/providers/index.ts).' }),
          upstream: Type.String({ minLength: 1, description: "The model's id in the provider's API." }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 8, description: 'The primary route first; later routes are fallbacks.' },
    ),
    capabilities: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 }),
    unit_cost_usd: Type.String({ pattern: '^\\d{1,6}(\\.\\d{1,12})?$', description: 'US dollars per unit of the modality, a decimal string.' }),
    aliases: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 50 })),
    speech_model: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false, title: 'ModelDefinition' },
);
export type ModelDefinition = Static<typeof ModelDefinition>;

/** An organization's model access: only the models listed (`allow`) or all but them (`deny`). */
export interface ModelAccess {
  mode: 'allow' | 'deny';
  models: readonly string[];
}

/**
 * The operator's changes as the catalog reads them (store/catalog.ts loads them; the follower hands them over).
 * A definition replaces the shipped model of its slug, or adds one.
 */
export interface CatalogOverlay {
  version: number;
  /** Percent over the upstream price for models without their own margin; null: none. */
  marginPercent: string | null;
  models: ReadonlyArray<{ slug: string; definition: ModelDefinition | null; disabled: boolean; marginPercent: string | null }>;
  access: ReadonlyMap<string, ModelAccess>;
}

export const EMPTY_OVERLAY: CatalogOverlay = { version: 0, marginPercent: null, models: [], access: new Map() };
