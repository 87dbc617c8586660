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
  /** Stops what they run (the local model's worker thread). */
  close(): Promise<void>;
}

/**
 * The local model (on by default: no account needed, nothing leaves the machine) first, then the hosted one when
 * its key is set. The local model loads on its first image, so a process that makes none never pays for it.
 */
export function classifiersFor(config: Config): Classifiers {
  const local = config.moderation.local ? new LocalImageClassifier() : undefined;
  const h = config.moderation.hosted;
  const hosted = h ? new OpenAiModerationClassifier({ apiKey: h.apiKey, baseUrl: h.baseUrl, model: h.model }) : undefined;
  return {
    image: [...(local ? [local] : []), ...(hosted ? [hosted] : [])],
    text: hosted,
    close: async () => {
      await local?.close();
    },
  };
}
