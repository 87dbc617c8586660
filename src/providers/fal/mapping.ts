import type { UpstreamRequest } from '../types.js';
import type { UpstreamRecords } from '../upstream-record.js';
import { recordForRequest, upstreamInput } from '../upstream-input.js';

/**
 * mmgen's request fields as a fal endpoint's input, from the endpoint's record
 * (src/providers/fal/models/, docs/upstream-models.md), or from the sibling
 * endpoint it names for what the request carries (fal's …/image-to-video,
 * …/edit, …/text-to-image). Input images travel as data URIs (fal accepts them
 * wherever an `*_url` is expected); the safety checker is on wherever an
 * endpoint has one (the record's `set`), and what it flags is reported as
 * moderation (index.ts).
 */
export function endpointCall(records: UpstreamRecords, req: UpstreamRequest): { endpoint: string; input: Record<string, unknown> } {
  const record = recordForRequest(records, req);
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
