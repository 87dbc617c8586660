import type { ProviderDeclaration } from '../declaration.js';
import { ElevenLabsAdapter } from './index.js';

/** ElevenLabs: voice and music. It publishes no per-model schema: its records are checked for lifecycle only. */
export const elevenlabs: ProviderDeclaration = {
  name: 'elevenlabs',
  // The bare host, as the official SDK's is.
  env: { keyVar: 'ELEVENLABS_API_KEY', baseUrlVar: 'ELEVENLABS_BASE_URL', defaultBaseUrl: 'https://api.elevenlabs.io' },
  records: new URL('./models/', import.meta.url),
  schemaSource: null,
  create: ({ credentials, records, policy }) => new ElevenLabsAdapter(credentials, records, policy),
};
