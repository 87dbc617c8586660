import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions, Transport } from '../core/transport.js';
import { anySignal, segment, sleep } from '../core/util.js';
import { APIUserAbortError, WaitTimeoutError } from '../errors.js';
import type { Comparison, ComparisonCreateParams } from '../types.js';
import { isTerminal, type Generations } from './generations.js';

export interface ComparisonWaitOptions {
  /** Give up after this many ms (default 30 minutes), with WaitTimeoutError. */
  timeout?: number;
  signal?: AbortSignal;
  /** Called when a child generation reaches a terminal state, with the child's id and status. */
  onChildDone?: (child: { id: string; model: string; status: string }) => void;
  /** false: poll only. */
  stream?: boolean;
}

export class Comparisons {
  constructor(
    private readonly transport: Transport,
    private readonly generations: Generations,
  ) {}

  /**
   * POST /v1/comparisons: one prompt to 2..N models side by side. Credits for
   * every child are reserved at once, or nothing is (402). Idempotency-keyed.
   */
  create(params: ComparisonCreateParams, options?: RequestOptions): APIPromise<Comparison> {
    return this.transport.request({ method: 'POST', path: '/v1/comparisons', body: params, retry: 'idempotency-key' }, options);
  }

  /** GET /v1/comparisons/{id}: the comparison with all its child generations. */
  get(id: string, options?: RequestOptions): APIPromise<Comparison> {
    return this.transport.request({ method: 'GET', path: `/v1/comparisons/${segment(id)}`, retry: 'idempotent' }, options);
  }

  /**
   * Waits until the comparison is `completed` (every child terminal) and
   * returns it. Follows each unfinished child's event stream (see
   * generations.wait), then reads the comparison.
   */
  async wait(comparison: string | Comparison, options: ComparisonWaitOptions = {}): Promise<Comparison> {
    const id = typeof comparison === 'string' ? comparison : comparison.id;
    let current = typeof comparison === 'string' ? undefined : comparison;
    const timeout = options.timeout ?? 30 * 60_000;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeout);
    const { signal, dispose } = anySignal([options.signal, deadline.signal]);
    try {
      let delay = 500;
      for (;;) {
        current ??= await this.get(id, { signal });
        if (current.status === 'completed') return current;
        const pending = current.generations.filter((g) => !isTerminal(g.status));
        await Promise.all(
          pending.map(async (child) => {
            const done = await this.generations.wait(child.id, { signal, timeout, stream: options.stream ?? true });
            options.onChildDone?.({ id: done.id, model: done.model, status: done.status });
          }),
        );
        // Settling the last child completes the comparison in the same transaction; the pause covers a read that raced it.
        if (pending.length === 0) {
          await sleep(delay, signal);
          delay = Math.min(delay * 1.5, 5000);
        }
        current = undefined;
      }
    } catch (err) {
      if (deadline.signal.aborted && !options.signal?.aborted) throw new WaitTimeoutError(`Comparison ${id} was not completed after ${timeout} ms.`, current);
      if (signal.aborted && !(err instanceof APIUserAbortError)) throw new APIUserAbortError();
      throw err;
    } finally {
      clearTimeout(timer);
      dispose();
    }
  }
}
