import type { ProviderEnv } from '../types.js';

/** OpenAI's credential and base URL; the base ends in /v1, as the official SDK's does. */
export const OPENAI_ENV: ProviderEnv = {
  name: 'openai',
  keyVar: 'OPENAI_API_KEY',
  baseUrlVar: 'OPENAI_BASE_URL',
  defaultBaseUrl: 'https://api.openai.com/v1',
};
