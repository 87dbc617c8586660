import { describe, expect, it } from 'vitest';
import { Batcher } from '../../src/jobs/batcher.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Batcher', () => {
  function recording(opts: { delayMs: number; maxItems: number }, fail?: (items: number[]) => boolean) {
    const batches: number[][] = [];
    const b = new Batcher<number, string>(async (items) => {
      batches.push(items);
      await sleep(5);
      if (fail?.(items)) throw new Error(`batch ${items.join(',')} failed`);
      return items.map((i) => `r${i}`);
    }, opts);
    return { b, batches };
  }

  it('items added within the delay run as one batch, each caller getting its own result', async () => {
    const { b, batches } = recording({ delayMs: 30, maxItems: 100 });
    const first = b.add(1);
    await sleep(5);
    const rest = [b.add(2), b.add(3)];
    expect(await Promise.all([first, ...rest])).toEqual(['r1', 'r2', 'r3']);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('does not run before the delay, and at once when maxItems are waiting', async () => {
    const { b, batches } = recording({ delayMs: 60_000, maxItems: 3 });
    const some = [b.add(1), b.add(2)];
    await sleep(20);
    expect(batches).toEqual([]);
    const third = b.add(3);
    expect(await Promise.all([...some, third])).toEqual(['r1', 'r2', 'r3']);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('flush runs what waits now; items arriving during a batch form the next one', async () => {
    const { b, batches } = recording({ delayMs: 60_000, maxItems: 100 });
    const one = b.add(1);
    const flushed = b.flush();
    const two = b.add(2); // arrives while batch [1] runs
    await flushed;
    expect(await one).toBe('r1');
    await b.flush();
    expect(await two).toBe('r2');
    expect(batches).toEqual([[1], [2]]);
  });

  it('a failed batch rejects each of its callers, and the next batch runs', async () => {
    const { b, batches } = recording({ delayMs: 5, maxItems: 100 }, (items) => items.includes(1));
    const failed = [b.add(1), b.add(2)].map((p) => p.then(() => 'ok', (err: Error) => err.message));
    expect(await Promise.all(failed)).toEqual(['batch 1,2 failed', 'batch 1,2 failed']);
    expect(await b.add(3)).toBe('r3');
    expect(batches).toEqual([[1, 2], [3]]);
  });

  it('with no delay, the items of one turn of the event loop run together, without a timer', async () => {
    const { b, batches } = recording({ delayMs: 0, maxItems: 100 });
    const all = [b.add(1), b.add(2)];
    await Promise.resolve();
    expect(batches).toEqual([[1, 2]]);
    expect(await Promise.all(all)).toEqual(['r1', 'r2']);
  });

  it('hurry runs what waits at once, and every later item without waiting for the delay', async () => {
    const { b, batches } = recording({ delayMs: 60_000, maxItems: 100 });
    const one = b.add(1);
    await b.hurry();
    expect(await one).toBe('r1');
    const started = Date.now();
    expect(await b.add(2)).toBe('r2');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(batches).toEqual([[1], [2]]);
  });
  it('an item that cannot wait as long brings the batch forward, taking the others along', async () => {
    const { b, batches } = recording({ delayMs: 60_000, maxItems: 100 });
    const started = performance.now();
    const all = [b.add(1), b.add(2, 10), b.add(3)];
    expect(await Promise.all(all)).toEqual(['r1', 'r2', 'r3']);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('an item that may wait longer neither delays a batch due sooner nor runs before its time alone', async () => {
    const { b, batches } = recording({ delayMs: 10, maxItems: 100 });
    const started = performance.now();
    expect(await Promise.all([b.add(1), b.add(2, 60_000)])).toEqual(['r1', 'r2']);
    expect(performance.now() - started).toBeLessThan(1_000);
    const patient = b.add(3, 60_000);
    await sleep(40);
    expect(batches).toEqual([[1, 2]]);
    await b.flush();
    expect(await patient).toBe('r3');
    expect(batches).toEqual([[1, 2], [3]]);
  });

  it('after a batch, what waited meanwhile runs when the first of it is due', async () => {
    const { b, batches } = recording({ delayMs: 60_000, maxItems: 100 });
    const first = b.add(1, 0);
    await Promise.resolve();
    // Batch [1] runs (5 ms); these arrive meanwhile, one of them unable to wait long.
    const later = [b.add(2), b.add(3, 15)];
    expect(await first).toBe('r1');
    const started = performance.now();
    expect(await Promise.all(later)).toEqual(['r2', 'r3']);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(batches).toEqual([[1], [2, 3]]);
  });
  it('enqueued items (nobody waits for them) join the batches of added ones, and their failed batch rejects nothing', async () => {
    const { b, batches } = recording({ delayMs: 30, maxItems: 3 }, (items) => items.includes(5));
    b.enqueue(1);
    const two = b.add(2);
    b.enqueue(3);
    // maxItems reached by an enqueued item: the batch runs at once.
    expect(await two).toBe('r2');
    expect(batches).toEqual([[1, 2, 3]]);
    const rejected: unknown[] = [];
    const onRejection = (err: unknown) => rejected.push(err);
    process.on('unhandledRejection', onRejection);
    try {
      b.enqueue(4);
      b.enqueue(5);
      await sleep(80);
      expect(batches).toEqual([[1, 2, 3], [4, 5]]);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
    expect(rejected).toEqual([]);
  });
});
