import { describe, expect, it } from 'vitest';
import { HEADROOM_TTL_MS, Headroom } from '../../src/generations/headroom.js';

describe('the headroom that early dispatch may claim (early-dispatch.ts)', () => {
  it('claims factor × price of what was last seen free, and no more while earlier claims are open', () => {
    const h = new Headroom(() => 0);
    h.record('org', 1_000);
    expect(h.claim('org', 10, 50)).toBe(500);
    expect(h.claim('org', 10, 50)).toBe(500);
    // 1,000 seen free, 1,000 claimed: a third early call would put more than 1/50 of it at stake.
    expect(h.claim('org', 10, 50)).toBeNull();
    h.release('org', 500);
    expect(h.claim('org', 10, 50)).toBe(500);
  });

  it('claims nothing for an organization never seen, last refused, or seen too long ago', () => {
    let now = 0;
    const h = new Headroom(() => now);
    expect(h.claim('new', 1, 50)).toBeNull();
    h.record('org', 1_000_000);
    h.refused('org');
    expect(h.claim('org', 1, 50)).toBeNull();
    h.record('org', 1_000_000);
    now = HEADROOM_TTL_MS + 1;
    expect(h.claim('org', 1, 50)).toBeNull();
    h.record('org', 1_000_000);
    expect(h.claim('org', 1, 50)).toBe(50);
  });
});
