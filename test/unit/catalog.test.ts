import { describe, it, expect } from 'vitest';
import { Catalog } from '../../src/catalog/index.js';
import { CATALOG } from '../../src/catalog/models.js';
import { MODALITIES, type CatalogModel, type Modality, type ProviderName } from '../../src/catalog/types.js';
import { PROVIDER_NAMES } from '../../src/providers/index.js';

const active = CATALOG.filter((m) => m.status === 'active');
const delisted = CATALOG.filter((m) => m.status === 'delisted');
const ASYNC_MODALITIES: readonly Modality[] = ['video', 'music', 'avatar', '3d'];

function primary(m: CatalogModel): ProviderName {
  return m.routes[0].provider;
}

function activeWith(modality: Modality | readonly Modality[], provider: ProviderName): CatalogModel[] {
  const mods = typeof modality === 'string' ? [modality] : modality;
  return active.filter((m) => mods.includes(m.modality) && primary(m) === provider);
}

describe('catalog', () => {
  it('has at least 48 active models', () => {
    expect(active.length).toBeGreaterThanOrEqual(48);
  });

  it('has at least 8 active image models and at least 4 active models of every other modality', () => {
    for (const modality of MODALITIES) {
      const n = active.filter((m) => m.modality === modality).length;
      expect(n, `active ${modality} models`).toBeGreaterThanOrEqual(modality === 'image' ? 8 : 4);
    }
  });

  it('has exactly 25 delisted models, spread over several modalities', () => {
    // 14 delisted in release 1.1.1; gpt-image-1, gpt-image-1-mini, claude-sonnet-4, claude-sonnet-4.5, claude-opus-4.1,
    // imagen-4, nano-banana and sora-2 (shut down upstream since), tripo-v2.5 (its endpoint gone from fal's list), and
    // gpt-5 and gpt-5-mini (shipped delisted ahead of their 2026-12-11 shutdown, served until then).
    expect(delisted).toHaveLength(25);
    expect(new Set(delisted.map((m) => m.modality)).size).toBeGreaterThanOrEqual(4);
  });

  it('only uses the two statuses and the known modalities', () => {
    for (const m of CATALOG) {
      expect(['active', 'delisted']).toContain(m.status);
      expect(MODALITIES).toContain(m.modality);
    }
  });

  it('has unique, well-formed slugs', () => {
    const slugs = CATALOG.map((m) => m.slug);
    expect(new Set(slugs).size).toBe(slugs.length);
    for (const slug of slugs) expect(slug).toMatch(/^[a-z0-9][a-z0-9.-]*$/);
  });

  it('declares aliases that name one model each, never another model\'s slug, and resolve to it', () => {
    const owner = new Map<string, string>();
    for (const m of CATALOG) {
      for (const alias of m.aliases ?? []) {
        expect(CATALOG.some((o) => o.slug === alias), `${alias} is a slug`).toBe(false);
        expect(owner.get(alias), `${alias} is declared twice`).toBeUndefined();
        owner.set(alias, m.slug);
        // An alias is a provider's own name for the model: a route's upstream name, a dated snapshot of it, or its undated form.
        expect(m.routes.some((r) => r.upstream === alias || r.upstream.startsWith(`${alias}-`) || alias.startsWith(`${r.upstream}-`)), `${alias} of ${m.slug}`).toBe(true);
      }
    }
    const catalog = new Catalog();
    expect(catalog.resolve('claude-haiku-4-5', 'chat').slug).toBe('claude-haiku-4.5');
    expect(catalog.resolve('claude-haiku-4-5-20251001', 'chat').slug).toBe('claude-haiku-4.5');
    expect(catalog.resolve('eleven_multilingual_v2', 'voice').slug).toBe('eleven-multilingual-v2');
    expect(() => catalog.resolve('claude-haiku-4-5', 'image')).toThrow(/serves chat/);
  });

  it('has a display name and kebab-case capabilities on every model', () => {
    for (const m of CATALOG) {
      expect(m.display_name.trim().length, m.slug).toBeGreaterThan(0);
      expect(m.capabilities.length, m.slug).toBeGreaterThan(0);
      expect(new Set(m.capabilities).size, m.slug).toBe(m.capabilities.length);
      for (const c of m.capabilities) expect(c).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    }
  });

  it('prices every model as a positive finite decimal string', () => {
    for (const m of CATALOG) {
      expect(m.unit_cost_usd, m.slug).toMatch(/^\d+(\.\d+)?$/);
      const n = Number(m.unit_cost_usd);
      expect(Number.isFinite(n), m.slug).toBe(true);
      expect(n, m.slug).toBeGreaterThan(0);
    }
  });

  it('prices chat per output token (well under a cent per token)', () => {
    for (const m of CATALOG.filter((x) => x.modality === 'chat')) {
      expect(Number(m.unit_cost_usd), m.slug).toBeLessThan(0.001);
    }
  });

  it('routes only to known providers, never the same provider twice in one model', () => {
    for (const m of CATALOG) {
      expect(m.routes.length, m.slug).toBeGreaterThanOrEqual(1);
      for (const r of m.routes) {
        expect(PROVIDER_NAMES, m.slug).toContain(r.provider);
        expect(r.upstream.trim().length, m.slug).toBeGreaterThan(0);
      }
      const providers = m.routes.map((r) => r.provider);
      expect(new Set(providers).size, m.slug).toBe(providers.length);
    }
  });

  it('names upstream models in the form each provider expects', () => {
    for (const m of CATALOG) {
      for (const r of m.routes) {
        if (r.provider === 'replicate') expect(r.upstream, m.slug).toMatch(/^[a-z0-9][\w.-]*\/[a-z0-9][\w.-]*$/i);
        else if (r.provider === 'fal') expect(r.upstream, m.slug).toMatch(/^[\w.-]+(\/[\w.-]+)+$/);
        else expect(r.upstream, m.slug).toMatch(/^[\w.-]+$/);
      }
    }
  });

  it('satisfies the mandatory routing facts', () => {
    expect(activeWith('chat', 'openai').length, 'openai chat').toBeGreaterThanOrEqual(1);
    expect(activeWith('image', 'openai').length, 'openai image').toBeGreaterThanOrEqual(1);
    expect(activeWith('voice', 'openai').length, 'openai voice').toBeGreaterThanOrEqual(1);
    expect(activeWith('upscale', 'replicate').length, 'replicate upscale').toBeGreaterThanOrEqual(1);
    expect(activeWith(ASYNC_MODALITIES, 'replicate').length, 'replicate async').toBeGreaterThanOrEqual(1);
    expect(activeWith('chat', 'anthropic').length, 'anthropic chat').toBeGreaterThanOrEqual(1);
    expect(active.filter((m) => primary(m) === 'fal').length, 'fal').toBeGreaterThanOrEqual(1);
    expect(activeWith('voice', 'elevenlabs').length, 'elevenlabs voice').toBeGreaterThanOrEqual(1);
    expect(activeWith('music', 'elevenlabs').length, 'elevenlabs music').toBeGreaterThanOrEqual(1);
  });

  it('makes every provider the primary of some active model', () => {
    for (const p of PROVIDER_NAMES) expect(active.some((m) => primary(m) === p), p).toBe(true);
  });

  it('lists fallback routes on several models', () => {
    expect(active.filter((m) => m.routes.length > 1).length).toBeGreaterThanOrEqual(5);
  });
});
