import type { Config } from '../config.js';
import { OpenAiModerationClassifier } from './hosted-openai.js';
import { LocalImageClassifier } from './local-image-classifier.js';
import type { ImageClassifier, TextClassifier } from './types.js';

/** The classifiers the operator's configuration turns on (contract §11). */
export interface Classifiers {
  /** Every output image (and video still) goes through each, in order; the highest score per category counts. */
  image: ImageClassifier[];
  /** Prompts, after the blocklist and the profanity filter (moderation/prompt-screen.ts). */
  text: TextClassifier | undefined;
  /** Stops what they run (the local model's worker threads), once the images they already took are judged. */
  close(): Promise<void>;
  /** While the local classifier's backlog is full: seconds until it is likely through (a Retry-After); else null. */
  saturated(): number | null;
}

/**
 * The local model (on by default: no account needed, nothing leaves the machine) first, then the hosted one when
 * its key is set. The local model loads on its first image, so a process that makes none never pays for it.
 */
export function classifiersFor(config: Config): Classifiers {
  const local = config.moderation.local ? new LocalImageClassifier({ threads: config.moderation.threads, maxBacklog: config.moderation.backlog }) : undefined;
  const h = config.moderation.hosted;
  const hosted = h ? new OpenAiModerationClassifier({ apiKey: h.apiKey, baseUrl: h.baseUrl, model: h.model }) : undefined;
  return {
    image: [...(local ? [local] : []), ...(hosted ? [hosted] : [])],
    text: hosted,
    close: async () => {
      await local?.close();
    },
    saturated: () => (local?.saturated ? local.drainSeconds : null),
  };
}
