import { shippedRecord } from '../../src/providers/upstream-models.js';

/** The operator credential the catalog tests configure (MMGEN_ADMIN_TOKEN). */
export const ADMIN_TOKEN = 'op-token-0123456789abcdef0123456789';

/** A Replicate model the shipped catalog does not have: FLUX.1 [schnell]'s documented input, under another id. */
export function newReplicateRecord(upstream: string) {
  const shipped = shippedRecord('replicate', 'black-forest-labs/flux-schnell')!;
  return { ...structuredClone(shipped), upstream, sources: [`https://replicate.com/${upstream}/api (test)`] };
}
