import type { Queryable } from '../store/db.js';
import { generationVersions } from '../store/generations.js';

/** Only reads; the runtime's ports object (the same one each time) is the key of its watch. */
export interface GenerationWatchPorts {
  db: Queryable;
}

interface Waiter {
  after: number;
  done: (changed: boolean) => void;
}

/**
 * Which watched generations changed, found by ONE query per node every
 * `pollMs` for all of its open event streams, instead of one query per stream.
 * It reads the shared database, so a stream on one node sees a change made by
 * a worker on any other node.
 */
export class GenerationWatch {
  private readonly waiting = new Map<string, Set<Waiter>>();
  private timer: NodeJS.Timeout | null = null;
  private polling = false;

  constructor(
    private readonly db: Queryable,
    private readonly pollMs = 200,
  ) {}

  /**
   * Resolves true once generation `id` has a version above `after` (or is
   * gone), false when `timeoutMs` passes or `signal` aborts first.
   */
  changed(id: string, after: number, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      let set = this.waiting.get(id);
      if (!set) this.waiting.set(id, (set = new Set()));
      const waiter: Waiter = { after, done: (changed) => finish(changed) };
      const timer = setTimeout(() => finish(false), timeoutMs);
      const onAbort = () => finish(false);
      signal.addEventListener('abort', onAbort, { once: true });
      const finish = (changed: boolean) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        const s = this.waiting.get(id);
        s?.delete(waiter);
        if (s && s.size === 0) this.waiting.delete(id);
        resolve(changed);
      };
      set.add(waiter);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.timer || this.polling || this.waiting.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.poll();
    }, this.pollMs);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    this.polling = true;
    try {
      const ids = [...this.waiting.keys()];
      const versions = new Map((await generationVersions(this.db, ids)).map((row) => [row.id, row.version]));
      for (const id of ids) {
        const version = versions.get(id);
        for (const w of [...(this.waiting.get(id) ?? [])]) {
          if (version === undefined || version > w.after) w.done(true);
        }
      }
    } catch {
      // The next poll tries again; streams keep waiting (and pinging) meanwhile.
    } finally {
      this.polling = false;
      this.schedule();
    }
  }
}

const watches = new WeakMap<GenerationWatchPorts, GenerationWatch>();

/** The watch of this process's runtime (one per set of dependencies). */
export function generationWatch(deps: GenerationWatchPorts): GenerationWatch {
  let w = watches.get(deps);
  if (!w) watches.set(deps, (w = new GenerationWatch(deps.db)));
  return w;
}
