/**
 * Collects items for a few milliseconds and hands them to `run` together, so
 * that one database round trip serves many callers; each caller gets its own
 * item's result (or the batch's error). A batch starts at the first item
 * after a quiet spell and runs `delayMs` later (0: in the same turn of the
 * event loop), or at once when `maxItems` are waiting. Batches run one at a
 * time; what arrives meanwhile waits for the next.
 */
export class Batcher<I, R> {
  private waiting: Array<{ item: I; resolve: (r: R) => void; reject: (err: unknown) => void }> = [];
  private timer: NodeJS.Timeout | null = null;
  private soon = false;
  private eager = false;
  private running: Promise<void> | null = null;

  constructor(
    private readonly run: (items: I[]) => Promise<R[]>,
    private readonly opts: { delayMs: number; maxItems: number },
  ) {}

  add(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (this.waiting.length >= this.opts.maxItems) void this.flush();
      else this.schedule();
    });
  }

  /** From now on every item runs without waiting for others (shutting down); runs whatever waits now. */
  hurry(): Promise<void> {
    this.eager = true;
    return this.flush();
  }

  /** Runs whatever is waiting now (and waits for a batch under way first). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.soon = false;
    while (this.running) await this.running;
    if (this.waiting.length === 0) return;
    const batch = this.waiting.splice(0, this.opts.maxItems);
    this.running = (async () => this.run(batch.map((b) => b.item)))().then(
      (results) => batch.forEach((b, i) => b.resolve(results[i]!)),
      (err: unknown) => batch.forEach((b) => b.reject(err)),
    ).finally(() => {
      this.running = null;
      if (this.waiting.length > 0) this.schedule();
    });
    await this.running;
  }

  private schedule(): void {
    if (this.timer || this.soon || this.running) return;
    // No delay: run in this turn of the event loop (what is added in the same turn still joins).
    if (this.opts.delayMs <= 0 || this.eager) {
      this.soon = true;
      queueMicrotask(() => void this.flush());
    } else this.timer = setTimeout(() => void this.flush(), this.opts.delayMs);
  }
}
