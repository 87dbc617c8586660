import { getPublishedJson, type ProviderDeclaration } from '../declaration.js';
import { inlineReferences } from '../schema-references.js';
import { ReplicateAdapter } from './index.js';

/**
 * Replicate: image, video, voice, music, avatar, 3D and upscale models. It publishes an OpenAPI schema per model
 * version: `GET /v1/models/{owner}/{name}` (its latest version), or `…/versions/{id}` for a pinned community model.
 * Its model list (`GET /v1/models`) is every public model on Replicate, with no lifecycle: `mmgen catalog sync`
 * reads each recorded model instead, and a 404 there is a model gone.
 */
export const replicate: ProviderDeclaration = {
  name: 'replicate',
  // The base ends in /v1, as the official SDK's does.
  env: { keyVar: 'REPLICATE_API_TOKEN', baseUrlVar: 'REPLICATE_BASE_URL', defaultBaseUrl: 'https://api.replicate.com/v1' },
  records: new URL('./models/', import.meta.url),
  schemaSource: {
    async published(record, credentials) {
      const [owner, name] = record.upstream.split('/');
      const path = record.call.version ? `/models/${owner}/${name}/versions/${record.call.version}` : `/models/${owner}/${name}`;
      const body = (await getPublishedJson(`${credentials.baseUrl}${path}`, { authorization: `Bearer ${credentials.apiKey}` })) as {
        latest_version?: { openapi_schema?: unknown };
        openapi_schema?: unknown;
      };
      const openapi = (record.call.version ? body.openapi_schema : body.latest_version?.openapi_schema) as { components?: { schemas?: { Input?: unknown } } } | undefined;
      // Cog points each enum at a component (`allOf: [{$ref}]`): the schema is read with them in place.
      return inlineReferences(openapi?.components?.schemas?.Input, openapi);
    },
  },
  modelList: null,
  create: ({ credentials, records, policy }) => new ReplicateAdapter(credentials, records, policy),
};
