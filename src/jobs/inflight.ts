/**
 * Work this process started and must see through before it exits: synchronous
 * generations run inside HTTP handlers outlive their client's connection, so
 * the HTTP server closing is not the end of them.
 */
export class InflightWork {
  private readonly pending = new Set<Promise<unknown>>();
  private readonly byKey = new Map<string, Promise<unknown>>();

  /** Tracks `p`; with a key (a generation id), readers of that resource can wait for it (`settled`). */
  track<T>(p: Promise<T>, key?: string): Promise<T> {
    this.pending.add(p);
    if (key !== undefined) this.byKey.set(key, p);
    const done = () => {
      this.pending.delete(p);
      if (key !== undefined && this.byKey.get(key) === p) this.byKey.delete(key);
    };
    p.then(done, done);
    return p;
  }

  /** Whether work is tracked under `key` in this process. */
  has(key: string): boolean {
    return this.byKey.has(key);
  }

  /** Resolves once the work tracked under `key` in this process has ended (at once when there is none). */
  async settled(key: string): Promise<void> {
    const p = this.byKey.get(key);
    if (p) await p.then(() => {}, () => {});
  }

  get size(): number {
    return this.pending.size;
  }

  /** Waits for the tracked work, at most `ms`; true when all of it finished. */
  drain(ms: number): Promise<boolean> {
    return settledWithin(this.pending, ms);
  }
}

/** Waits until every promise has settled, or `ms` has passed; true when all settled in time. */
export async function settledWithin(promises: Iterable<Promise<unknown>>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const all = Promise.allSettled([...promises]).then(() => true);
  const result = await Promise.race([all, timeout]);
  clearTimeout(timer);
  return result;
}
