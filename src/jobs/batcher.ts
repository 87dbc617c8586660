/** The settlement of an enqueued item, which nobody waits for. */
const ignore = (): void => {};

/**
 * Collects items for a few milliseconds and hands them to `run` together, so
 * that one database round trip serves many callers; each caller gets its own
 * item's result (or the batch's error). A batch starts at the first item
 * after a quiet spell and runs `delayMs` later (0: in the same turn of the
 * event loop), or at once when `maxItems` are waiting. An item may say how long
 * it can wait instead: the batch runs when the first of its items is due, taking
 * the others along. Batches run one at a time; what arrives meanwhile waits for
 * the next.
 */
export class Batcher<I, R> {
  private waiting: Array<{ item: I; due: number; resolve: (r: R) => void; reject: (err: unknown) => void }> = [];
  private timer: NodeJS.Timeout | null = null;
  /** When the timer fires (performance.now()), while there is one. */
  private timerDue = Infinity;
  private soon = false;
  private eager = false;
  private running: Promise<void> | null = null;

  constructor(
    private readonly run: (items: I[]) => Promise<R[]>,
    private readonly opts: { delayMs: number; maxItems: number },
  ) {}

  /** `delayMs`: how long this item may wait for others (default: the batcher's). */
  add(item: I, delayMs = this.opts.delayMs): Promise<R> {
    return new Promise<R>((resolve, reject) => this.push(item, delayMs, resolve, reject));
  }

  /**
   * An item nobody waits for: no promise is made for it, and its result and its batch's error are dropped (a `run`
   * given such items handles its own errors). For the many small items of a log, where a promise each was most of
   * their cost.
   */
  enqueue(item: I): void {
    this.push(item, this.opts.delayMs, ignore, ignore);
  }

  private push(item: I, delayMs: number, resolve: (r: R) => void, reject: (err: unknown) => void): void {
    const due = performance.now() + Math.max(0, delayMs);
    this.waiting.push({ item, due, resolve, reject });
    if (this.waiting.length >= this.opts.maxItems) void this.flush();
    else this.schedule(due);
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
    this.timerDue = Infinity;
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

  /** Sets the timer for the earliest due item: `added`, the one just added (the others are already timed), or all. */
  private schedule(added?: number): void {
    if (this.soon || this.running || this.waiting.length === 0) return;
    const due = this.eager ? 0 : (added ?? this.waiting.reduce((min, w) => Math.min(min, w.due), Infinity));
    const wait = due - performance.now();
    if (wait <= 0) {
      // Due now (no delay): run in this turn of the event loop (what is added in the same turn still joins).
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.timerDue = Infinity;
      this.soon = true;
      queueMicrotask(() => void this.flush());
      return;
    }
    // A timer already set for this time or earlier serves; an item that cannot wait as long brings it forward.
    if (this.timer && this.timerDue <= due) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(() => void this.flush(), wait);
  }
}
