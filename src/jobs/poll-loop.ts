/**
 * One background loop: runs a round of work at a time until stopped. After a
 * round that found too little to do it sleeps `pollMs`, unless woken first,
 * by wake() (work was made in this process) or by an alarm set for an instant
 * before the next poll (a retry falls due). The webhook fan-out and the
 * webhook sender each run one.
 */
export type RoundEnd = 'again' | 'rest';

export class PollLoop {
  private stopping = true;
  private running: Promise<void> | null = null;
  private wakeSleeper: (() => void) | null = null;
  private alarm: { timer: NodeJS.Timeout; at: number } | null = null;

  constructor(
    private readonly round: () => Promise<RoundEnd>,
    private readonly pollMs: number,
  ) {}

  get stopped(): boolean {
    return this.stopping;
  }

  start(): void {
    if (this.running) return;
    this.stopping = false;
    this.running = this.run();
  }

  wake(): void {
    this.wakeSleeper?.();
  }

  /** Wakes the loop at `at` (ms since the epoch) if that comes before its next poll would. */
  wakeAt(at: number): void {
    if (this.stopping || at - Date.now() >= this.pollMs || (this.alarm && at >= this.alarm.at)) return;
    if (this.alarm) clearTimeout(this.alarm.timer);
    const timer = setTimeout(() => {
      this.alarm = null;
      this.wake();
    }, Math.max(0, at - Date.now()));
    this.alarm = { timer, at };
  }

  /** Ends the loop after the round under way. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.running;
    this.running = null;
    if (this.alarm) clearTimeout(this.alarm.timer);
    this.alarm = null;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      const end = await this.round();
      if (end === 'rest' && !this.stopping) await this.sleep();
    }
  }

  private sleep(): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.wakeSleeper = null;
        resolve();
      };
      const t = setTimeout(done, this.pollMs);
      this.wakeSleeper = done;
    });
  }
}
