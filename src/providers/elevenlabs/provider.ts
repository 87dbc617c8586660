import { getPublishedJson, type ProviderDeclaration } from '../declaration.js';
import { ElevenLabsAdapter } from './index.js';

/**
 * ElevenLabs: voice and music. It publishes no per-model schema: its records are checked for lifecycle only. It
 * lists its models (`GET /v1/models`, a bare array, no lifecycle field): its speech models; no music model is
 * known to be listed there, so the list speaks for its text-to-speech records only.
 */
export const elevenlabs: ProviderDeclaration = {
  name: 'elevenlabs',
  // The bare host, as the official SDK's is.
  env: { keyVar: 'ELEVENLABS_API_KEY', baseUrlVar: 'ELEVENLABS_BASE_URL', defaultBaseUrl: 'https://api.elevenlabs.io' },
  records: new URL('./models/', import.meta.url),
  schemaSource: null,
  modelList: {
    async list(credentials) {
      const url = `${credentials.baseUrl}/v1/models`;
      const body = await getPublishedJson(url, { 'xi-api-key': credentials.apiKey });
      if (!Array.isArray(body)) throw new Error(`${url} answered no model list`);
      const models = (body as Array<{ model_id?: unknown }>).flatMap((m) =>
        typeof m.model_id === 'string' ? [{ id: m.model_id, created: null, status: 'active' as const, deprecated: null, shutdown: null }] : [],
      );
      return { source: `GET ${url}`, models };
    },
    covers: (record) => record.call.operation === 'text-to-speech',
  },
  create: ({ credentials, records, policy }) => new ElevenLabsAdapter(credentials, records, policy),
};
