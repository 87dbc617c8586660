import type { Config } from '../config.js';
import { OpenAiModerationClassifier } from './hosted-openai.js';
import type { ImageClassifier, TextClassifier } from './types.js';

/**
 * The classifiers the operator's configuration turns on. Not finished: the local image model (nsfwjs, on by
 * default, no account needed) is being added (issue 19); until it lands, images are classified only by the hosted
 * classifier when one is configured, and otherwise by forced verdicts and the providers' own signals.
 */
export interface Classifiers {
  /** Every output image (and video still) goes through each, in order; the highest score per category counts. */
  image: ImageClassifier[];
  /** Prompts, after the blocklist and the profanity filter (moderation/prompt-screen.ts). */
  text: TextClassifier | undefined;
}

export function classifiersFor(config: Config): Classifiers {
  const h = config.moderation.hosted;
  const hosted = h ? new OpenAiModerationClassifier({ apiKey: h.apiKey, baseUrl: h.baseUrl, model: h.model }) : undefined;
  return { image: hosted ? [hosted] : [], text: hosted };
}
