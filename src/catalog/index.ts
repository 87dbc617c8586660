import { createHash } from 'node:crypto';
import { ApiError } from '../errors.js';
import { CATALOG } from './models.js';
import { UNIT_BY_MODALITY, type CatalogModel, type Modality, type PricingUnit, type ProviderName } from './types.js';

export * from './types.js';

export interface ModelView {
  id: string;
  object: 'model';
  slug: string;
  provider: ProviderName;
  display_name: string;
  modality: Modality;
  capabilities: string[];
  pricing: { unit_cost_usd: number; unit: PricingUnit };
  status: 'active' | 'delisted';
}

/** A model id is derived from its slug, so it is the same on every installation. */
export function modelId(slug: string): string {
  const digest = createHash('sha256').update(`mmgen-model:${slug}`).digest();
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let out = '';
  for (let i = 0; i < 20; i++) out += alphabet[digest[i]! % 62];
  return `mdl_${out}`;
}

export class Catalog {
  private readonly bySlug = new Map<string, CatalogModel>();
  private readonly byId = new Map<string, CatalogModel>();
  private readonly views = new Map<string, ModelView>();

  constructor(readonly models: readonly CatalogModel[] = CATALOG) {
    for (const m of models) {
      const id = modelId(m.slug);
      this.bySlug.set(m.slug, m);
      this.byId.set(id, m);
      this.views.set(m.slug, {
        id,
        object: 'model',
        slug: m.slug,
        provider: m.routes[0].provider,
        display_name: m.display_name,
        modality: m.modality,
        capabilities: [...m.capabilities],
        pricing: { unit_cost_usd: Number(m.unit_cost_usd), unit: UNIT_BY_MODALITY[m.modality] },
        status: m.status,
      });
    }
  }

  /** Finds a model by slug or `mdl_` id, delisted ones included. */
  find(nameOrId: string): CatalogModel | undefined {
    return this.bySlug.get(nameOrId) ?? this.byId.get(nameOrId);
  }

  view(model: CatalogModel): ModelView {
    return this.views.get(model.slug)!;
  }

  list(filter: { modality?: Modality | undefined; includeDelisted?: boolean | undefined }): ModelView[] {
    return this.models
      .filter((m) => (filter.includeDelisted || m.status === 'active') && (!filter.modality || m.modality === filter.modality))
      .map((m) => this.view(m));
  }

  /**
   * The model a generation request names, checked in the contract's order:
   * unknown → 404 model_not_found, delisted → 410 model_unavailable, another
   * modality → 400 model_modality_mismatch.
   */
  resolve(nameOrId: string, modality: Modality, param = 'model'): CatalogModel {
    const m = this.find(nameOrId);
    if (!m) throw new ApiError('model_not_found', `No such model: '${nameOrId}'. GET /v1/models lists the catalog.`, param);
    if (m.status === 'delisted') throw new ApiError('model_unavailable', `The model '${m.slug}' has been delisted and is no longer available.`, param);
    if (m.modality !== modality) {
      throw new ApiError('model_modality_mismatch', `The model '${m.slug}' serves ${m.modality}, not ${modality}.`, param);
    }
    return m;
  }
}
