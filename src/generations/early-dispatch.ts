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
 *   HEADROOM_TTL_MS ago, left at least `factor` (MMGEN_EARLY_DISPATCH_HEADROOM)
 *   times this request's price free, counting the early calls of the
 *   organization still waiting on their reservation here at `factor` times
 *   their price each (a new organization, one near empty, or one whose
 *   reservation was last refused here is never dispatched early);
 * - never for a request the cache could answer (it must not reach the
 *   provider at all), one with an input file, or a comparison's child.
 *
 * So the provider calls a node has started for an organization and not yet
 * had reserved are worth at most 1/factor of the credits it last saw free:
 * that is the operator's exposure when an organization is drained, or a key
 * revoked, on another node. docs/contract-addenda.md ("Early dispatch") says
 * so to operators; MMGEN_EARLY_DISPATCH_HEADROOM=0 turns it off.
 *
 * Glossary:
 * - headroom: the credits an organization had free (balance − held) right
 *   after this node's last reservation for it.
 * - early dispatch: a provider call started before its reservation committed.
 * - claim: the headroom an early call holds (factor × its price) until its
 *   reservation commits or it is aborted.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { Headroom } from './headroom.js';
import type { ProviderAdapter, UpstreamRequest, UpstreamStatus } from '../providers/types.js';
import { MODALITY_RULES } from './modalities.js';
import { requestFor } from './upstream-request.js';
import type { PreparedGeneration } from './prepared.js';

/** Starting a provider call early: the setting, this node's headroom, the routes, and a log line when it fails. */
export interface EarlyDispatchPorts {
  config: Config;
  headroom: Headroom;
  log: Logger;
  providers: ProviderRegistry;
}

type Submitted = { upstreamId: string; status?: UpstreamStatus };
/** A provider call under way: where it went, what it asked, its answer to come, and how to stop it. */
type StartedCall = { adapter: ProviderAdapter; req: UpstreamRequest; answer: Promise<Submitted>; abort: AbortController };

/**
 * One request's early provider call, if it was started. The route creates it
 * empty; createGeneration starts it (when the rules above allow) as the
 * reserving statement goes out, aborts it if nothing was reserved, and the runner
 * takes its answer in place of submitting.
 */
export class EarlyDispatch {
  private started: StartedCall | null = null;
  /** Taken or aborted: a start that comes later does nothing. */
  private closed = false;
  private release: (() => void) | null = null;

  /**
   * Starts the call once the current step has sent the reserving statement: the statement is the longer of the two
   * round trips, so it goes out first. The pool writes it on a nextTick queued after this one, so the start is put
   * one tick further; not on setImmediate, which let the statement's answer (a refusal) arrive first at times.
   */
  startAfterThisStep(deps: EarlyDispatchPorts, p: PreparedGeneration): void {
    process.nextTick(() =>
      process.nextTick(() => {
        try {
          this.start(deps, p);
        } catch (err) {
          // Early dispatch is an optimization: the runner submits as usual, and the headroom claimed is given back.
          this.abort();
          deps.log.warn({ err, generationId: p.id }, 'early dispatch failed to start');
        }
      }),
    );
  }

  private start(deps: EarlyDispatchPorts, p: PreparedGeneration): void {
    if (this.closed) return;
    const factor = deps.config.earlyDispatchHeadroom;
    if (factor <= 0 || !p.sync || !MODALITY_RULES[p.modality].earlyDispatch || p.cacheKey || p.image || p.comparisonId) return;
    const model = p.catalogModel;
    const route = deps.providers.routes(p.principal.mode, model, p.provider)[0];
    if (!route || route.adapter.name !== p.provider) return;
    const org = p.principal.organizationId;
    // A request that costs nothing (test keys: the simulator) needs no headroom.
    const claim = p.price > 0 ? deps.headroom.claim(org, p.price, factor) : 0;
    if (claim === null) return;
    this.release = () => deps.headroom.release(org, claim);
    const req = requestFor(model, { id: p.id, attempt: 1, modality: p.modality, params: p.params }, route.upstreamModel);
    const abort = new AbortController();
    const answer = route.adapter.submit(req, abort.signal);
    // Awaited by the runner, or dropped after an abort: never an unhandled rejection.
    answer.catch(() => {});
    this.started = { adapter: route.adapter, req, answer, abort };
  }

  private close(): void {
    this.closed = true;
    this.started = null;
    this.release?.();
    this.release = null;
  }

  /** Nothing was reserved (or the runner did not take the call up): the provider call must not run on. */
  abort(): void {
    this.started?.abort.abort();
    this.close();
  }

  /** The started call, once, after its reservation committed (the runner's first route); its `abort` is the runner's to call if it goes unused. */
  take(): StartedCall | null {
    const s = this.started;
    this.close();
    return s;
  }
}
