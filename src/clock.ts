/**
 * The time the process acts on for retention (when a request log row, a generation record or a file expires).
 * Injected so that tests move it forward a day instead of waiting one; everything else keeps Date.now().
 */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that runs with the system clock, moved forward by `advance` (tests). */
export class MovableClock implements Clock {
  private offsetMs = 0;
  now(): number {
    return Date.now() + this.offsetMs;
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

/** The UTC calendar day of a time, as YYYY-MM-DD. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export const DAY_MS = 86_400_000;
