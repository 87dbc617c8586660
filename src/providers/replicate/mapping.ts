import { providerError } from '../http.js';
import type { UpstreamRequest } from '../types.js';
import { upstreamInput } from '../upstream-input.js';
import { upstreamModel } from '../upstream-models.js';

/**
 * Where and how a prediction is created, from the model's record
 * (src/providers/replicate/models/, docs/upstream-models.md): an official
 * model by name (`POST /v1/models/{owner}/{name}/predictions`), a community
 * model by its pinned version (`POST /v1/predictions` with `version`), which
 * is the only way Replicate runs those. The input is the record's mapping of
 * mmgen's fields; input images travel as data URIs.
 */
export function createCall(req: UpstreamRequest): { path: string; json: Record<string, unknown> } {
  const record = upstreamModel('replicate', req.upstreamModel);
  if (!record) throw providerError('replicate', 'bad_request', `has no documented schema for ${req.upstreamModel} in mmgen`);
  const input = upstreamInput(record, req.params, req.image);
  if (record.call.official === false) {
    if (!record.call.version) throw providerError('replicate', 'bad_request', `has no pinned version for the community model ${req.upstreamModel} in mmgen`);
    return { path: 'predictions', json: { version: record.call.version, input } };
  }
  const [owner, name] = req.upstreamModel.split('/');
  return { path: `models/${encodeURIComponent(owner ?? '')}/${encodeURIComponent(name ?? '')}/predictions`, json: { input } };
}
