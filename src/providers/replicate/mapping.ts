import { providerError } from '../http.js';
import type { UpstreamRequest } from '../types.js';
import type { UpstreamRecords } from '../upstream-record.js';
import { recordForRequest, upstreamInput } from '../upstream-input.js';

export interface CreateCall {
  path: string;
  json: Record<string, unknown>;
  /** How the prediction will be listed: by `model` (an official model) or by `version` (a community one), with this input. */
  model: string | null;
  version: string | null;
  input: Record<string, unknown>;
}

/**
 * Where and how a prediction is created, from the model's record
 * (src/providers/replicate/models/, docs/upstream-models.md): an official
 * model by name (`POST /v1/models/{owner}/{name}/predictions`), a community
 * model by its pinned version (`POST /v1/predictions` with `version`), which
 * is the only way Replicate runs those. The input is the record's mapping of
 * mmgen's fields; input images travel as data URIs.
 */
export function createCall(records: UpstreamRecords, req: UpstreamRequest): CreateCall {
  const record = recordForRequest(records, req);
  const input = upstreamInput(record, req.params, req.image);
  if (record.call.official === false) {
    if (!record.call.version) throw providerError('replicate', 'bad_request', `has no pinned version for the community model ${record.upstream} in mmgen`);
    return { path: 'predictions', json: { version: record.call.version, input }, model: null, version: record.call.version, input };
  }
  const [owner, name] = record.upstream.split('/');
  return { path: `models/${encodeURIComponent(owner ?? '')}/${encodeURIComponent(name ?? '')}/predictions`, json: { input }, model: record.upstream, version: null, input };
}
