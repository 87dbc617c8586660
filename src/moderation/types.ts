/**
 * Moderation glossary (contract §11)
 * - score: how likely a piece of content falls in a category, 0 (surely not) to 1 (surely), per classifier.
 * - category: what a classifier scores, in one vocabulary for all of them: `sexual`, `suggestive`, `violence`,
 *   `self_harm`, `hate`, `harassment`, `illicit`, `sexual_minors` (a classifier scores the ones it knows).
 * - verdict: approved, flagged (served, marked) or blocked (never served), from the scores under the
 *   organization's policy (its threshold and action), the provider's own signal, and a forced test verdict.
 */
export const MODERATION_CATEGORIES = ['sexual', 'sexual_minors', 'suggestive', 'violence', 'self_harm', 'hate', 'harassment', 'illicit'] as const;
export type ModerationCategory = (typeof MODERATION_CATEGORIES)[number];
export type Scores = Partial<Record<ModerationCategory, number>>;

/** Classifies one image (PNG, JPEG or WebP bytes). */
export interface ImageClassifier {
  /** For logs and the scores kept with an output, e.g. `nsfwjs-mobilenet-v2`. */
  readonly name: string;
  classify(image: Buffer): Promise<Scores>;
}

/** Classifies one text (a prompt). */
export interface TextClassifier {
  readonly name: string;
  classify(text: string): Promise<Scores>;
}
