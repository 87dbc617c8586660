import { afterAll, describe, expect, it } from 'vitest';
import { LocalImageClassifier } from '../../src/moderation/local-image-classifier.js';
import { Moderator } from '../../src/moderation/moderator.js';
import { DEFAULT_POLICY } from '../../src/moderation/policy.js';
import { verdictOf } from '../../src/moderation/verdict.js';
import { renderImage } from '../../src/providers/simulator/render/index.js';

/**
 * A synthetic file's verdict (issue 29): the classifiers score it, their scores never decide; a forced verdict and a
 * provider's signal still do. With the real local classifier on a simulator render it misjudges.
 */
describe('verdicts of synthetic files', () => {
  const classifier = new LocalImageClassifier();
  const moderator = new Moderator([classifier]);
  afterAll(() => moderator.close().then(() => classifier.close()));

  /** What the simulator draws for flux-kontext-pro (1024² by default), "a red fox in the snow number 2", seed 1311. */
  const misjudged = () => renderImage({ prompt: 'a red fox in the snow number 2', seed: '1311:0', width: 1024, height: 1024, format: 'png' });

  it('the same bytes: blocked from a provider, approved (and marked overruled) as a simulator render', async () => {
    const { bytes, mime } = await misjudged();
    const [asProvider] = await moderator.judge(DEFAULT_POLICY, [{ bytes, mime, type: 'image' }], { shared: false });
    expect(asProvider!.verdict).toBe('blocked');
    expect(asProvider!.scores.sexual).toBeGreaterThanOrEqual(DEFAULT_POLICY.threshold);
    expect(asProvider!.overruled).toBeUndefined();

    const [asRender] = await moderator.judge(DEFAULT_POLICY, [{ bytes, mime, type: 'image', synthetic: true }], { shared: false });
    expect(asRender).toMatchObject({ verdict: 'approved', overruled: 'blocked' });
    // Scored all the same: the pipeline is the one live traffic takes.
    expect(asRender!.scores).toEqual(asProvider!.scores);

    const flagging = { ...DEFAULT_POLICY, action: 'flag' as const };
    expect((await moderator.judge(flagging, [{ bytes, mime, type: 'image', synthetic: true }], { shared: false }))[0]).toMatchObject({ verdict: 'approved', overruled: 'flagged' });
  });

  it('a forced verdict and a provider signal still act on a synthetic file', async () => {
    const { bytes, mime } = await misjudged();
    for (const forced of ['approved', 'flagged', 'blocked'] as const) {
      const [v] = await moderator.judge(DEFAULT_POLICY, [{ bytes, mime, type: 'image', synthetic: true }], { shared: false, forced });
      expect(v!.verdict).toBe(forced);
    }
    expect(verdictOf(DEFAULT_POLICY, { scores: { sexual: 1 }, synthetic: true })).toBe('approved');
    expect(verdictOf(DEFAULT_POLICY, { scores: { sexual: 0 }, provider: 'blocked', synthetic: true })).toBe('blocked');
    expect(verdictOf({ ...DEFAULT_POLICY, action: 'flag' }, { provider: 'blocked', synthetic: true })).toBe('flagged');
    expect(verdictOf(DEFAULT_POLICY, { scores: { sexual: 0.8 } })).toBe('blocked');
    expect(verdictOf(DEFAULT_POLICY, { scores: { sexual: 0.79 } })).toBe('approved');
  });
});
