import type { CatalogModel, ModelRoute } from '../catalog/index.js';
import { avatarRouteDemand, routeRefusal, type RouteDemand } from './parameters.js';
import type { Mode } from '../domain/access.js';
import { ApiError } from '../errors.js';
import { CircuitBreaker, type CircuitState } from './circuit.js';
import { adapterOf, type ClosableAdapter, type ProviderDeclaration } from './declaration.js';
import type { HttpPolicy } from './http.js';
import { PROVIDER_DECLARATIONS } from './index.js';
import type { ProviderCredentials } from './types.js';
import type { SimulatorJobs } from './simulator/jobs.js';
import { recordFinder, type RecordFinder } from './upstream-models.js';
import { SHIPPED_ONLY, type ReadonlyRecordsOverlay } from './upstream-record.js';
import { SimulatorProvider } from './simulator/index.js';
import { ProviderError, type ChatStreamChunk, type ProviderAdapter, type UpstreamRequest, type UpstreamStatus } from './types.js';

/**
 * The one registry of upstream adapters. Test-mode keys always get the
 * simulator; live keys get it when MMGEN_SIMULATE_PROVIDERS=1, and otherwise
 * the model's provider routes, in catalog order, among the providers whose
 * credentials are configured.
 *
 * Every real adapter sits behind its provider's circuit breaker (circuit.ts):
 * new work (a submission, a stream) is refused at once while the circuit is
 * open, so routing falls back to the next route instead of waiting on a
 * provider that keeps failing. Status reads and cancels of jobs already
 * running upstream always go through.
 */

/** What the registry reads of the configuration (config.ts's Config is one). */
export interface RegistrySettings {
  /** The configured providers' credentials, by name: those of a registered provider get its adapter. */
  providers: Record<string, ProviderCredentials>;
  simulateProviders: boolean;
  upstream: {
    timeoutMs: number;
    readTimeoutMs: number;
    maxRetryAfterMs: number;
    downloadMaxBytes: number;
    circuitFailureThreshold: number;
    circuitCooldownMs: number;
  };
}

export interface Route {
  adapter: ProviderAdapter;
  /** The model name as this route's provider knows it. */
  upstreamModel: string;
}

export class ProviderRegistry {
  private readonly adapters = new Map<string, ClosableAdapter>();
  private readonly breakers = new Map<string, CircuitBreaker>();
  private readonly simulator: SimulatorProvider;
  private readonly simulateProviders: boolean;
  /**
   * This installation's records of its providers' upstream models: the shipped ones under its operator's (the
   * overlay its catalog follower replaces). Its adapters build requests from them; routing, parameters and prices
   * read them here.
   */
  readonly records: RecordFinder;

  /** `providers`: the registered providers (src/providers/index.ts); a test may name its own. */
  /** `opts.propagate`: the trace context's headers, added to every provider call (main.ts, when tracing is on). */
  /** `opts.records`: the installation's operator records (main.ts); none: the shipped records alone. */
  constructor(
    settings: RegistrySettings,
    simulatorJobs: SimulatorJobs,
    providers: readonly ProviderDeclaration[] = PROVIDER_DECLARATIONS,
    opts: { propagate?: HttpPolicy['propagate']; records?: ReadonlyRecordsOverlay } = {},
  ) {
    const overlay = opts.records ?? SHIPPED_ONLY;
    this.records = recordFinder(providers, overlay);
    this.simulateProviders = settings.simulateProviders;
    this.simulator = new SimulatorProvider(simulatorJobs);
    this.adapters.set(this.simulator.name, this.simulator);
    const u = settings.upstream;
    const policy: HttpPolicy = {
      timeoutMs: u.timeoutMs,
      readTimeoutMs: Math.min(u.readTimeoutMs, u.timeoutMs),
      maxRetryAfterMs: u.maxRetryAfterMs,
      rateLimitRetries: 2,
      maxBodyBytes: u.downloadMaxBytes,
      propagate: opts.propagate,
    };
    for (const provider of providers) {
      const creds = settings.providers[provider.name];
      if (!creds) continue;
      const breaker = new CircuitBreaker(provider.name, { failureThreshold: u.circuitFailureThreshold, cooldownMs: u.circuitCooldownMs });
      this.breakers.set(provider.name, breaker);
      this.adapters.set(provider.name, new CircuitGuardedAdapter(adapterOf(provider, creds, policy, overlay), breaker));
    }
  }

  /** Whether requests in this mode are served by the simulator (and so may steer it with `simulate`). */
  simulates(mode: Mode): boolean {
    return mode === 'test' || this.simulateProviders;
  }

  /**
   * Every route that may serve a new request for the model in this mode, in
   * the order they are tried: `preferred` (the provider a generation was
   * accepted with) first, then the catalog's order. Routes whose provider has
   * no credentials are left out, and so are routes that do not take what the
   * request carries (`demand`: parameters.ts, routeRefusal); open circuits
   * are not (the adapter refuses them at once, and the next route is tried).
   * The simulator plays the first route that takes the request, so test keys
   * are held to the same routes as live ones.
   */
  routes(mode: Mode, model: CatalogModel, preferred?: string | null, demand?: RouteDemand): Route[] {
    const serving = this.servingRoutes(mode, model, demand);
    if (this.simulates(mode)) return serving.map((r) => ({ adapter: this.simulator, upstreamModel: r.upstream }));
    const routes: Route[] = serving.map((r) => ({ adapter: this.adapters.get(r.provider)!, upstreamModel: r.upstream }));
    const first = routes.findIndex((r) => r.adapter.name === preferred);
    if (first > 0) routes.unshift(...routes.splice(first, 1));
    return routes;
  }

  /**
   * The model's catalog routes `routes` serves a request with here, in catalog order: those of configured
   * providers that take it; under the simulator, the one it plays. A reservation prices these (billing/pricing.ts):
   * a route of a provider not configured here can never serve the request.
   */
  servingRoutes(mode: Mode, model: CatalogModel, demand?: RouteDemand): ModelRoute[] {
    const d = demand && avatarRouteDemand(model, demand);
    const takes = (r: ModelRoute) => !d || routeRefusal(this.records, r, d) === null;
    if (this.simulates(mode)) {
      const played = model.routes.find(takes);
      return played ? [played] : [];
    }
    return model.routes.filter((r) => {
      const adapter = this.adapters.get(r.provider);
      return adapter !== undefined && adapter !== this.simulator && adapter.modalities.includes(model.modality) && takes(r);
    });
  }

  /**
   * The route a new generation is accepted with: the first whose provider is
   * configured, which takes the request, and whose circuit is not open. Routes
   * configured but none taking the request: 400 naming the field the first
   * one refuses. None configured, or every circuit open: 503
   * provider_unavailable. All before anything is reserved.
   */
  choose(mode: Mode, model: CatalogModel, demand?: RouteDemand): Route {
    const routes = this.routes(mode, model, undefined, demand);
    const available = routes.find((r) => this.breakers.get(r.adapter.name)?.isAvailable() ?? true);
    if (available) return available;
    if (routes.length > 0) {
      const wait = Math.min(...routes.map((r) => this.breakers.get(r.adapter.name)?.retryInMs() ?? 0));
      throw new ApiError(
        'provider_unavailable',
        `Every provider of '${model.slug}' (${routes.map((r) => r.adapter.name).join(', ')}) is failing; mmgen stopped sending to them for now. Try again shortly.`,
        'model',
      ).withHeader('Retry-After', String(Math.max(1, Math.ceil(wait / 1000))));
    }
    const configured = this.simulates(mode) ? model.routes : model.routes.filter((r) => this.adapters.has(r.provider));
    const refusal = demand && configured.length > 0 ? routeRefusal(this.records, configured[0]!, avatarRouteDemand(model, demand)) : null;
    if (refusal) {
      const others = configured.length > 1 ? `, and no other route ${this.simulates(mode) ? '' : 'configured here '}takes it either` : '';
      throw new ApiError(
        'parameter_invalid',
        `'${model.slug}' cannot serve this request: ${refusal.message}${others}. GET /v1/models/${model.slug} lists its parameters.`,
        refusal.param,
      );
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

  /** The circuit of a configured provider (for metrics, logs and tests). */
  circuitState(name: string): CircuitState | undefined {
    return this.breakers.get(name)?.state;
  }

  async close(): Promise<void> {
    await Promise.all([...this.adapters.values()].map((a) => a.close?.()));
  }
}

/** Refuses new work while the provider's circuit is open, and tells the breaker how each call went. */
class CircuitGuardedAdapter implements ClosableAdapter {
  readonly name: string;
  readonly modalities: ProviderAdapter['modalities'];

  constructor(
    private readonly inner: ClosableAdapter,
    private readonly breaker: CircuitBreaker,
  ) {
    this.name = inner.name;
    this.modalities = inner.modalities;
  }

  private refuse(): ProviderError {
    return new ProviderError(`${this.name}: not sent, the provider kept failing (circuit open for another ${Math.ceil(this.breaker.retryInMs() / 1000)} s)`, {
      kind: 'overloaded',
      retryable: true,
      accepted: false,
      origin: 'provider',
      retryAfterMs: this.breaker.retryInMs(),
    });
  }

  private record(err: unknown, signal?: AbortSignal): void {
    if (signal?.aborted) this.breaker.onNeutral();
    // A provider that answers a bad request or a refusal is up; only its own failures count.
    else if (err instanceof ProviderError && !err.isProviderFault) this.breaker.onSuccess();
    else this.breaker.onFailure();
  }

  async submit(req: UpstreamRequest, signal?: AbortSignal): Promise<{ upstreamId: string; status?: UpstreamStatus }> {
    if (!this.breaker.tryAcquire()) throw this.refuse();
    try {
      const r = await this.inner.submit(req, signal);
      this.breaker.onSuccess();
      return r;
    } catch (err) {
      this.record(err, signal);
      throw err;
    }
  }

  async *streamChat(req: UpstreamRequest, signal?: AbortSignal): AsyncIterable<ChatStreamChunk> {
    if (!this.inner.streamChat) throw new ProviderError(`${this.name}: cannot stream`, { kind: 'bad_request', retryable: false, accepted: false, origin: 'gateway' });
    if (!this.breaker.tryAcquire()) throw this.refuse();
    let settled = false;
    try {
      for await (const chunk of this.inner.streamChat(req, signal)) {
        if (!settled) {
          // The provider is answering: healthy, whatever happens to this stream later.
          settled = true;
          this.breaker.onSuccess();
        }
        yield chunk;
      }
      if (!settled) this.breaker.onSuccess();
    } catch (err) {
      if (!settled) this.record(err, signal);
      throw err;
    } finally {
      if (!settled) this.breaker.onNeutral();
    }
  }

  poll(upstreamId: string, req: UpstreamRequest): Promise<UpstreamStatus> {
    return this.inner.poll(upstreamId, req);
  }

  cancel(upstreamId: string): Promise<void> {
    return this.inner.cancel(upstreamId);
  }

  findByClientRef(clientRef: string): Promise<string | null> {
    return this.inner.findByClientRef(clientRef);
  }

  close(): Promise<void> {
    return this.inner.close?.() ?? Promise.resolve();
  }
}
