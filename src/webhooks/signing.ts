import { createHmac } from 'node:crypto';

/**
 * The signature scheme of mmgen's webhook deliveries: the one place that says
 * what is signed and how the header is written and read. The dispatcher signs
 * with it (domain/webhooks/events.ts deliveryHeaders); the receiver helper
 * (verify.ts) checks with it; the SDK's Web Crypto verifier is tested against
 * it (sdk/test/verify-agreement.test.ts).
 *
 * Each delivery carries `X-Service-Signature: t=<unix seconds>,v1=<hex>`,
 * where the hex is HMAC-SHA-256 over `<t>.<raw body>` keyed with the webhook's
 * `whsec_…` secret. Several `v1=` entries may appear (a receiver accepts the
 * delivery when any of them matches); other keys are ignored, so a later
 * scheme can be sent beside v1. It is the scheme Stripe uses, so Stripe's
 * libraries verify mmgen deliveries too.
 *
 * Node's crypto only: a receiver can copy this file and verify.ts alone.
 */

/** The header's name, lower-case as node:http hands it over. */
export const SIGNATURE_HEADER = 'x-service-signature';

export type RawBody = string | Buffer | Uint8Array;

export function toBuffer(body: RawBody): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.isBuffer(body) ? body : Buffer.from(body);
}

/** Hex HMAC-SHA-256 of `<timestamp>.<body>` under `secret`. */
export function computeSignature(secret: string, timestamp: number, rawBody: RawBody): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(toBuffer(rawBody)).digest('hex');
}

/** A complete `X-Service-Signature` value: what mmgen sends, and what a receiver's tests can make. */
export function signatureHeader(secret: string, rawBody: RawBody, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${computeSignature(secret, timestamp, rawBody)}`;
}

export interface SignatureHeaderParts {
  timestamp: number;
  /** The `v1=` values as written, not yet checked to be hex. */
  signatures: string[];
}

export type SignatureHeaderProblem = 'malformed_header' | 'no_signatures';

export type ParsedSignatureHeader = { ok: true; parts: SignatureHeaderParts } | { ok: false; problem: SignatureHeaderProblem; message: string };

/** Reads a header written by signatureHeader (or by a later sender that adds other schemes). */
export function parseSignatureHeader(header: string): ParsedSignatureHeader {
  const malformed = (message: string): ParsedSignatureHeader => ({ ok: false, problem: 'malformed_header', message });
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return malformed('The signature header is not a list of key=value pairs.');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined) return malformed('The signature header has more than one timestamp.');
      if (!/^\d{1,12}$/.test(value)) return malformed('The signature timestamp is not a number of seconds.');
      timestamp = Number(value);
    } else if (key === 'v1') {
      signatures.push(value);
    }
    // Other keys (future schemes such as v2) are ignored so that old receivers keep working.
  }
  if (timestamp === undefined) return malformed('The signature header has no timestamp (t=).');
  if (signatures.length === 0) return { ok: false, problem: 'no_signatures', message: 'The signature header has no v1 signature.' };
  return { ok: true, parts: { timestamp, signatures } };
}
