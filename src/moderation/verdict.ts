import type { ModerationPolicy } from './policy.js';
import type { Scores } from './types.js';

export type Verdict = 'approved' | 'flagged' | 'blocked';

const RANK: Record<Verdict, number> = { approved: 0, flagged: 1, blocked: 2 };

/** The stricter of verdicts (one file seen several ways, or a video and its thumbnail). */
export function worst(...verdicts: Verdict[]): Verdict {
  return verdicts.reduce<Verdict>((a, b) => (RANK[b] > RANK[a] ? b : a), 'approved');
}

/** The highest score of any category: the policy's threshold is held against it. */
export function topScore(scores: Scores): number {
  return Math.max(0, ...Object.values(scores).filter((v): v is number => typeof v === 'number' && Number.isFinite(v)));
}

/**
 * One file's verdict (contract §11): a forced verdict (`simulate.moderation`, test aid) stands alone; otherwise a
 * classifier score at or above the policy's threshold, or the provider's own signal that the content is unsafe, is
 * acted on as the policy says (flag or block).
 */
export function verdictOf(policy: ModerationPolicy, seen: { scores?: Scores; provider?: Verdict; forced?: Verdict }): Verdict {
  if (seen.forced) return seen.forced;
  const acted: Verdict = policy.action === 'block' ? 'blocked' : 'flagged';
  const byScore = seen.scores && topScore(seen.scores) >= policy.threshold ? acted : 'approved';
  const byProvider = seen.provider && seen.provider !== 'approved' ? acted : 'approved';
  return worst(byScore, byProvider);
}
