import fc from 'fast-check';
import { verifyWebhook as sdkVerify, WebhookVerificationError as SdkError } from '@mmgen/sdk';
import { describe, expect, it } from 'vitest';
import { deliveryHeaders, eventBody } from '../../src/domain/webhooks/events.js';
import { computeSignature, SIGNATURE_HEADER, signatureHeader } from '../../src/webhooks/signing.js';
import { verifyWebhook as serverVerify, WebhookVerificationError as ServerError } from '../../src/webhooks/verify.js';

/**
 * The scheme is the server's signing module (src/webhooks/signing.ts, which signs every
 * delivery); the server's receiver helper (src/webhooks/verify.ts, Node crypto, built on it) and
 * the SDK's (Web Crypto) verify it. Every header here is signed by that module, then, for most,
 * changed. Both verifiers must agree on every input: the same event back, or the same failure
 * reason. fast-check makes the inputs, most of them near-misses of a valid one.
 */
type Outcome = { ok: unknown } | { reason: string };

function server(body: string, header: string, secret: string, tolerance: number, now: number): Outcome {
  try {
    return { ok: serverVerify(body, header, secret, tolerance, now) };
  } catch (e) {
    if (e instanceof ServerError) return { reason: e.reason };
    throw e;
  }
}

async function sdk(body: string, header: string, secret: string, tolerance: number, now: number): Promise<Outcome> {
  try {
    return { ok: await sdkVerify(body, header, secret, { toleranceSeconds: tolerance, nowSeconds: now }) };
  } catch (e) {
    if (e instanceof SdkError) return { reason: e.reason };
    throw e;
  }
}

const NOW = 1_750_000_000;
const secretArb = fc.string({ minLength: 1, maxLength: 50 }).map((s) => `whsec_${s}`);
const bodyArb = fc.oneof(
  fc.record({ id: fc.string(), type: fc.constantFrom('generation.completed', 'webhook.test'), created_at: fc.constant('2025-01-01T00:00:00.000Z'), data: fc.dictionary(fc.string(), fc.jsonValue()) }).map((e) => JSON.stringify(e)),
  fc.string(), // not JSON, or JSON that is not an event
);

/** A header built from a valid signature, then changed in one of the ways a sender, proxy or attacker might. */
const headerArb = (secret: string, body: string) =>
  fc.record({
    t: fc.oneof(fc.constant(NOW), fc.integer({ min: NOW - 1_000, max: NOW + 1_000 })),
    signedWith: fc.oneof(fc.constant(secret), fc.string()),
    signedBody: fc.oneof(fc.constant(body), fc.string()),
    shape: fc.constantFrom('plain', 'two-v1', 'v2-first', 'spaces', 'no-t', 'no-v1', 'garbage', 'two-t', 'bad-t', 'upper-hex', 'short-hex'),
  }).map(({ t, signedWith, signedBody, shape }) => {
    const sig = computeSignature(signedWith, t, signedBody);
    switch (shape) {
      case 'two-v1': return `t=${t},v1=${'0'.repeat(64)},v1=${sig}`;
      case 'v2-first': return `t=${t},v2=abc,v1=${sig}`;
      case 'spaces': return ` t = ${t} , v1 = ${sig} `;
      case 'no-t': return `v1=${sig}`;
      case 'no-v1': return `t=${t}`;
      case 'garbage': return `${t}${sig}`;
      case 'two-t': return `t=${t},t=${t},v1=${sig}`;
      case 'bad-t': return `t=${t}x,v1=${sig}`;
      case 'upper-hex': return `t=${t},v1=${sig.toUpperCase()}`;
      case 'short-hex': return `t=${t},v1=${sig.slice(2)}`;
      default: return signatureHeader(signedWith, signedBody, t);
    }
  });

describe("the server's and the SDK's webhook verification agree", () => {
  it('on every input: the same event, or the same reason', async () => {
    await fc.assert(
      fc.asyncProperty(
        secretArb.chain((secret) => bodyArb.chain((body) => headerArb(secret, body).map((header) => ({ secret, body, header })))),
        fc.constantFrom(0, 300, 10),
        async ({ secret, body, header }, tolerance) => {
          expect(await sdk(body, header, secret, tolerance, NOW)).toEqual(server(body, header, secret, tolerance, NOW));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('and both accept a delivery as the dispatcher signs it', async () => {
    const body = eventBody({ id: 'evt_1', type: 'webhook.test', created_at: new Date('2025-01-01T00:00:00Z'), data: { n: 1 } });
    const header = deliveryHeaders('whsec_x', body, 'webhook.test', 'whd_1', NOW)[SIGNATURE_HEADER]!;
    const sent = server(body.toString('utf8'), header, 'whsec_x', 300, NOW);
    expect(sent).toEqual({ ok: JSON.parse(body.toString('utf8')) });
    expect(await sdk(body.toString('utf8'), header, 'whsec_x', 300, NOW)).toEqual(sent);
  });

  it('including the empty header', async () => {
    expect(await sdk('{}', '', 'whsec_x', 300, NOW)).toEqual(server('{}', '', 'whsec_x', 300, NOW));
  });
});
