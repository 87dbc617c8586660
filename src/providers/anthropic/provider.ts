import { getPublishedJson, publishedDate, type ListedModel, type ProviderDeclaration } from '../declaration.js';
import { ANTHROPIC_VERSION, AnthropicAdapter } from './index.js';

const LIFECYCLES = ['active', 'deprecated', 'retired'] as const;

/**
 * Anthropic: chat. It publishes no per-model schema: its records are checked for lifecycle only. It lists its
 * models (`GET /v1/models`, newest first, by `after_id` cursor), each with its `lifecycle`, `deprecated_at` and
 * `retires_at`; retired models only when asked for (`lifecycle[]`, as the official SDK sends it).
 */
export const anthropic: ProviderDeclaration = {
  name: 'anthropic',
  // The bare host, as the official SDK's is.
  env: { keyVar: 'ANTHROPIC_API_KEY', baseUrlVar: 'ANTHROPIC_BASE_URL', defaultBaseUrl: 'https://api.anthropic.com' },
  records: new URL('./models/', import.meta.url),
  schemaSource: null,
  modelList: {
    async list(credentials) {
      const base = `${credentials.baseUrl}/v1/models`;
      const headers = { 'x-api-key': credentials.apiKey, 'anthropic-version': ANTHROPIC_VERSION };
      const models: ListedModel[] = [];
      let after: string | null = null;
      for (;;) {
        const query = new URLSearchParams({ limit: '1000' });
        for (const stage of LIFECYCLES) query.append('lifecycle[]', stage);
        if (after) query.set('after_id', after);
        const page = (await getPublishedJson(`${base}?${query}`, headers)) as {
          data?: Array<{ id?: unknown; created_at?: unknown; lifecycle?: unknown; deprecated_at?: unknown; retires_at?: unknown }>;
          has_more?: unknown;
          last_id?: unknown;
        };
        if (!Array.isArray(page.data)) throw new Error(`${base} answered no model list`);
        for (const m of page.data) {
          if (typeof m.id !== 'string') continue;
          const status = LIFECYCLES.find((s) => s === m.lifecycle) ?? 'active';
          models.push({ id: m.id, created: publishedDate(m.created_at), status, deprecated: publishedDate(m.deprecated_at), shutdown: publishedDate(m.retires_at) });
        }
        if (page.has_more !== true || typeof page.last_id !== 'string') break;
        after = page.last_id;
      }
      return { source: `GET ${base}`, models };
    },
  },
  create: ({ credentials, records, policy }) => new AnthropicAdapter(credentials, records, policy),
};
