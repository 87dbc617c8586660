/**
 * When a failed webhook delivery is tried again, and when it is given up: the
 * one place that says so. As in Svix's worker, the schedule is the policy: a
 * delivery gets its first attempt plus one per delay, so the attempt count
 * cannot disagree with the delays. Config validation (config.ts), the
 * recording statement (store/deliveries.ts, through jobs/webhook-sender.ts)
 * and the dispatcher's early wake-up all read this object.
 */
export interface RetryPolicy {
  /** Seconds to wait after failed attempt n (1-based) before attempt n + 1: `delaysS[n - 1]`. */
  readonly delaysS: readonly number[];
  /** The first attempt and one per delay; after this many failures a delivery is exhausted. */
  readonly maxAttempts: number;
}

export function retryPolicy(delaysS: readonly number[]): RetryPolicy {
  return Object.freeze({ delaysS: Object.freeze([...delaysS]), maxAttempts: delaysS.length + 1 });
}

/** Service spec §6: attempts 2 to 6 wait 1 min, 5 min, 30 min, 2 h and 12 h; the sixth failure exhausts a delivery. */
export const DEFAULT_RETRY_POLICY = retryPolicy([60, 300, 1800, 7200, 43200]);

export type ParsedRetryDelays = { ok: true; policy: RetryPolicy } | { ok: false; problem: string };

/**
 * Reads a schedule written as comma-separated seconds (`MMGEN_WEBHOOK_RETRY_DELAYS`).
 * The operator tunes the delays, not their number: the spec fixes the attempt
 * count, so a schedule has as many delays as the default one.
 */
export function parseRetryDelays(raw: string): ParsedRetryDelays {
  const delaysS = raw.split(',').map((s) => Number(s.trim()));
  const count = DEFAULT_RETRY_POLICY.delaysS.length;
  if (delaysS.length !== count || delaysS.some((n) => !Number.isFinite(n) || n < 0)) {
    return { ok: false, problem: `must be ${count} non-negative numbers of seconds, comma-separated (the waits before attempts 2 to ${count + 1})` };
  }
  return { ok: true, policy: retryPolicy(delaysS) };
}

/** The wait before the earliest retry any failure can lead to; the dispatcher wakes then instead of at its next poll. */
export function shortestDelayS(policy: RetryPolicy): number {
  return Math.min(...policy.delaysS);
}
