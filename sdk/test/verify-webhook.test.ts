import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Mmgen, signWebhookPayload, verifyWebhook, WebhookVerificationError, type WebhookEvent } from '@mmgen/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestOrg, TestServer } from '../../test/helpers/server.js';
import { signatureHeader as serverSignatureHeader } from '../../src/webhooks/signing.js';
import { startMmgen } from './helpers.js';

interface Delivery {
  raw: Buffer;
  headers: IncomingHttpHeaders;
  signature: string;
}

/** A loopback receiver that records every delivery's raw bytes and headers, unverified. */
class Receiver {
  readonly deliveries: Delivery[] = [];
  url = '';
  private server!: Server;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.deliveries.push({ raw: Buffer.concat(chunks), headers: req.headers, signature: String(req.headers['x-service-signature'] ?? '') });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }

  async waitFor(type: string, timeoutMs = 20_000): Promise<Delivery> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const d = this.deliveries.find((x) => x.headers['x-service-event'] === type);
      if (d) return d;
      if (Date.now() > deadline) throw new Error(`no ${type} delivery arrived; got ${this.deliveries.map((x) => x.headers['x-service-event']).join(', ')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

const timestampOf = (header: string) => Number(/t=(\d+)/.exec(header)![1]);

async function reasonOf(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => {
      throw new Error('expected verifyWebhook to refuse the delivery');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WebhookVerificationError);
  return (err as WebhookVerificationError).reason;
}

describe('verifyWebhook on deliveries mmgen really sent', () => {
  let s: TestServer;
  let org: TestOrg;
  let sdk: Mmgen;
  let receiver: Receiver;
  let secret: string;
  let completed: Delivery;

  beforeAll(async () => {
    s = await startMmgen();
    org = await s.createOrg({ plan: 'team' });
    sdk = new Mmgen({ apiKey: org.test, baseURL: s.url });
    receiver = new Receiver();
    await receiver.start();
    const hook = await sdk.webhooks.create({ url: receiver.url, events: ['*'] });
    secret = hook.secret;
    await sdk.images.create({ model: 'flux-schnell', prompt: 'a signed cat', width: 256, height: 256 });
    completed = await receiver.waitFor('generation.completed');
  });
  afterAll(async () => {
    await receiver?.close();
    await s?.close();
  });

  it('accepts generation.completed and returns the typed event', async () => {
    const event = await verifyWebhook(completed.raw, completed.signature, secret);
    expect(event.type).toBe('generation.completed');
    expect(event.id).toMatch(/^evt_/);
    if (event.type !== 'generation.completed') throw new Error('narrowing');
    // Narrowed by `type`: data is typed.
    const generation = await sdk.generations.get(event.data.generation_id);
    expect(event.data).toMatchObject({ modality: 'image', status: 'succeeded', charged_credits: generation.charged_credits });
    expect(completed.headers['x-service-delivery']).toMatch(/^whd_/);
  });

  it('accepts generation.failed, comparison.completed and webhook.test, whatever form the raw body takes', async () => {
    const failing = await sdk.videos.create({ model: 'wan-2.2', prompt: 'fails', duration_s: 1, simulate: { outcome: 'failure' } });
    const cmp = await sdk.comparisons.create({ models: ['flux-schnell', 'flux-dev'], prompt: 'two foxes', params: { width: 256, height: 256 } });
    const hooks = await sdk.webhooks.list();
    await sdk.webhooks.test(hooks.data[0]!.id);

    const failed = await verifyWebhook(new Uint8Array((await receiver.waitFor('generation.failed')).raw), (await receiver.waitFor('generation.failed')).signature, secret);
    expect(failed).toMatchObject({ type: 'generation.failed', data: { generation_id: failing.id, status: 'failed', refunded_credits: 0 } });
    if (failed.type === 'generation.failed') expect(failed.data.error?.code).toEqual(expect.any(String));

    const c = await receiver.waitFor('comparison.completed');
    const arrayBuffer = new Uint8Array(c.raw).buffer;
    const comparison = await verifyWebhook(arrayBuffer, c.signature, secret);
    expect(comparison).toMatchObject({ type: 'comparison.completed', data: { comparison_id: cmp.id, status: 'completed' } });
    if (comparison.type === 'comparison.completed') expect(comparison.data.generation_ids.sort()).toEqual(cmp.generations.map((g) => g.id).sort());

    const t = await receiver.waitFor('webhook.test');
    const test: WebhookEvent = await sdk.webhooks.verify(t.raw.toString('utf8'), [t.signature], secret);
    expect(test).toMatchObject({ type: 'webhook.test', data: { webhook_id: hooks.data[0]!.id } });
  });

  it('refuses a tampered body, signature, timestamp or secret', async () => {
    const { raw, signature } = completed;
    const flipped = Buffer.from(raw);
    const at = flipped.indexOf('succeeded');
    flipped[at] = flipped[at]! ^ 0x01;
    expect(await reasonOf(verifyWebhook(flipped, signature, secret))).toBe('signature_mismatch');
    const tampered = Buffer.from(raw.toString('utf8').replace('"modality":"image"', '"modality":"video"'));
    expect(tampered.equals(raw)).toBe(false);
    expect(await reasonOf(verifyWebhook(tampered, signature, secret))).toBe('signature_mismatch');
    // Whitespace matters: a re-serialized body is not what was signed.
    expect(await reasonOf(verifyWebhook(JSON.stringify(JSON.parse(raw.toString()), null, 2), signature, secret))).toBe('signature_mismatch');

    const hex = /v1=([0-9a-f]{64})/.exec(signature)![1]!;
    const otherHex = `${hex.slice(0, 63)}${hex[63] === '0' ? '1' : '0'}`;
    expect(await reasonOf(verifyWebhook(raw, signature.replace(hex, otherHex), secret))).toBe('signature_mismatch');
    const t = timestampOf(signature);
    expect(await reasonOf(verifyWebhook(raw, signature.replace(`t=${t}`, `t=${t + 1}`), secret))).toBe('signature_mismatch');
    expect(await reasonOf(verifyWebhook(raw, signature, `${secret}x`))).toBe('signature_mismatch');
    expect(await reasonOf(verifyWebhook(raw, signature, 'whsec_someoneelse'))).toBe('signature_mismatch');

    expect(await reasonOf(verifyWebhook(raw, undefined, secret))).toBe('missing_header');
    expect(await reasonOf(verifyWebhook(raw, '', secret))).toBe('missing_header');
    expect(await reasonOf(verifyWebhook(raw, [signature, signature], secret))).toBe('malformed_header');
    expect(await reasonOf(verifyWebhook(raw, 'garbage', secret))).toBe('malformed_header');
    expect(await reasonOf(verifyWebhook(raw, `v1=${hex}`, secret))).toBe('malformed_header');
    expect(await reasonOf(verifyWebhook(raw, `t=${t}`, secret))).toBe('no_signatures');
    expect(await reasonOf(verifyWebhook(raw, `t=${t},v1=nothex`, secret))).toBe('signature_mismatch');
    // A parsed body is a programming error, said plainly.
    await expect(verifyWebhook(JSON.parse(raw.toString()) as never, signature, secret)).rejects.toThrow(TypeError);
  });

  it('accepts the delivery when any of several v1 signatures matches (secret rotation)', async () => {
    const t = timestampOf(completed.signature);
    const hex = /v1=([0-9a-f]{64})/.exec(completed.signature)![1]!;
    const header = `t=${t},v1=${'0'.repeat(64)},v1=${hex},v2=ignored`;
    expect((await verifyWebhook(completed.raw, header, secret)).type).toBe('generation.completed');
  });

  it('refuses a stale delivery (replay) and one from the future, by its signed timestamp', async () => {
    const { raw, signature } = completed;
    const t = timestampOf(signature);
    expect((await verifyWebhook(raw, signature, secret, { nowSeconds: t + 300 })).id).toMatch(/^evt_/);
    expect(await reasonOf(verifyWebhook(raw, signature, secret, { nowSeconds: t + 301 }))).toBe('timestamp_out_of_tolerance');
    expect(await reasonOf(verifyWebhook(raw, signature, secret, { nowSeconds: t - 301 }))).toBe('timestamp_out_of_tolerance');
    expect((await verifyWebhook(raw, signature, secret, { nowSeconds: t + 3600, toleranceSeconds: 0 })).id).toMatch(/^evt_/);
    // The real clock: a delivery replayed later than the tolerance allows.
    await new Promise((r) => setTimeout(r, Math.max(0, (t + 2) * 1000 - Date.now()) + 20));
    expect(await reasonOf(verifyWebhook(raw, signature, secret, { toleranceSeconds: 1 }))).toBe('timestamp_out_of_tolerance');
  });

  it("signs exactly as mmgen's server does", async () => {
    const body = '{"id":"evt_x","type":"webhook.test","created_at":"2025-01-01T00:00:00.000Z","data":{}}';
    expect(await signWebhookPayload(secret, body, 1_700_000_000)).toBe(serverSignatureHeader(secret, body, 1_700_000_000));
    const signed = await signWebhookPayload(secret, body);
    expect((await verifyWebhook(body, signed, secret)).id).toBe('evt_x');
    expect(await reasonOf(verifyWebhook('{"id":1}', await signWebhookPayload(secret, '{"id":1}'), secret))).toBe('invalid_payload');
  });
});
