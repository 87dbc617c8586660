import type { ProviderEnv } from '../types.js';

/** Anthropic's credential and base URL; the bare host, as the official SDK's is. */
export const ANTHROPIC_ENV: ProviderEnv = {
  name: 'anthropic',
  keyVar: 'ANTHROPIC_API_KEY',
  baseUrlVar: 'ANTHROPIC_BASE_URL',
  defaultBaseUrl: 'https://api.anthropic.com',
};
