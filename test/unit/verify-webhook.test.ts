import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { computeSignature, signatureHeader } from '../../src/webhooks/signing.js';
import { verifyWebhook, WebhookVerificationError, type WebhookVerificationFailure } from '../../src/webhooks/verify.js';

const secret = 'whsec_0123456789abcdefghijABCDEFGHIJ0123456789';
const body = JSON.stringify({ id: 'evt_abc', type: 'generation.completed', created_at: '2025-01-01T00:00:00.000Z', data: { generation_id: 'gen_1', modality: 'image', status: 'succeeded', charged_credits: 4 } });
const now = 1_750_000_000;

function hex(t: number, b: string | Buffer = body, key = secret): string {
  return createHmac('sha256', key).update(`${t}.`).update(b).digest('hex');
}

function failure(fn: () => unknown): WebhookVerificationFailure {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookVerificationError);
    return (err as WebhookVerificationError).reason;
  }
  throw new Error('expected a WebhookVerificationError');
}

describe('verifyWebhook', () => {
  it('accepts a valid delivery and returns the event, from a string or the raw bytes', () => {
    const header = `t=${now},v1=${hex(now)}`;
    expect(verifyWebhook(body, header, secret, 300, now)).toEqual(JSON.parse(body));
    expect(verifyWebhook(Buffer.from(body), header, secret, 300, now).id).toBe('evt_abc');
  });

  it('signs exactly what Stripe verifies (same scheme)', () => {
    const header = signatureHeader(secret, body);
    expect((Stripe.webhooks.constructEvent(body, header, secret) as unknown as { id: string }).id).toBe('evt_abc');
    expect(computeSignature(secret, now, body)).toBe(hex(now));
    // And Stripe's test header is accepted by ours.
    const stripeHeader = Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: now });
    expect(verifyWebhook(body, stripeHeader, secret, 300, now).type).toBe('generation.completed');
  });

  it('refuses a tampered body, byte for byte', () => {
    const header = `t=${now},v1=${hex(now)}`;
    expect(failure(() => verifyWebhook(body.replace('"charged_credits":4', '"charged_credits":0'), header, secret, 300, now))).toBe('signature_mismatch');
    expect(failure(() => verifyWebhook(`${body} `, header, secret, 300, now))).toBe('signature_mismatch');
    // Re-serialized JSON is a different body even when it means the same thing.
    expect(failure(() => verifyWebhook(JSON.stringify(JSON.parse(body), null, 1), header, secret, 300, now))).toBe('signature_mismatch');
  });

  it('refuses a wrong secret, and a signature moved to another timestamp', () => {
    expect(failure(() => verifyWebhook(body, `t=${now},v1=${hex(now)}`, 'whsec_other', 300, now))).toBe('signature_mismatch');
    expect(failure(() => verifyWebhook(body, `t=${now + 1},v1=${hex(now)}`, secret, 300, now))).toBe('signature_mismatch');
  });

  it('refuses timestamps beyond the tolerance, in the past and in the future', () => {
    for (const t of [now - 301, now + 301, now - 86_400]) {
      expect(failure(() => verifyWebhook(body, `t=${t},v1=${hex(t)}`, secret, 300, now)), String(t)).toBe('timestamp_out_of_tolerance');
    }
    for (const t of [now - 300, now + 300]) expect(verifyWebhook(body, `t=${t},v1=${hex(t)}`, secret, 300, now).id).toBe('evt_abc');
    // A custom tolerance.
    expect(failure(() => verifyWebhook(body, `t=${now - 11},v1=${hex(now - 11)}`, secret, 10, now))).toBe('timestamp_out_of_tolerance');
    // The default uses the clock: a fresh signature passes, an old one does not.
    const fresh = Math.floor(Date.now() / 1000);
    expect(verifyWebhook(body, `t=${fresh},v1=${hex(fresh)}`, secret).id).toBe('evt_abc');
    expect(failure(() => verifyWebhook(body, `t=${fresh - 600},v1=${hex(fresh - 600)}`, secret))).toBe('timestamp_out_of_tolerance');
  });

  it('refuses missing and malformed headers', () => {
    const sig = hex(now);
    const cases: Array<[string | undefined | string[], WebhookVerificationFailure]> = [
      [undefined, 'missing_header'],
      ['', 'missing_header'],
      ['   ', 'missing_header'],
      [sig, 'malformed_header'],
      [`v1=${sig}`, 'malformed_header'],
      [`t=,v1=${sig}`, 'malformed_header'],
      [`t=abc,v1=${sig}`, 'malformed_header'],
      [`t=-5,v1=${sig}`, 'malformed_header'],
      [`t=1.5,v1=${sig}`, 'malformed_header'],
      [`t=${now},t=${now},v1=${sig}`, 'malformed_header'],
      [`t=${now};v1=${sig}`, 'malformed_header'],
      [`t=${now}`, 'no_signatures'],
      [`t=${now},v0=${sig}`, 'no_signatures'],
      [`t=${now},v1=`, 'signature_mismatch'],
      [`t=${now},v1=zz${sig.slice(2)}`, 'signature_mismatch'],
      [`t=${now},v1=${sig.slice(0, 62)}`, 'signature_mismatch'],
      [`t=${now},v1=${sig}00`, 'signature_mismatch'],
      [[`t=${now},v1=${sig}`, `t=${now},v1=${sig}`], 'malformed_header'],
    ];
    for (const [header, reason] of cases) {
      expect(failure(() => verifyWebhook(body, header as string, secret, 300, now)), JSON.stringify(header)).toBe(reason);
    }
  });

  it('accepts any of several v1 signatures (secret rotation), tolerating spaces and unknown schemes', () => {
    const good = hex(now);
    const wrong = hex(now, body, 'whsec_old');
    expect(verifyWebhook(body, `t=${now},v1=${wrong},v1=${good}`, secret, 300, now).id).toBe('evt_abc');
    expect(verifyWebhook(body, `t=${now},v1=${good},v1=${wrong}`, secret, 300, now).id).toBe('evt_abc');
    expect(verifyWebhook(body, ` t=${now} , v0=abc, v1=${good.toUpperCase()} `, secret, 300, now).id).toBe('evt_abc');
    expect(verifyWebhook(body, [`t=${now},v1=${good}`], secret, 300, now).id).toBe('evt_abc');
    expect(failure(() => verifyWebhook(body, `t=${now},v1=${wrong},v1=${wrong}`, secret, 300, now))).toBe('signature_mismatch');
  });

  it('checks the signature before trusting the timestamp, and the body only after both', () => {
    // A stale delivery with a bad signature is reported as a bad signature.
    expect(failure(() => verifyWebhook(body, `t=${now - 1000},v1=${hex(now)}`, secret, 300, now))).toBe('signature_mismatch');
    const notJson = 'not json';
    expect(failure(() => verifyWebhook(notJson, `t=${now},v1=${hex(now, notJson)}`, secret, 300, now))).toBe('invalid_payload');
    const notEvent = '{"hello":1}';
    expect(failure(() => verifyWebhook(notEvent, `t=${now},v1=${hex(now, notEvent)}`, secret, 300, now))).toBe('invalid_payload');
  });

  it('needs a secret', () => {
    expect(() => verifyWebhook(body, `t=${now},v1=${hex(now)}`, '', 300, now)).toThrow(TypeError);
  });
});
