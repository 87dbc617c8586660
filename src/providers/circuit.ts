/**
 * A circuit breaker per provider, in the memory of one process (each node
 * learns on its own; no shared state is needed for a breaker to do its job).
 *
 * closed: requests flow; `failureThreshold` consecutive provider-fault
 *   failures (outage, 5xx, 429 not waited out, timeouts, malformed answers)
 *   open it. A success resets the count. Failures that are the request's
 *   own (400, a content-policy refusal) never count.
 * open: nothing is sent for `cooldownMs`; routing skips the provider (falls
 *   back to the model's next route, or answers 503 provider_unavailable).
 * half-open: after the cooldown one trial request is let through; its
 *   success closes the circuit, its failure opens it for another cooldown.
 */
export interface CircuitOptions {
  failureThreshold: number;
  cooldownMs: number;
}

export type CircuitState = 'closed' | 'open' | 'half_open';

export class CircuitBreaker {
  private failures = 0;
  private openedAt: number | null = null;
  private trialInFlight = false;

  constructor(
    readonly name: string,
    private readonly opts: CircuitOptions,
    private readonly now: () => number = Date.now,
  ) {}

  get state(): CircuitState {
    if (this.openedAt === null) return 'closed';
    return this.now() - this.openedAt >= this.opts.cooldownMs ? 'half_open' : 'open';
  }

  /** Milliseconds until an open circuit lets a trial through (0 when it would now). */
  retryInMs(): number {
    if (this.openedAt === null) return 0;
    return Math.max(0, this.opts.cooldownMs - (this.now() - this.openedAt));
  }

  /** Whether a request may be sent now (without claiming the half-open trial). */
  isAvailable(): boolean {
    const s = this.state;
    return s === 'closed' || (s === 'half_open' && !this.trialInFlight);
  }

  /** Claims permission to send one request: in half-open, only one trial at a time. */
  tryAcquire(): boolean {
    const s = this.state;
    if (s === 'closed') return true;
    if (s === 'open' || this.trialInFlight) return false;
    this.trialInFlight = true;
    return true;
  }

  onSuccess(): void {
    this.failures = 0;
    this.openedAt = null;
    this.trialInFlight = false;
  }

  onFailure(): void {
    this.trialInFlight = false;
    if (this.openedAt !== null) {
      // A failed trial (or a late failure while open): another full cooldown.
      this.openedAt = this.now();
      return;
    }
    this.failures++;
    if (this.failures >= this.opts.failureThreshold) this.openedAt = this.now();
  }

  /** A call that ended without telling anything about the provider's health (aborted, the request's own fault). */
  onNeutral(): void {
    this.trialInFlight = false;
  }
}
