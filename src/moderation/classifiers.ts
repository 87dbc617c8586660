import type { Config } from '../config.js';
import type { ImageClassifier } from './types.js';

/**
 * The image classifiers the operator's configuration turns on, in the order they run. Not finished: the local
 * model (nsfwjs) and the hosted one (OpenAI's moderation endpoint) are being added (issue 19); until then only
 * forced verdicts and the providers' own signals decide.
 */
export function imageClassifiers(_config: Config): ImageClassifier[] {
  return [];
}
