import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Verifying mmgen webhook deliveries in a receiver. Self-contained (Node's
 * crypto only), so a receiver can import or copy this file alone.
 *
 * Each delivery carries `X-Service-Signature: t=<unix seconds>,v1=<hex>`,
 * where the hex is HMAC-SHA-256 over `<t>.<raw body>` keyed with the webhook's
 * `whsec_…` secret. Several `v1=` entries may appear (a receiver accepts the
 * delivery when any of them matches). It is the scheme Stripe uses, so Stripe's
 * libraries verify mmgen deliveries too.
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

function toBuffer(body: string | Buffer | Uint8Array): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.isBuffer(body) ? body : Buffer.from(body);
}

/** Hex HMAC-SHA-256 of `<timestamp>.<body>` under `secret`. */
export function computeSignature(secret: string, timestamp: number, rawBody: string | Buffer | Uint8Array): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(toBuffer(rawBody)).digest('hex');
}

/** A complete `X-Service-Signature` value; for tests of a receiver, and what mmgen sends. */
export function signatureHeader(secret: string, rawBody: string | Buffer | Uint8Array, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${computeSignature(secret, timestamp, rawBody)}`;
}

function parseHeader(header: string): { timestamp: number; signatures: string[] } {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new WebhookVerificationError('malformed_header', 'The signature header is not a list of key=value pairs.');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined) throw new WebhookVerificationError('malformed_header', 'The signature header has more than one timestamp.');
      if (!/^\d{1,12}$/.test(value)) throw new WebhookVerificationError('malformed_header', 'The signature timestamp is not a number of seconds.');
      timestamp = Number(value);
    } else if (key === 'v1') {
      signatures.push(value);
    }
    // Other keys (future schemes such as v2) are ignored so that old receivers keep working.
  }
  if (timestamp === undefined) throw new WebhookVerificationError('malformed_header', 'The signature header has no timestamp (t=).');
  if (signatures.length === 0) throw new WebhookVerificationError('no_signatures', 'The signature header has no v1 signature.');
  return { timestamp, signatures };
}

/**
 * Checks a delivery and returns its event. Throws WebhookVerificationError
 * when the header is missing or malformed, when no v1 signature matches, or
 * when the timestamp is more than `toleranceSeconds` from now in either
 * direction (0 disables that check; do not, outside tests). `nowSeconds` is
 * for tests.
 */
export function verifyWebhook<T = Record<string, unknown>>(
  rawBody: string | Buffer | Uint8Array,
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
  const { timestamp, signatures } = parseHeader(signatureHeaderValue);
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
