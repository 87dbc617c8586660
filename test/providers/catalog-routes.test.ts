import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/catalog/index.js';
import { loadConfig } from '../../src/config.js';
import { PROVIDER_DECLARATIONS, PROVIDER_NAMES } from '../../src/providers/index.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import type { SimulatorJobs } from '../../src/providers/simulator/jobs.js';

/** The registry never reaches the simulator's jobs unless the simulator runs one; these checks never do. */
const refuse = () => Promise.reject(new Error('no simulator jobs here'));
const noJobs: SimulatorJobs = { submit: refuse, findByClientRef: refuse, cancel: refuse, get: refuse };

function registryWith(providers: string[]): ProviderRegistry {
  const env: Record<string, string> = { MMGEN_DATA_DIR: '/tmp/mmgen-unused' };
  for (const p of PROVIDER_DECLARATIONS) if (providers.includes(p.name)) env[p.env.keyVar] = 'k';
  return new ProviderRegistry(loadConfig(env), noJobs);
}

describe('catalog routes and the adapter registry', () => {
  const catalog = new Catalog();
  const active = catalog.models.filter((m) => m.status === 'active');

  it('every provider the catalog names is registered, and its adapter is built from its credential', () => {
    const named = [...new Set(catalog.models.flatMap((m) => m.routes.map((r) => r.provider)))];
    expect(PROVIDER_NAMES).toEqual(expect.arrayContaining(named));
    const registry = registryWith(named);
    for (const p of named) expect(registry.byName(p)?.name, p).toBe(p);
  });

  it('with every provider configured, every active model has at least one route an adapter serves, in catalog order', () => {
    const registry = registryWith([...PROVIDER_NAMES]);
    for (const m of active) {
      const routes = registry.routes('live', m);
      expect(routes.length, m.slug).toBeGreaterThan(0);
      expect(routes.length, `${m.slug}: a route names an adapter that does not serve ${m.modality}`).toBe(m.routes.length);
      expect(routes.map((r) => r.adapter.name)).toEqual(m.routes.map((r) => r.provider));
      expect(registry.choose('live', m).adapter.name).toBe(m.routes[0].provider);
    }
  });

  it('routes only reach configured providers; the preferred one first; test keys get the simulator', () => {
    const registry = registryWith(['fal']);
    const flux = catalog.find('flux-schnell')!;
    expect(registry.routes('live', flux).map((r) => r.adapter.name)).toEqual(['fal']);
    expect(registry.routes('live', flux)[0]!.upstreamModel).toBe('fal-ai/flux/schnell');
    expect(registry.routes('test', flux).map((r) => r.adapter.name)).toEqual(['simulator']);
    expect(() => registry.choose('live', catalog.find('gpt-image-1-mini')!)).toThrow(/No provider for 'gpt-image-1-mini' is configured/);
    const both = registryWith(['replicate', 'fal']);
    expect(both.routes('live', flux, 'fal').map((r) => r.adapter.name)).toEqual(['fal', 'replicate']);
  });

  it('credentials: a base URL must be http(s); without a key the provider is not configured', () => {
    expect(() => loadConfig({ OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'ftp://x' })).toThrow(/OPENAI_BASE_URL must use http or https/);
    expect(loadConfig({ OPENAI_BASE_URL: 'http://127.0.0.1:1/v1/' }).providers).toEqual({});
    expect(loadConfig({ OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1/' }).providers.openai).toEqual({ apiKey: 'k', baseUrl: 'http://127.0.0.1:1/v1' });
    expect(loadConfig({ ANTHROPIC_API_KEY: 'k' }).providers.anthropic!.baseUrl).toBe('https://api.anthropic.com');
  });
});
