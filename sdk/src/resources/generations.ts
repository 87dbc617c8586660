import type { APIPromise } from '../core/api-promise.js';
import { paginate, type PagePromise } from '../core/pagination.js';
import { parseSSE } from '../core/sse.js';
import type { RequestOptions, Transport } from '../core/transport.js';
import { anySignal, segment, sleep } from '../core/util.js';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, MmgenError, WaitTimeoutError } from '../errors.js';
import { MODALITY_ENDPOINTS } from '../generated/modalities.js';
import type { Generation, GenerationCreateParams, GenerationListParams, GenerationStatus } from '../types.js';

export const TERMINAL_STATUSES: ReadonlySet<GenerationStatus> = new Set(['succeeded', 'failed', 'canceled']);

export function isTerminal(status: string): boolean {
  return TERMINAL_STATUSES.has(status as GenerationStatus);
}

/**
 * The data of a `progress` event: what the provider reports of a running job
 * (contract §5). `percent` (0–100) and `queue_position` only when it reports them.
 */
export interface GenerationProgress {
  generation_id: string;
  stage: 'queued' | 'running' | (string & {});
  percent?: number;
  queue_position?: number;
}

/** An event of GET /v1/generations/{id}/events. */
export type GenerationStreamEvent =
  | { type: 'generation'; id: string | undefined; generation: Generation }
  | { type: 'progress'; id: string | undefined; data: GenerationProgress };

export interface StreamOptions {
  /** Resume after this event id (what the last event's `id` was). */
  lastEventId?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Give up on a stream that sends nothing, not even a ping, for this long (ms; default 60000; mmgen pings every 15 s). */
  idleTimeout?: number;
  /** Retries of the request that opens the stream (default: the client's). */
  maxRetries?: number;
}

export interface WaitOptions {
  /** Give up after this many ms (default 30 minutes), with WaitTimeoutError. */
  timeout?: number;
  signal?: AbortSignal;
  /** Called with each new state: every event of the stream, or each status change seen by polling. */
  onUpdate?: (generation: Generation) => void;
  /**
   * Called with each `progress` event (in order, before the terminal state) where the provider reports
   * progress. Progress travels only on the event stream: while wait() polls (`stream: false`, or no
   * stream to be had), it is not called.
   */
  onProgress?: (progress: GenerationProgress) => void;
  /** false: poll only, never open the event stream. */
  stream?: boolean;
  /** First polling interval in ms (default 500); it grows by half each time up to `maxPollInterval` (default 5000). */
  pollInterval?: number;
  maxPollInterval?: number;
}

/** The stream answered, but not with text/event-stream (a proxy in the way): wait() polls instead. */
export class StreamUnavailableError extends MmgenError {
  override name = 'StreamUnavailableError';
}

const STREAM_ATTEMPTS = 3;

export class Generations {
  constructor(private readonly transport: Transport) {}

  /**
   * One generation of the modality named in `params` (its body, with `modality`), posted to that modality's
   * endpoint as the server declares it (MODALITY_ENDPOINTS). For code that picks the modality at run time; the
   * per-modality methods (`images.create`, …) hold a known model to its own parameters.
   */
  create(params: GenerationCreateParams, options?: RequestOptions): APIPromise<Generation> {
    const { modality, ...body } = params;
    return this.transport.request({ method: 'POST', path: MODALITY_ENDPOINTS[modality].path, body, retry: 'idempotency-key' }, options);
  }

  /** GET /v1/generations/{id}: output URLs are signed afresh on every read. */
  get(id: string, options?: RequestOptions): APIPromise<Generation> {
    return this.transport.request({ method: 'GET', path: `/v1/generations/${segment(id)}`, retry: 'idempotent' }, options);
  }

  /** GET /v1/generations, newest first (filters `status`, `modality`); `for await` walks every page. */
  list(params: GenerationListParams = {}, options?: RequestOptions): PagePromise<Generation> {
    return paginate<Generation>(this.transport, '/v1/generations', params, options);
  }

  /** POST /v1/generations/{id}/cancel: a queued or running generation; everything it reserved is refunded. */
  cancel(id: string, options?: RequestOptions): APIPromise<Generation> {
    return this.transport.request({ method: 'POST', path: `/v1/generations/${segment(id)}/cancel`, retry: 'idempotent' }, options);
  }

  /**
   * POST /v1/generations/{id}/retry: a failed asynchronous generation goes back
   * to `queued`. mmgen first asks the provider about the earlier job, so a
   * result that was only lost is not paid twice. Idempotency-keyed like every
   * credit-consuming POST.
   */
  retry(id: string, options?: RequestOptions): APIPromise<Generation> {
    return this.transport.request({ method: 'POST', path: `/v1/generations/${segment(id)}/retry`, retry: 'idempotency-key' }, options);
  }

  /**
   * GET /v1/generations/{id}/events as an async iterator: the current state at
   * once, then every change; it ends after a terminal state.
   */
  async *stream(id: string, options: StreamOptions = {}): AsyncGenerator<GenerationStreamEvent> {
    const idleTimeout = options.idleTimeout ?? 60_000;
    const idle = new AbortController();
    const { signal, dispose } = anySignal([options.signal, idle.signal]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const touch = () => {
      clearTimeout(timer);
      timer = setTimeout(() => idle.abort(), idleTimeout);
    };
    try {
      const { data: response } = await this.transport.send(
        { method: 'GET', path: `/v1/generations/${segment(id)}/events`, retry: 'idempotent', accept: 'text/event-stream' },
        {
          signal,
          maxRetries: options.maxRetries,
          headers: options.lastEventId !== undefined ? { 'last-event-id': options.lastEventId } : {},
        },
        async (r) => r,
        true,
      );
      if (!(response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream') || !response.body) {
        await response.body?.cancel().catch(() => {});
        throw new StreamUnavailableError(`GET /v1/generations/${id}/events did not answer with an event stream.`);
      }
      touch();
      try {
        for await (const event of parseSSE(response.body, touch)) {
          if (event.event === 'generation') {
            yield { type: 'generation', id: event.id, generation: JSON.parse(event.data) as Generation };
          } else if (event.event === 'progress') {
            let data: GenerationProgress;
            try {
              data = JSON.parse(event.data) as GenerationProgress;
            } catch {
              continue; // not mmgen's progress: nothing a caller could read
            }
            yield { type: 'progress', id: event.id, data };
          }
        }
      } catch (err) {
        if (options.signal?.aborted) throw new APIUserAbortError();
        if (idle.signal.aborted) throw new APIConnectionTimeoutError(`The event stream of ${id} was silent for ${idleTimeout} ms.`);
        if (err instanceof MmgenError) throw err;
        throw new APIConnectionError(`The event stream of ${id} broke: ${(err as Error)?.message ?? err}`, { cause: err });
      }
    } finally {
      clearTimeout(timer);
      // Closes the connection when the caller stops early.
      idle.abort();
      dispose();
    }
  }

  /**
   * Waits until the generation is terminal (succeeded, failed or canceled)
   * and returns it; a failed generation is returned, not thrown (see its
   * `error`). Follows the event stream, reconnecting with Last-Event-ID when
   * it breaks, and falls back to polling with backoff when the stream is
   * unavailable.
   */
  async wait(generation: string | { id: string; status?: string }, options: WaitOptions = {}): Promise<Generation> {
    const id = typeof generation === 'string' ? generation : generation.id;
    if (typeof generation === 'object' && 'outputs' in generation && generation.status && isTerminal(generation.status)) return generation as Generation;
    const timeout = options.timeout ?? 30 * 60_000;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeout);
    const { signal, dispose } = anySignal([options.signal, deadline.signal]);
    let last: Generation | undefined;
    const seen = (g: Generation, always: boolean) => {
      const changed = !last || last.status !== g.status;
      last = g;
      if (always || changed) options.onUpdate?.(g);
    };
    try {
      if (options.stream !== false) {
        const done = await this.followStream(id, signal, seen, options.onProgress);
        if (done) return done;
      }
      return await this.poll(id, signal, seen, options);
    } catch (err) {
      if (deadline.signal.aborted && !options.signal?.aborted) throw new WaitTimeoutError(`Generation ${id} was not finished after ${timeout} ms (last status: ${last?.status ?? 'unknown'}).`, last);
      throw err;
    } finally {
      clearTimeout(timer);
      dispose();
    }
  }

  private async followStream(
    id: string,
    signal: AbortSignal,
    seen: (g: Generation, always: boolean) => void,
    onProgress: ((progress: GenerationProgress) => void) | undefined,
  ): Promise<Generation | undefined> {
    let lastEventId: string | undefined;
    let failures = 0;
    while (failures < STREAM_ATTEMPTS) {
      try {
        // The loop here does the reconnecting, with Last-Event-ID, so the opening request is not retried by itself.
        for await (const event of this.stream(id, { lastEventId, signal, maxRetries: 0 })) {
          if (event.type === 'progress') {
            // A resume after it must not repeat it.
            lastEventId = event.id ?? lastEventId;
            onProgress?.(event.data);
            continue;
          }
          failures = 0;
          lastEventId = event.id ?? lastEventId;
          seen(event.generation, true);
          if (isTerminal(event.generation.status)) return event.generation;
        }
        failures++; // the stream ended before a terminal state (a proxy, or its 30-minute cap): reconnect
      } catch (err) {
        if (signal.aborted) throw new APIUserAbortError();
        if (err instanceof StreamUnavailableError) return undefined;
        if (err instanceof APIError && err.status !== undefined && ![408, 429].includes(err.status) && err.status < 500) {
          // No such route (an older mmgen, a proxy): poll. Anything else (401, 403, an unknown id) polling would answer alike.
          if (err.code === 'route_not_found' || err.status === 405 || (err.status === 404 && err.code === undefined)) return undefined;
          throw err;
        }
        failures++;
      }
      if (failures >= STREAM_ATTEMPTS) break;
      await sleep(250 * 2 ** (failures - 1), signal);
    }
    return undefined;
  }

  private async poll(id: string, signal: AbortSignal, seen: (g: Generation, always: boolean) => void, options: WaitOptions): Promise<Generation> {
    let delay = options.pollInterval ?? 500;
    const max = options.maxPollInterval ?? 5000;
    for (;;) {
      const g = await this.get(id, { signal });
      seen(g, false);
      if (isTerminal(g.status)) return g;
      await sleep(delay, signal);
      delay = Math.min(delay * 1.5, max);
    }
  }
}
