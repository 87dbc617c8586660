import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, parseRetryDelays, retryPolicy, shortestDelayS } from '../../src/domain/webhooks/retry-policy.js';

describe('the webhook retry policy', () => {
  it('by default: attempts 2 to 6 wait 1 min, 5 min, 30 min, 2 h and 12 h; the sixth failure exhausts', () => {
    expect(DEFAULT_RETRY_POLICY.delaysS).toEqual([60, 300, 1800, 7200, 43200]);
    expect(DEFAULT_RETRY_POLICY.maxAttempts).toBe(6);
    expect(shortestDelayS(DEFAULT_RETRY_POLICY)).toBe(60);
  });

  it('gives a delivery its first attempt and one per delay, whatever the schedule', () => {
    for (const delays of [[], [5], [1, 2, 3], [0.05, 0.05, 0.05, 0.05, 0.05], [60, 300, 1800, 7200, 43200, 86400]]) {
      const p = retryPolicy(delays);
      expect(p.maxAttempts, delays.join(',')).toBe(delays.length + 1);
      expect(p.delaysS).toEqual(delays);
    }
  });

  it('is a value: changing the array it was made from, or it, changes nothing', () => {
    const delays = [1, 2, 3];
    const p = retryPolicy(delays);
    delays.push(4);
    expect(p).toEqual({ delaysS: [1, 2, 3], maxAttempts: 4 });
    expect(() => (p.delaysS as number[]).push(5)).toThrow(TypeError);
  });

  it('reads comma-separated seconds, as many as the default schedule has', () => {
    expect(parseRetryDelays('1, 2,3 ,4,5')).toEqual({ ok: true, policy: { delaysS: [1, 2, 3, 4, 5], maxAttempts: 6 } });
    expect(parseRetryDelays('0.05,0.05,0.05,0.05,0.05')).toMatchObject({ ok: true, policy: { maxAttempts: 6 } });
    for (const raw of ['', '1,2,3,4', '1,2,3,4,5,6', '1,2,3,4,-5', '1,2,x,4,5', '1,2,3,4,Infinity', '1,,3,4,5,6']) {
      const parsed = parseRetryDelays(raw);
      expect(parsed.ok, raw).toBe(false);
      if (!parsed.ok) expect(parsed.problem).toBe('must be 5 non-negative numbers of seconds, comma-separated (the waits before attempts 2 to 6)');
    }
  });
});
