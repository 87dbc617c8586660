import type { CatalogModel } from '../catalog/index.js';
import type { Config } from '../config.js';
import type { Mode } from '../domain/access.js';
import { ApiError } from '../errors.js';
import type { Db } from '../store/db.js';
import { SimulatorProvider } from './simulator/index.js';
import type { ProviderAdapter } from './types.js';

/**
 * Chooses the adapter for a request. Test-mode keys always get the simulator;
 * live keys get it when MMGEN_SIMULATE_PROVIDERS=1, and otherwise the model's
 * provider routes in order. Real upstream adapters are not built yet (issue 5):
 * until then a live request without the simulator answers 503
 * provider_unavailable before anything is reserved.
 */
export class ProviderRegistry {
  private readonly adapters = new Map<string, ProviderAdapter>();

  constructor(
    private readonly config: Config,
    db: Db,
  ) {
    const sim = new SimulatorProvider(db);
    this.adapters.set(sim.name, sim);
  }

  /** The adapter a new generation will use, and the upstream model name it understands. */
  choose(mode: Mode, model: CatalogModel): { adapter: ProviderAdapter; upstreamModel: string } {
    if (mode === 'test' || this.config.simulateProviders) {
      return { adapter: this.byName('simulator')!, upstreamModel: model.routes[0].upstream };
    }
    for (const route of model.routes) {
      const adapter = this.adapters.get(route.provider);
      if (adapter) return { adapter, upstreamModel: route.upstream };
    }
    throw new ApiError(
      'provider_unavailable',
      `No provider for '${model.slug}' is configured (${model.routes.map((r) => r.provider).join(', ')}). ` +
        'Set the provider credentials, or MMGEN_SIMULATE_PROVIDERS=1 to serve live keys with the simulator.',
      'model',
    );
  }

  byName(name: string): ProviderAdapter | undefined {
    return this.adapters.get(name);
  }
}
