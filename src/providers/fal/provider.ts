import { getPublishedJson, type ProviderDeclaration } from '../declaration.js';
import { FalAdapter } from './index.js';

/**
 * fal: image, video, voice, music, avatar, 3D and upscale endpoints. It publishes an OpenAPI document per endpoint
 * (`GET {FAL_OPENAPI_URL}?endpoint_id=…`), on a host of its own.
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
      return name ? doc.components?.schemas?.[name] : undefined;
    },
  },
  create: ({ credentials, records, policy }) => new FalAdapter(credentials, records, policy),
};
