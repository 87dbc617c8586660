import { describe, expect, it } from 'vitest';
import { PollLoop, type RoundEnd } from '../../src/jobs/poll-loop.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A loop whose rounds are counted; each round ends as `ends` says (then 'rest'). */
function counted(pollMs: number, ends: RoundEnd[] = []) {
  const state = { rounds: 0 };
  const loop = new PollLoop(async () => {
    state.rounds++;
    return ends.shift() ?? 'rest';
  }, pollMs);
  return { loop, state };
}

describe('PollLoop', () => {
  it('runs again at once after a full round, and rests pollMs after the others', async () => {
    const { loop, state } = counted(10_000, ['again', 'again']);
    loop.start();
    await sleep(50);
    expect(state.rounds).toBe(3);
    await loop.stop();
  });

  it('wake() ends the rest early; wakeAt() does so at its instant, when that is before the next poll', async () => {
    const { loop, state } = counted(10_000);
    loop.start();
    await sleep(20);
    expect(state.rounds).toBe(1);
    loop.wake();
    await sleep(20);
    expect(state.rounds).toBe(2);
    loop.wakeAt(Date.now() + 30);
    await sleep(10);
    expect(state.rounds).toBe(2);
    await sleep(60);
    expect(state.rounds).toBe(3);
    // Later than the next poll: the poll comes first, no alarm is set.
    loop.wakeAt(Date.now() + 20_000);
    await loop.stop();
  });

  it('stop() waits for the round under way and then runs no more', async () => {
    let release!: () => void;
    let finished = false;
    let rounds = 0;
    const loop = new PollLoop(async () => {
      rounds++;
      await new Promise<void>((r) => (release = r));
      finished = true;
      return 'again';
    }, 10);
    loop.start();
    await sleep(5);
    const stopped = loop.stop();
    expect(loop.stopped).toBe(true);
    release();
    await stopped;
    expect(finished).toBe(true);
    await sleep(30);
    expect(rounds).toBe(1);
  });
});
