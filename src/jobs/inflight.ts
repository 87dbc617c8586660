/**
 * Work this process started and must see through before it exits: synchronous
 * generations run inside HTTP handlers outlive their client's connection, so
 * the HTTP server closing is not the end of them.
 */
export class InflightWork {
  private readonly pending = new Set<Promise<unknown>>();

  track<T>(p: Promise<T>): Promise<T> {
    this.pending.add(p);
    const done = () => this.pending.delete(p);
    p.then(done, done);
    return p;
  }

  get size(): number {
    return this.pending.size;
  }

  /** Waits for the tracked work, at most `ms`; true when all of it finished. */
  async drain(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const all = Promise.allSettled([...this.pending]).then(() => true);
    const result = await Promise.race([all, timeout]);
    clearTimeout(timer);
    return result;
  }
}
