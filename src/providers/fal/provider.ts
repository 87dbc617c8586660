import { getPublishedJson, publishedDate, type ListedModel, type ProviderDeclaration } from '../declaration.js';
import { inlineReferences } from '../schema-references.js';
import { FalAdapter } from './index.js';

/**
 * fal: image, video, voice, music, avatar, 3D and upscale endpoints. It publishes an OpenAPI document per endpoint
 * (`GET {FAL_OPENAPI_URL}?endpoint_id=…`), on a host of its own, and lists its endpoints on its platform API
 * (`GET {FAL_PLATFORM_URL}/models`, by `cursor`, each with a `status` of active or deprecated: no date).
 */
export const fal: ProviderDeclaration = {
  name: 'fal',
  // The queue host: submissions, status, results and cancels all go there.
  env: { keyVar: 'FAL_KEY', baseUrlVar: 'FAL_BASE_URL', defaultBaseUrl: 'https://queue.fal.run' },
  records: new URL('./models/', import.meta.url),
  schemaSource: {
    urlVar: { name: 'FAL_OPENAPI_URL', default: 'https://fal.ai/api/openapi/queue/openapi.json' },
    async published(record, credentials) {
      const url = `${credentials.schemaUrl}?endpoint_id=${encodeURIComponent(record.upstream)}`;
      const doc = (await getPublishedJson(url, { authorization: `Key ${credentials.apiKey}` })) as {
        paths?: Record<string, { post?: { requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> } } }>;
        components?: { schemas?: Record<string, unknown> };
      };
      const post = doc.paths?.[`/${record.upstream}`]?.post;
      const ref = post?.requestBody?.content?.['application/json']?.schema?.$ref;
      const name = ref?.split('/').at(-1);
      return name ? inlineReferences(doc.components?.schemas?.[name], doc) : undefined;
    },
  },
  modelList: {
    urlVar: { name: 'FAL_PLATFORM_URL', default: 'https://api.fal.ai/v1' },
    async list(credentials) {
      const base = `${credentials.listUrl}/models`;
      const models: ListedModel[] = [];
      let cursor: string | null = null;
      for (;;) {
        const page = (await getPublishedJson(cursor ? `${base}?cursor=${encodeURIComponent(cursor)}` : base, { authorization: `Key ${credentials.apiKey}` })) as {
          models?: Array<{ endpoint_id?: unknown; metadata?: { status?: unknown; date?: unknown } }>;
          next_cursor?: unknown;
          has_more?: unknown;
        };
        if (!Array.isArray(page.models)) throw new Error(`${base} answered no model list`);
        for (const m of page.models) {
          if (typeof m.endpoint_id !== 'string') continue;
          const status = m.metadata?.status === 'deprecated' ? 'deprecated' : 'active';
          models.push({ id: m.endpoint_id, created: publishedDate(m.metadata?.date), status, deprecated: null, shutdown: null });
        }
        if (page.has_more !== true || typeof page.next_cursor !== 'string') break;
        cursor = page.next_cursor;
      }
      return { source: `GET ${base}`, models };
    },
  },
  create: ({ credentials, records, policy }) => new FalAdapter(credentials, records, policy),
};
