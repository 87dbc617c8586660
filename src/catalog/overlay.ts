import { Decimal } from 'decimal.js';
import type { CatalogOverlay, ModelDefinition } from './definition.js';
import type { CatalogModel } from './types.js';

/**
 * The effective catalog: the shipped models with the operator's changes laid over them (catalog_models), and the
 * models the operator added after them. Pure: the follower (catalog-follower.ts) loads the overlay and the
 * Catalog swaps in what this returns.
 */
export function overlaid(shipped: readonly CatalogModel[], overlay: CatalogOverlay): CatalogModel[] {
  const rows = new Map(overlay.models.map((o) => [o.slug, o]));
  const shippedSlugs = new Set(shipped.map((m) => m.slug));
  const models = shipped.map((m) => {
    const row = rows.get(m.slug);
    const defined = row?.definition ? { ...fromDefinition(row.definition), status: m.status } : m;
    return marked(defined, row?.disabled ?? false, row?.marginPercent ?? overlay.marginPercent);
  });
  for (const row of overlay.models) {
    if (!row.definition || shippedSlugs.has(row.slug)) continue;
    models.push(marked(fromDefinition(row.definition), row.disabled, row.marginPercent ?? overlay.marginPercent));
  }
  return models;
}

/** A definition as a catalog model: active until the lifecycle or the operator says otherwise. */
export function fromDefinition(d: ModelDefinition): CatalogModel {
  const [first, ...rest] = d.routes;
  return {
    slug: d.slug,
    display_name: d.display_name,
    modality: d.modality,
    routes: [{ ...first! }, ...rest.map((r) => ({ ...r }))],
    capabilities: [...d.capabilities],
    unit_cost_usd: d.unit_cost_usd,
    status: 'active',
    ...(d.aliases ? { aliases: [...d.aliases] } : {}),
    ...(d.speech_model ? { speech_model: d.speech_model } : {}),
  };
}

/** A catalog model as the operator's definition of it (what an edit starts from). */
export function definitionOf(m: CatalogModel): ModelDefinition {
  return {
    slug: m.slug,
    display_name: m.display_name,
    modality: m.modality,
    routes: m.routes.map((r) => ({ provider: r.provider, upstream: r.upstream })),
    capabilities: [...m.capabilities],
    unit_cost_usd: m.unit_cost_usd,
    ...(m.aliases ? { aliases: [...m.aliases] } : {}),
    ...(m.speech_model ? { speech_model: m.speech_model } : {}),
  };
}

function marked(m: CatalogModel, disabled: boolean, marginPercent: string | null): CatalogModel {
  const margin = marginPercent !== null && !new Decimal(marginPercent).isZero() ? { margin_percent: new Decimal(marginPercent).toString() } : {};
  return disabled || 'margin_percent' in margin ? { ...m, ...margin, ...(disabled ? { disabled: true } : {}) } : m;
}

/** A US-dollar price with the model's margin on it (the price as published and charged). */
export function withMargin(unitCostUsd: string, marginPercent: string | undefined): string {
  if (marginPercent === undefined) return unitCostUsd;
  return new Decimal(unitCostUsd).mul(new Decimal(marginPercent).div(100).plus(1)).toFixed();
}
