import type { ProviderEnv } from '../types.js';

/** Replicate's token and base URL; the base ends in /v1, as the official SDK's does. */
export const REPLICATE_ENV: ProviderEnv = {
  name: 'replicate',
  keyVar: 'REPLICATE_API_TOKEN',
  baseUrlVar: 'REPLICATE_BASE_URL',
  defaultBaseUrl: 'https://api.replicate.com/v1',
};
