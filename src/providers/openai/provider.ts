import type { ProviderDeclaration } from '../declaration.js';
import { OpenAiAdapter } from './index.js';

/** OpenAI: chat, images and speech. It publishes no per-model schema: its records are checked for lifecycle only. */
export const openai: ProviderDeclaration = {
  name: 'openai',
  // The base ends in /v1, as the official SDK's does.
  env: { keyVar: 'OPENAI_API_KEY', baseUrlVar: 'OPENAI_BASE_URL', defaultBaseUrl: 'https://api.openai.com/v1' },
  records: new URL('./models/', import.meta.url),
  schemaSource: null,
  create: ({ credentials, records, policy }) => new OpenAiAdapter(credentials, records, policy),
};
