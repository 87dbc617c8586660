import { timingSafeEqual } from 'node:crypto';
import { computeSignature, parseSignatureHeader, toBuffer, type RawBody } from './signing.js';

/**
 * Verifying mmgen webhook deliveries in a receiver, on the scheme of
 * signing.ts (what is signed, the header's format). Node's crypto and
 * signing.ts only, so a receiver can import or copy the two files alone.
 *
 * Verify the raw bytes as received, before any JSON parsing: a parsed and
 * re-serialized body no longer matches its signature.
 */

export const DEFAULT_TOLERANCE_SECONDS = 300;

export type WebhookVerificationFailure =
  | 'missing_header'
  | 'malformed_header'
  | 'no_signatures'
  | 'signature_mismatch'
  | 'timestamp_out_of_tolerance'
  | 'invalid_payload';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

/** The body of every delivery. `id` (evt_…) is the deduplication key: a delivery may arrive more than once. */
export interface WebhookEvent<T = Record<string, unknown>> {
  id: string;
  type: string;
  created_at: string;
  data: T;
}

/**
 * Checks a delivery and returns its event. Throws WebhookVerificationError
 * when the header is missing or malformed, when no v1 signature matches, or
 * when the timestamp is more than `toleranceSeconds` from now in either
 * direction (0 disables that check; do not, outside tests). `nowSeconds` is
 * for tests.
 */
export function verifyWebhook<T = Record<string, unknown>>(
  rawBody: RawBody,
  signatureHeaderValue: string | string[] | undefined | null,
  secret: string,
  toleranceSeconds: number = DEFAULT_TOLERANCE_SECONDS,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): WebhookEvent<T> {
  if (typeof secret !== 'string' || secret === '') throw new TypeError('verifyWebhook needs the webhook secret (whsec_…).');
  // A header repeated by a proxy arrives as an array from node:http; only a single value is trusted.
  if (Array.isArray(signatureHeaderValue)) {
    if (signatureHeaderValue.length !== 1) throw new WebhookVerificationError('malformed_header', 'Expected exactly one signature header.');
    signatureHeaderValue = signatureHeaderValue[0];
  }
  if (typeof signatureHeaderValue !== 'string' || signatureHeaderValue.trim() === '') {
    throw new WebhookVerificationError('missing_header', 'The delivery has no X-Service-Signature header.');
  }
  const parsed = parseSignatureHeader(signatureHeaderValue);
  if (!parsed.ok) throw new WebhookVerificationError(parsed.problem, parsed.message);
  const { timestamp, signatures } = parsed.parts;
  const body = toBuffer(rawBody);
  const expected = Buffer.from(computeSignature(secret, timestamp, body), 'hex');
  let matched = false;
  for (const candidate of signatures) {
    if (!/^[0-9a-fA-F]{64}$/.test(candidate)) continue;
    // No early exit: every candidate is compared, each in constant time.
    if (timingSafeEqual(Buffer.from(candidate, 'hex'), expected)) matched = true;
  }
  if (!matched) throw new WebhookVerificationError('signature_mismatch', 'No signature matches the body and the secret.');
  if (toleranceSeconds > 0 && Math.abs(nowSeconds - timestamp) > toleranceSeconds) {
    throw new WebhookVerificationError('timestamp_out_of_tolerance', `The signature timestamp is more than ${toleranceSeconds} s from now.`);
  }
  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'The body is not JSON.');
  }
  const e = event as Partial<WebhookEvent>;
  if (typeof e !== 'object' || e === null || typeof e.id !== 'string' || typeof e.type !== 'string' || typeof e.data !== 'object' || e.data === null) {
    throw new WebhookVerificationError('invalid_payload', 'The body is not an mmgen event.');
  }
  return event as WebhookEvent<T>;
}
