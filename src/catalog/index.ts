import { createHash } from 'node:crypto';
import { ApiError } from '../errors.js';
import { EMPTY_OVERLAY, type CatalogOverlay, type ModelAccess } from './definition.js';
import { CATALOG } from './models.js';
import { overlaid, withMargin } from './overlay.js';
import { UNIT_BY_MODALITY, type CatalogModel, type Modality, type ModelRoute, type PricingUnit, type ProviderName } from './types.js';

export * from './types.js';
export * from './definition.js';
export { definitionOf, fromDefinition, withMargin } from './overlay.js';

export interface ModelView {
  id: string;
  object: 'model';
  /** Unix seconds: when mmgen's catalog first listed models (CATALOG_FIRST_LISTED), OpenAI's `Model.created`. */
  created: number;
  /** The provider of its primary route, OpenAI's `Model.owned_by`. */
  owned_by: ProviderName;
  slug: string;
  provider: ProviderName;
  display_name: string;
  modality: Modality;
  capabilities: string[];
  pricing: { unit_cost_usd: number; unit: PricingUnit };
  status: 'active' | 'delisted';
  aliases: string[];
}

/** Whether this request to this model is spoken first: an avatar with a speech step (`speech`), given text and no audio. */
export function speaksFirst(model: CatalogModel, params: Record<string, unknown>): model is CatalogModel & { speech: CatalogModel } {
  return model.speech !== undefined && typeof params.text === 'string' && params.audio_url === undefined;
}

/**
 * The day mmgen's catalog was first published (the repository's first commit). The catalog keeps no date per model, so every model's `created`
 * (which OpenAI's Model object requires) is this day, the operator's additions too: it says when mmgen began
 * listing, never how old a model is upstream.
 */
export const CATALOG_FIRST_LISTED = '2026-11-21';
const CATALOG_FIRST_LISTED_S = Date.parse(`${CATALOG_FIRST_LISTED}T00:00:00Z`) / 1000;

/** A model delisted by its upstreams' shutdown, as it was served before it. */
function servedBefore(m: CatalogModel): CatalogModel {
  const { retired_on: _retired, ...rest } = m;
  return { ...rest, status: 'active' };
}

/** A model id is derived from its slug, so it is the same on every installation. */
export function modelId(slug: string): string {
  const digest = createHash('sha256').update(`mmgen-model:${slug}`).digest();
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let out = '';
  for (let i = 0; i < 20; i++) out += alphabet[digest[i]! % 62];
  return `mdl_${out}`;
}

/**
 * What upstream lifecycles say of the catalog on a date (main.ts passes the
 * providers' records, docs/upstream-models.md): the routes still served then.
 */
export interface CatalogLifecycle {
  /** The model's routes whose upstream has not shut down by `date` (YYYY-MM-DD), in order; the latest shutdown of the others. */
  liveRoutes(model: CatalogModel, date: string): { routes: ModelRoute[]; lastShutdown: string | null };
  /** Today as YYYY-MM-DD (UTC), or the date MMGEN_CATALOG_DATE pins. */
  today(): string;
}

interface CatalogDay {
  date: string;
  models: readonly CatalogModel[];
  bySlug: Map<string, CatalogModel>;
  byId: Map<string, CatalogModel>;
  byAlias: Map<string, CatalogModel>;
  views: Map<string, ModelView>;
}

export class Catalog {
  private day: CatalogDay | null = null;
  private base: readonly CatalogModel[];
  private applied: CatalogOverlay = EMPTY_OVERLAY;

  constructor(
    private readonly shipped: readonly CatalogModel[] = CATALOG,
    private readonly lifecycle?: CatalogLifecycle,
  ) {
    this.base = shipped;
  }

  /**
   * Lays the operator's changes over the shipped catalog (catalog-follower.ts, when the database's version moves).
   * The state is swapped whole: a request reads one catalog or the other, and never queries for it.
   */
  replace(overlay: CatalogOverlay): void {
    this.base = overlaid(this.shipped, overlay);
    this.applied = overlay;
    this.day = null;
  }

  /** The overlay version this catalog was built from (0: the shipped catalog alone). */
  get version(): number {
    return this.applied.version;
  }

  /** The operator's changes this catalog was built from. */
  get overlay(): CatalogOverlay {
    return this.applied;
  }

  /** The shipped model of a slug, as the repository has it (before the operator's changes). */
  shippedModel(slug: string): CatalogModel | undefined {
    return this.shipped.find((m) => m.slug === slug);
  }

  /** An organization's model access as the operator set it; undefined: every model. */
  accessOf(organizationId: string): ModelAccess | undefined {
    return this.applied.access.get(organizationId);
  }

  /**
   * The catalog as served today: routes past their upstream's shutdown are
   * left out, and a model with none left is delisted (410), so a shutdown
   * takes effect on its date without a restart.
   */
  private current(): CatalogDay {
    const date = this.lifecycle?.today() ?? '';
    if (this.day?.date === date) return this.day;
    const dated = this.base.map((m) => this.onDate(m, date));
    const active = new Map(dated.filter((m) => m.status === 'active').map((m) => [m.slug, m]));
    // A speech step is offered only while its voice model is served.
    const models = dated.map((m) => {
      const speech = m.speech_model ? active.get(m.speech_model) : undefined;
      return speech ? { ...m, speech } : m;
    });
    const day: CatalogDay = { date, models, bySlug: new Map(), byId: new Map(), byAlias: new Map(), views: new Map() };
    for (const m of models) {
      const id = modelId(m.slug);
      day.bySlug.set(m.slug, m);
      day.byId.set(id, m);
      for (const alias of m.aliases ?? []) day.byAlias.set(alias, m);
      day.views.set(m.slug, {
        id,
        object: 'model',
        created: CATALOG_FIRST_LISTED_S,
        owned_by: m.routes[0].provider,
        slug: m.slug,
        provider: m.routes[0].provider,
        display_name: m.display_name,
        modality: m.modality,
        capabilities: [...m.capabilities],
        // The price as charged: with the operator's margin.
        pricing: { unit_cost_usd: Number(withMargin(m.unit_cost_usd, m.margin_percent)), unit: UNIT_BY_MODALITY[m.modality] },
        status: m.status,
        aliases: [...(m.aliases ?? [])],
      });
    }
    this.day = day;
    return day;
  }

  private onDate(shipped: CatalogModel, date: string): CatalogModel {
    if (!this.lifecycle) return shipped;
    // A model delisted by its upstreams' shutdown was served before that day (a catalog pinned to an earlier date).
    const m = shipped.status === 'delisted' && shipped.retired_on !== undefined && date < shipped.retired_on ? servedBefore(shipped) : shipped;
    if (m.status === 'delisted') return m;
    const { routes, lastShutdown } = this.lifecycle.liveRoutes(m, date);
    if (routes.length === m.routes.length) return m;
    const [first, ...rest] = routes;
    // With every upstream gone, the model keeps its routes for display (its provider), but serves nothing.
    if (!first) return { ...m, status: 'delisted', retired_on: lastShutdown ?? date };
    return { ...m, routes: [first, ...rest], retired_routes: m.routes.filter((r) => !routes.includes(r)) };
  }

  /** Every model, as served today (delisted ones included). */
  get models(): readonly CatalogModel[] {
    return this.current().models;
  }

  /** Finds a model by slug, `mdl_` id or alias (a provider's own name for it), delisted ones included. */
  find(nameOrId: string): CatalogModel | undefined {
    const day = this.current();
    return day.bySlug.get(nameOrId) ?? day.byId.get(nameOrId) ?? day.byAlias.get(nameOrId);
  }

  view(model: CatalogModel): ModelView {
    return this.current().views.get(model.slug)!;
  }

  /** The models offered: disabled ones never, and for an organization only those it may use (`allows`). */
  list(filter: { modality?: Modality | undefined; includeDelisted?: boolean | undefined; organizationId?: string | undefined }): ModelView[] {
    const org = filter.organizationId;
    return this.models
      .filter((m) => (filter.includeDelisted || m.status === 'active') && (!filter.modality || m.modality === filter.modality))
      .filter((m) => !m.disabled && (org === undefined || this.allows(org, m)))
      .map((m) => this.view(m));
  }

  /** Whether the operator lets this organization use the model (organization_model_access; the slug decides). */
  allows(organizationId: string, model: CatalogModel): boolean {
    const access = this.applied.access.get(organizationId);
    if (!access) return true;
    return access.models.includes(model.slug) === (access.mode === 'allow');
  }

  /**
   * A resolved model held to the operator's rules for this organization: disabled on the installation, or not
   * among the models the organization may use, is 403 model_not_allowed.
   */
  admit(model: CatalogModel, organizationId: string, param = 'model'): void {
    if (model.disabled) throw new ApiError('model_not_allowed', `The model '${model.slug}' is turned off on this installation by its operator.`, param);
    if (!this.allows(organizationId, model)) {
      throw new ApiError('model_not_allowed', `This organization may not use the model '${model.slug}'; the installation's operator sets which models it may use.`, param);
    }
  }

  /**
   * The model a generation request names, checked in the contract's order:
   * unknown → 404 model_not_found, delisted → 410 model_unavailable, another
   * modality → 400 model_modality_mismatch.
   */
  resolve(nameOrId: string, modality: Modality, param = 'model'): CatalogModel {
    const m = this.find(nameOrId);
    if (!m) throw new ApiError('model_not_found', `No such model: '${nameOrId}'. GET /v1/models lists the catalog.`, param);
    if (m.status === 'delisted') {
      const why = m.retired_on ? `: its provider shut it down on ${m.retired_on}` : '';
      throw new ApiError('model_unavailable', `The model '${m.slug}' has been delisted and is no longer available${why}.`, param);
    }
    if (m.modality !== modality) {
      throw new ApiError('model_modality_mismatch', `The model '${m.slug}' serves ${m.modality}, not ${modality}.`, param);
    }
    return m;
  }
}
