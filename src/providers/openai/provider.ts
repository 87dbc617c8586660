import { getPublishedJson, publishedDate, type ProviderDeclaration } from '../declaration.js';
import { OpenAiAdapter } from './index.js';

/**
 * OpenAI: chat, images and speech. It publishes no per-model schema: its records are checked for lifecycle only.
 * It lists its models (`GET /v1/models`, one page: the SDK's "no pagination actually occurs yet"), each with the
 * `shutdown_date` it has announced (YYYY-MM-DD, or null).
 */
export const openai: ProviderDeclaration = {
  name: 'openai',
  // The base ends in /v1, as the official SDK's does.
  env: { keyVar: 'OPENAI_API_KEY', baseUrlVar: 'OPENAI_BASE_URL', defaultBaseUrl: 'https://api.openai.com/v1' },
  records: new URL('./models/', import.meta.url),
  schemaSource: null,
  modelList: {
    async list(credentials) {
      const url = `${credentials.baseUrl}/models`;
      const body = (await getPublishedJson(url, { authorization: `Bearer ${credentials.apiKey}` })) as {
        data?: Array<{ id?: unknown; created?: unknown; shutdown_date?: unknown }>;
      };
      if (!Array.isArray(body.data)) throw new Error(`${url} answered no model list`);
      const models = body.data.flatMap((m) => {
        if (typeof m.id !== 'string') return [];
        const shutdown = publishedDate(m.shutdown_date);
        return [{ id: m.id, created: publishedDate(m.created), status: shutdown ? ('deprecated' as const) : ('active' as const), deprecated: null, shutdown }];
      });
      return { source: `GET ${url}`, models };
    },
  },
  create: ({ credentials, records, policy }) => new OpenAiAdapter(credentials, records, policy),
};
