import { describe, expect, it } from 'vitest';
import { ReceiverLanes } from '../../src/jobs/receiver-lanes.js';

describe('ReceiverLanes', () => {
  const make = () => {
    let now = 1_000_000;
    const lanes = new ReceiverLanes({ initialCap: 4, normalCap: 32, slowCap: 2, slowMs: 1000, penaltyMs: 60_000 }, () => now);
    return { lanes, advance: (ms: number) => (now += ms) };
  };

  it('a new receiver starts at the initial allowance and earns one more per fast attempt, up to the full one', () => {
    const { lanes, advance } = make();
    expect(lanes.cap('whk_a')).toBe(4);
    for (let i = 0; i < 40; i++) {
      const t = lanes.begin('whk_a');
      advance(5);
      lanes.end('whk_a', t);
      // Keep the lane known between attempts, as a steady stream would.
      lanes.queued('whk_a', 1);
    }
    expect(lanes.cap('whk_a')).toBe(32);
  });

  it('an attempt in flight past slowMs makes the lane slow at once; at its allowance it is blocked from claims', () => {
    const { lanes, advance } = make();
    const starts = [lanes.begin('whk_h'), lanes.begin('whk_h')];
    expect(lanes.mayStart('whk_h')).toBe(true);
    advance(1000);
    expect(lanes.isSlow('whk_h')).toBe(true);
    expect(lanes.cap('whk_h')).toBe(2);
    expect(lanes.mayStart('whk_h')).toBe(false);
    expect(lanes.claimLimits().blocked).toEqual(['whk_h']);
    // Another receiver is untouched.
    expect(lanes.mayStart('whk_other')).toBe(true);
    // Once they time out it stays slow for the penalty, with room for two again.
    advance(14_000);
    for (const t of starts) lanes.end('whk_h', t);
    expect(lanes.cap('whk_h')).toBe(2);
    expect(lanes.claimLimits()).toMatchObject({ blocked: [], roomIds: ['whk_h'], rooms: [2] });
    advance(60_001);
    expect(lanes.isSlow('whk_h')).toBe(false);
  });

  it('a fast attempt clears the mark; idle lanes are forgotten', () => {
    const { lanes, advance } = make();
    let t = lanes.begin('whk_s');
    advance(1500);
    lanes.end('whk_s', t);
    expect(lanes.isSlow('whk_s')).toBe(true);
    t = lanes.begin('whk_s');
    advance(10);
    lanes.end('whk_s', t);
    expect(lanes.isSlow('whk_s')).toBe(false);
    expect(lanes.held('whk_s')).toBe(0);
    expect(lanes.claimLimits()).toEqual({ blocked: [], roomIds: [], rooms: [] });
  });
});
