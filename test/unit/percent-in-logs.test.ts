import { describe, expect, it } from 'vitest';
import { percentInLogs } from '../../src/providers/types.js';

describe('percentInLogs: the progress a model prints in its logs', () => {
  it('reads the last progress bar, tqdm percentages and counts alike', () => {
    expect(percentInLogs('Using seed: 7\n 45%|████▌     | 9/20 [00:02<00:02, 4.50it/s]')).toBe(45);
    expect(percentInLogs(' 10%|█ | 2/20 [00:00<00:04]\n 55%|█████▌ | 11/20 [00:02<00:02]')).toBe(55);
    expect(percentInLogs('step 3/12 [00:01<00:03]')).toBe(25);
    expect(percentInLogs('100%|██████████| 20/20 [00:04<00:00]')).toBe(100);
  });

  it('finds none where there is none, and never reads a larger number by its tail', () => {
    expect(percentInLogs('')).toBeUndefined();
    expect(percentInLogs('Loading model weights')).toBeUndefined();
    expect(percentInLogs('gpu memory at 1000%')).toBeUndefined();
    expect(percentInLogs('ratio 12.5% of 1050%')).toBe(12);
  });

  it('a second phase starts again from its own bar (the last one printed)', () => {
    expect(percentInLogs('Loading checkpoint shards: 100%|██████████| 3/3 [00:01<00:00]\n  5%|▌         | 1/20 [00:00<00:04]')).toBe(5);
  });
});
