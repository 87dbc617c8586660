import { providerError } from '../http.js';
import type { UpstreamRequest } from '../types.js';
import { upstreamInput } from '../upstream-input.js';
import { upstreamModel } from '../upstream-models.js';

/**
 * mmgen's request fields as a fal endpoint's input, from the endpoint's record
 * (src/providers/fal/models/, docs/upstream-models.md). Input images travel as
 * data URIs (fal accepts them wherever an `*_url` is expected); the safety
 * checker is on wherever an endpoint has one (the record's `set`), and what it
 * flags is reported as moderation (index.ts).
 */
export function endpointCall(req: UpstreamRequest): { endpoint: string; input: Record<string, unknown> } {
  let record = upstreamModel('fal', req.upstreamModel);
  if (!record) throw providerError('fal', 'bad_request', `has no documented schema for ${req.upstreamModel} in mmgen`);
  // An edit-only endpoint names its text-only sibling, a text-only one its image sibling (fal's …/image-to-video):
  // the request goes to the one that takes what it carries.
  const siblingId = req.image ? record.call.with_image : record.call.without_image;
  if (siblingId) {
    const sibling = upstreamModel('fal', siblingId);
    if (!sibling) throw providerError('fal', 'bad_request', `has no documented schema for ${siblingId} in mmgen`);
    record = sibling;
  }
  return { endpoint: record.upstream, input: upstreamInput(record, req.params, req.image) };
}

/**
 * The queue addresses a request by its app ("owner/alias", with a namespace
 * prefix such as "workflows/" kept), not by the full endpoint path it was
 * submitted to: status, result and cancel live under `{app}/requests/{id}`.
 */
const NAMESPACES = new Set(['workflows', 'comfy']);

export function appIdOf(endpointId: string): string {
  const parts = endpointId.split('/');
  return (NAMESPACES.has(parts[0]!) ? parts.slice(0, 3) : parts.slice(0, 2)).join('/');
}
