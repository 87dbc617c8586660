import { describe, expect, it } from 'vitest';
import type { CatalogModel } from '../../src/catalog/index.js';
import { publishedPricing } from '../../src/generations/published-prices.js';
import { SHIPPED_RECORDS } from '../../src/providers/upstream-models.js';
import { servedModels } from '../helpers/catalog.js';

/**
 * A model publishes a tier only where its price differs from the default variant's (docs/contract-addenda.md,
 * "Published prices"): held by the publishing code for every record, not by each record's data. Two installations:
 * one serving every route (the dearest prices), one serving only each model's primary route (a fal-only Topaz, whose
 * first output-size tier, up to 24 MP, is the default's $0.08).
 */
const INSTALLATIONS = {
  'every route': { servingRoutes: () => [], records: SHIPPED_RECORDS },
  'the primary route only': { servingRoutes: (_mode: string, m: CatalogModel) => [m.routes[0]], records: SHIPPED_RECORDS },
};

describe('published prices', () => {
  for (const [name, providers] of Object.entries(INSTALLATIONS)) {
    it(`publish no tier whose price equals the default variant's, for any active model (${name})`, () => {
      const same: string[] = [];
      for (const model of servedModels()) {
        const [base, ...tiers] = publishedPricing(providers, model).tiers;
        for (const t of tiers) {
          if (t.credits === base!.credits && t.unit_cost_usd === base!.unit_cost_usd) same.push(`${model.slug} ${JSON.stringify(t.when)} ${t.credits} credits`);
        }
      }
      expect(same).toEqual([]);
    });
  }

  it('still publish the output-size tiers that cost more (Topaz on fal over 24 MP)', () => {
    const topaz = servedModels().find((m) => m.slug === 'topaz-image-upscale')!;
    const tiers = publishedPricing(INSTALLATIONS['the primary route only'], topaz).tiers;
    expect(tiers[0]!.unit_cost_usd).toBe(0.08);
    expect(tiers.slice(1).map((t) => [t.output_megapixels_at_most, t.unit_cost_usd])).toEqual([[48, 0.16], [96, 0.32]]);
  });
});
