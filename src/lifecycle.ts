import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';

/**
 * Every open event stream listens on the drain signal, each removing its listener when it ends: more than Node's
 * default of 10 at once is the normal case, not a leak, so the warning is turned off for this one signal.
 */
function lifelongController(): AbortController {
  const c = new AbortController();
  setMaxListeners(0, c.signal);
  return c;
}

/**
 * A process's life: serving, then draining once shutdown begins. Draining
 * makes /readyz answer 503 (so a load balancer stops sending), new requests
 * get 503 `service_unavailable` with `Connection: close` (the client sends
 * them again elsewhere), and open event streams end (the client reconnects,
 * with Last-Event-ID, to another node). Work already accepted is finished or
 * handed back by the shutdown sequence (main.ts).
 */
export class Lifecycle {
  private readonly controller = lifelongController();

  get draining(): boolean {
    return this.controller.signal.aborted;
  }

  /** Aborted when draining begins. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  beginDrain(): void {
    if (!this.draining) this.controller.abort();
  }

  private isHalted = false;

  /**
   * The grace period is over: generations still being polled stop at their
   * next step, before touching the database that is about to close, and
   * leave their jobs (whose leases are handed back) to the next worker.
   */
  get halted(): boolean {
    return this.isHalted;
  }

  halt(): void {
    this.beginDrain();
    this.isHalted = true;
  }
}

/**
 * The policy for an exception that escaped every handler (the addenda, "A fault that no handler caught"). Node's
 * default ends the process at once, cutting every request in flight on the node. Instead the fault is logged, the
 * node drains as it does on SIGTERM (readiness 503, new requests 503, requests in flight finish within the grace
 * period, jobs it holds are handed back), and it exits 1 so that its supervisor starts it again. A second fault while
 * stopping is logged and changes nothing; the shutdown's own deadline still bounds the stop.
 */
export function stopOnFatal(log: Pick<Logger, 'fatal'>, stop: (reason: string, exitCode: number) => Promise<void>): void {
  let stopping = false;
  process.on('uncaughtException', (err, origin) => {
    log.fatal({ err, origin }, stopping ? 'another uncaught exception while stopping' : 'uncaught exception: draining, then exiting 1');
    if (stopping) return;
    stopping = true;
    void stop(origin, 1);
  });
}
