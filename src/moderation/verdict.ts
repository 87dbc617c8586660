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

/** What the policy does with classifier scores alone: acted on (blocked or flagged) at or above its threshold. */
export function verdictOfScores(policy: ModerationPolicy, scores: Scores | undefined): Verdict {
  if (!scores || topScore(scores) < policy.threshold) return 'approved';
  return policy.action === 'block' ? 'blocked' : 'flagged';
}

/**
 * One file's verdict (contract §11): a forced verdict (`simulate.moderation`, test aid) stands alone; otherwise a
 * classifier score at or above the policy's threshold, or the provider's own signal that the content is unsafe, is
 * acted on as the policy says (flag or block). A synthetic file's scores do not count: the simulator drew it from
 * the request's words and seed, so what it shows is known, and a classifier's guess about it (nsfwjs takes some
 * abstract renders for drawn explicit content) would make test mode fail at random.
 */
export function verdictOf(policy: ModerationPolicy, seen: { scores?: Scores; provider?: Verdict; forced?: Verdict; synthetic?: boolean }): Verdict {
  if (seen.forced) return seen.forced;
  const acted: Verdict = policy.action === 'block' ? 'blocked' : 'flagged';
  const byScore = seen.synthetic ? 'approved' : verdictOfScores(policy, seen.scores);
  const byProvider = seen.provider && seen.provider !== 'approved' ? acted : 'approved';
  return worst(byScore, byProvider);
}
