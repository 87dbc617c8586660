/**
 * A nudge from one part of the process to another that may be idle: whoever
 * made work calls notify(); whoever does the work subscribes while it runs.
 * Built once by the composition root, so nothing is assigned after the fact,
 * and a notify() with no subscriber (no worker in this process) is a no-op.
 */
export class Wakeup {
  private readonly subscribers = new Set<() => void>();

  notify(): void {
    for (const fn of this.subscribers) fn();
  }

  /** Returns the unsubscribe. */
  subscribe(fn: () => void): () => void {
    this.subscribers.add(fn);
    return () => {
      this.subscribers.delete(fn);
    };
  }
}
