/**
 * Early dispatch: a synchronous chat completion's provider call starts
 * alongside the statement that reserves its credits, instead of after it, so
 * the reply waits on the slower of the two and not on their sum.
 *
 * What does not change: no answer is released, and no credit moves, until the
 * reservation has committed. If the reservation is refused (402, a changed or
 * revoked key, a paused organization) the provider call is aborted and the
 * caller gets the refusal. What changes is who may pay for a refused
 * request's provider call: the operator, never the caller. That is bounded:
 *
 * - only when this node's last reservation for the organization, at most
 *   HEADROOM_TTL_MS ago, left at least `headroom` times this request's price
 *   free (a new organization, one near empty, or one whose reservation was
 *   last refused here is never dispatched early);
 * - never for a request the cache could answer (it must not reach the
 *   provider at all), one with an input file, or a comparison's child.
 *
 * So the operator's exposure is the provider calls in flight on a node when
 * an organization is drained or a key revoked elsewhere. docs/contract-addenda.md
 * ("Early dispatch") says so to operators; MMGEN_EARLY_DISPATCH_HEADROOM=0
 * turns it off.
 *
 * Glossary:
 * - headroom: the credits an organization had free (balance − held) right
 *   after this node's last reservation for it.
 * - early dispatch: a provider call started before its reservation committed.
 */
import type { AppDeps } from '../../deps.js';
import type { ProviderAdapter, UpstreamRequest, UpstreamStatus } from '../../providers/types.js';
import { clientRef } from './runner.js';
import type { PreparedGeneration } from './create.js';

/** A free-credit reading older than this is not trusted for early dispatch. */
export const HEADROOM_TTL_MS = 60_000;
const MAX_ORGANIZATIONS = 10_000;

type Submitted = { upstreamId: string; status?: UpstreamStatus };

/** Each organization's free credits as this node last saw them (per process, never shared). */
export class Headroom {
  private readonly seen = new Map<string, { free: number; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** After a reservation: what the wallet had free once it was taken. */
  record(organizationId: string, free: number): void {
    this.seen.delete(organizationId);
    if (this.seen.size >= MAX_ORGANIZATIONS) this.seen.delete(this.seen.keys().next().value!);
    this.seen.set(organizationId, { free, at: this.now() });
  }

  /** After a refusal: nothing is dispatched early for it until a reservation succeeds again. */
  refused(organizationId: string): void {
    this.record(organizationId, 0);
  }

  /** Whether the organization was last seen, recently, with `factor` times `price` free. */
  covers(organizationId: string, price: number, factor: number): boolean {
    const s = this.seen.get(organizationId);
    return s !== undefined && this.now() - s.at <= HEADROOM_TTL_MS && s.free >= price * factor;
  }
}

/**
 * One request's early provider call, if it was started. The route creates it
 * empty; createGeneration starts it (when the rules above allow) just before
 * the reserving statement, aborts it if nothing was reserved, and the runner
 * takes its answer in place of submitting.
 */
export class EarlyDispatch {
  private started: { adapter: ProviderAdapter; req: UpstreamRequest; answer: Promise<Submitted>; abort: AbortController } | null = null;
  /** Taken or aborted: a start that comes later does nothing. */
  private closed = false;

  /**
   * Starts the call right after the current step, which sends the reserving statement: the database hears of the
   * request first, and the provider's request is not serialized and written ahead of it.
   */
  startAfterThisStep(deps: AppDeps, p: PreparedGeneration): void {
    process.nextTick(() => this.start(deps, p));
  }

  private start(deps: AppDeps, p: PreparedGeneration): void {
    if (this.closed) return;
    const factor = deps.config.earlyDispatchHeadroom;
    if (factor <= 0 || !p.sync || p.modality !== 'chat' || p.cacheKey || p.image || p.comparisonId) return;
    if (p.price > 0 && !deps.headroom.covers(p.principal.organizationId, p.price, factor)) return;
    const model = deps.catalog.find(p.model);
    const route = model && deps.providers.routes(p.principal.mode, model, p.provider)[0];
    if (!model || !route || route.adapter.name !== p.provider) return;
    const { simulate, ...params } = p.params as Record<string, unknown> & { simulate?: UpstreamRequest['simulate'] };
    const req: UpstreamRequest = { clientRef: clientRef(p.id, 1), attempt: 1, modality: p.modality, model, upstreamModel: route.upstreamModel, params, simulate };
    const abort = new AbortController();
    const answer = route.adapter.submit(req, abort.signal);
    // Awaited by the runner, or dropped after an abort: never an unhandled rejection.
    answer.catch(() => {});
    this.started = { adapter: route.adapter, req, answer, abort };
  }

  /** Nothing was reserved: the provider call must not run on. */
  abort(): void {
    this.closed = true;
    this.started?.abort.abort();
    this.started = null;
  }

  /** The started call, once (the runner's first route); its `abort` is the runner's to call if it goes unused. */
  take(): { adapter: ProviderAdapter; req: UpstreamRequest; answer: Promise<Submitted>; abort: AbortController } | null {
    const s = this.started;
    this.closed = true;
    this.started = null;
    return s;
  }
}
