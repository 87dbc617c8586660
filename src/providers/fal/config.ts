import type { ProviderEnv } from '../types.js';

/** fal's key and queue host (submissions, status, results and cancels all go there). */
export const FAL_ENV: ProviderEnv = {
  name: 'fal',
  keyVar: 'FAL_KEY',
  baseUrlVar: 'FAL_BASE_URL',
  defaultBaseUrl: 'https://queue.fal.run',
};
