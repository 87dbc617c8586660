import type { ProviderEnv } from '../types.js';

/** ElevenLabs' key and base URL; the bare host, as the official SDK's is. */
export const ELEVENLABS_ENV: ProviderEnv = {
  name: 'elevenlabs',
  keyVar: 'ELEVENLABS_API_KEY',
  baseUrlVar: 'ELEVENLABS_BASE_URL',
  defaultBaseUrl: 'https://api.elevenlabs.io',
};
