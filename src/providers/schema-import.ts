import { NotPublishedError, type ProviderDeclaration } from './declaration.js';
import { PROVIDER_DECLARATIONS } from './index.js';
import type { ProviderCredentials } from './types.js';
import type { UpstreamModelRecord } from './upstream-record.js';

type Json = Record<string, unknown>;

/** The input schema a provider publishes for one of its models, as a record's `input`, and where it was read. */
export interface ImportedSchema {
  input: UpstreamModelRecord['input'];
  /** The provider and model, for the record's `sources`. */
  source: string;
}

/** Why a schema could not be imported, in words for the operator; `field`: the request's field at fault. */
export class SchemaImportError extends Error {
  constructor(
    message: string,
    readonly field: 'provider' | 'upstream',
    /** The provider did not answer as documented (not a 404): worth retrying, not the request's fault. */
    readonly upstreamFault = false,
  ) {
    super(message);
  }
}

/** Reads the input schemas providers publish (Replicate, fal), with this installation's credentials. */
export interface PublishedSchemas {
  read(provider: string, upstream: string): Promise<ImportedSchema>;
}

export function publishedSchemas(
  credentials: Record<string, ProviderCredentials>,
  providers: readonly ProviderDeclaration[] = PROVIDER_DECLARATIONS,
): PublishedSchemas {
  return {
    async read(provider, upstream) {
      const declared = providers.find((p) => p.name === provider);
      if (!declared) throw new SchemaImportError(`No provider '${provider}' is registered; the registered ones are ${providers.map((p) => p.name).join(', ')}.`, 'provider');
      if (!declared.schemaSource) {
        throw new SchemaImportError(
          `${provider} publishes no per-model input schema (Replicate and fal do): give the model's record, with its input written from ${provider}'s documentation (POST /v1/admin/models with records, or mmgen catalog add --file).`,
          'provider',
        );
      }
      const creds = credentials[provider];
      if (!creds) throw new SchemaImportError(`${provider} has no credentials on this installation (${declared.env.keyVar}): its schemas cannot be read.`, 'provider');
      // The lookup needs only the id (and a pinned version, which an import from the provider's latest has none of).
      const stub: UpstreamModelRecord = { upstream, call: {}, sources: ['import'], lifecycle: { deprecated: null, shutdown: null, replacement: null, source: null }, pricing: null, input: { type: 'object', properties: {} }, map: {}, set: {} };
      let published: unknown;
      try {
        published = await declared.schemaSource.published(stub, creds);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (err instanceof NotPublishedError) {
          throw new SchemaImportError(`${provider} publishes no model '${upstream}' (${message}).`, 'upstream');
        }
        throw new SchemaImportError(`${provider}'s schema of '${upstream}' could not be read: ${message}.`, 'upstream', true);
      }
      const o = published as { properties?: unknown; required?: unknown } | undefined;
      if (!o || typeof o.properties !== 'object' || o.properties === null || Array.isArray(o.properties)) {
        throw new SchemaImportError(`${provider} publishes no input schema with properties for '${upstream}'.`, 'upstream');
      }
      const { title: _title, ...rest } = o as Json;
      // What the provider does not list, it refuses: the record says so, and the fakes then refuse it too.
      const input = { ...rest, type: 'object' as const, properties: o.properties as Record<string, unknown>, additionalProperties: false };
      return { input, source: `${provider}'s published input schema of ${upstream}` };
    },
  };
}
