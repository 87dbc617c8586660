/**
 * Verifying mmgen's webhook deliveries, with Web Crypto only (crypto.subtle),
 * so the same code runs in Node 20+, browsers, Deno, Bun and edge runtimes.
 *
 * Each delivery carries `X-Service-Signature: t=<unix seconds>,v1=<hex>`, the
 * hex being HMAC-SHA-256 over `<t>.<raw body>` keyed with the webhook's
 * `whsec_…` secret (the scheme Stripe uses). Verify the raw bytes as received,
 * before any JSON parsing: a re-serialized body no longer matches.
 */
import { WebhookVerificationError } from './errors.js';
import type { Generation } from './types.js';

export const DEFAULT_TOLERANCE_SECONDS = 300;

interface EventBase<Type extends string, Data> {
  /** `evt_…`: the deduplication key. The same event may be delivered more than once. */
  id: string;
  type: Type;
  /** ISO 8601 UTC. */
  created_at: string;
  data: Data;
}

export type GenerationCompletedEvent = EventBase<
  'generation.completed',
  { generation_id: string; modality: Generation['modality']; status: 'succeeded'; charged_credits: number; comparison_id?: string }
>;
export type GenerationFailedEvent = EventBase<
  'generation.failed',
  {
    generation_id: string;
    modality: Generation['modality'];
    status: 'failed';
    charged_credits: number;
    refunded_credits: number;
    error: { type: string; code: string; message: string } | null;
    comparison_id?: string;
  }
>;
export type ComparisonCompletedEvent = EventBase<'comparison.completed', { comparison_id: string; status: 'completed'; generation_ids: string[] }>;
/**
 * A budget reached a threshold. Whose budget: a key's has `api_key_id`, a member's (all of their keys) `member_id`,
 * the organization's neither (both null).
 */
export type BudgetThresholdEvent = EventBase<
  'usage.budget_threshold',
  {
    api_key_id: string | null;
    member_id: string | null;
    organization_id: string;
    threshold_percent: 50 | 80 | 100;
    monthly_budget_usd: number;
    spent_usd: number;
    period: string;
  }
>;
export type AnomalyDetectedEvent = EventBase<
  'usage.anomaly_detected',
  { organization_id: string; window_minutes: number; spent_usd: number; baseline_usd: number; paused: true }
>;
/** An automatic top-up's payment failed (live mode); `auto_topup_stopped` when this failure turned auto top-up off. */
export type AutoTopupFailedEvent = EventBase<
  'billing.auto_topup_failed',
  {
    organization_id: string;
    payment_id: string;
    amount: number;
    currency: string;
    credits: number;
    reason: string;
    message: string;
    requires_action: boolean;
    consecutive_failures: number;
    auto_topup_stopped: boolean;
  }
>;
/** Sent by POST /v1/webhooks/{id}/test. */
export type WebhookTestEvent = EventBase<'webhook.test', { webhook_id: string; message: string }>;

/** Every event mmgen sends; narrow on `type`. */
export type WebhookEvent = GenerationCompletedEvent | GenerationFailedEvent | ComparisonCompletedEvent | BudgetThresholdEvent | AnomalyDetectedEvent | AutoTopupFailedEvent | WebhookTestEvent;
export type WebhookEventType = WebhookEvent['type'];

export interface VerifyWebhookOptions {
  /** Largest accepted distance between the signature's time and now, in seconds (default 300). 0 turns the check off: never do that outside tests. */
  toleranceSeconds?: number;
  /** "Now" in unix seconds, for tests. */
  nowSeconds?: number;
}

const encoder = new TextEncoder();

function bytesOf(body: string | ArrayBuffer | ArrayBufferView): Uint8Array {
  if (typeof body === 'string') return encoder.encode(body);
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError('verifyWebhook needs the raw body (a string or bytes) exactly as received, not a parsed object.');
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
    // Other schemes (a future v2) are ignored so that this receiver keeps working.
  }
  if (timestamp === undefined) throw new WebhookVerificationError('malformed_header', 'The signature header has no timestamp (t=).');
  if (signatures.length === 0) throw new WebhookVerificationError('no_signatures', 'The signature header has no v1 signature.');
  return { timestamp, signatures };
}

function hexToBytes(hex: string): Uint8Array | undefined {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return undefined;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Equal-length comparison whose time does not depend on where the bytes differ. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** HMAC-SHA-256 of `<timestamp>.<body>` under `secret`. */
export async function computeSignature(secret: string, timestamp: number, rawBody: string | ArrayBuffer | ArrayBufferView): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const prefix = encoder.encode(`${timestamp}.`);
  const body = bytesOf(rawBody);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix, 0);
  message.set(body, prefix.length);
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, message));
}

/** A complete `X-Service-Signature` value, as mmgen sends it; for testing your receiver. */
export async function signWebhookPayload(secret: string, rawBody: string | ArrayBuffer | ArrayBufferView, timestamp = Math.floor(Date.now() / 1000)): Promise<string> {
  const mac = await computeSignature(secret, timestamp, rawBody);
  return `t=${timestamp},v1=${Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * Checks a delivery and returns its event. Throws WebhookVerificationError
 * when the header is missing or malformed, when no v1 signature matches the
 * body under `secret`, or when the signature's timestamp is more than
 * `toleranceSeconds` from now (either way: replays are refused).
 *
 *   const event = await verifyWebhook(rawBody, req.headers['x-service-signature'], secret);
 *   if (event.type === 'generation.completed') … event.data.generation_id
 */
export async function verifyWebhook(
  rawBody: string | ArrayBuffer | ArrayBufferView,
  signatureHeader: string | string[] | null | undefined,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  if (typeof secret !== 'string' || secret === '') throw new TypeError('verifyWebhook needs the webhook secret (whsec_…).');
  const body = bytesOf(rawBody);
  // A header repeated by a proxy arrives as an array from node:http; only a single value is trusted.
  let header = signatureHeader;
  if (Array.isArray(header)) {
    if (header.length !== 1) throw new WebhookVerificationError('malformed_header', 'Expected exactly one X-Service-Signature header.');
    header = header[0];
  }
  if (typeof header !== 'string' || header.trim() === '') throw new WebhookVerificationError('missing_header', 'The delivery has no X-Service-Signature header.');
  const { timestamp, signatures } = parseHeader(header);
  const expected = await computeSignature(secret, timestamp, body);
  let matched = false;
  for (const candidate of signatures) {
    const bytes = hexToBytes(candidate);
    // No early exit: every candidate is compared, each in constant time.
    if (bytes && constantTimeEqual(bytes, expected)) matched = true;
  }
  if (!matched) throw new WebhookVerificationError('signature_mismatch', 'No signature matches the body and the secret.');
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (tolerance > 0 && Math.abs(now - timestamp) > tolerance) {
    throw new WebhookVerificationError('timestamp_out_of_tolerance', `The signature timestamp is ${Math.abs(now - timestamp)} s from now, more than the ${tolerance} s allowed.`);
  }
  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'The body is not UTF-8 JSON.');
  }
  const e = event as Partial<WebhookEvent> | null;
  if (typeof e !== 'object' || e === null || typeof e.id !== 'string' || typeof e.type !== 'string' || typeof e.created_at !== 'string' || typeof e.data !== 'object' || e.data === null) {
    throw new WebhookVerificationError('invalid_payload', 'The body is not an mmgen event.');
  }
  return e as WebhookEvent;
}
