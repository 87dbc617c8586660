import type { ProviderDeclaration } from '../declaration.js';
import { AnthropicAdapter } from './index.js';

/** Anthropic: chat. It publishes no per-model schema: its records are checked for lifecycle only. */
export const anthropic: ProviderDeclaration = {
  name: 'anthropic',
  // The bare host, as the official SDK's is.
  env: { keyVar: 'ANTHROPIC_API_KEY', baseUrlVar: 'ANTHROPIC_BASE_URL', defaultBaseUrl: 'https://api.anthropic.com' },
  records: new URL('./models/', import.meta.url),
  schemaSource: null,
  create: ({ credentials, records, policy }) => new AnthropicAdapter(credentials, records, policy),
};
