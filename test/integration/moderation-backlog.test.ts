import { afterAll, beforeAll, expect, it } from 'vitest';
import { renderImage } from '../../src/providers/simulator/render/index.js';
import { walletAndLedger, expectWalletMatchesLedger } from '../helpers/money.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * The local classifier's backlog is bounded (docs/contract-addenda.md, "Moderation"): while more images wait for a
 * free classifier thread than MMGEN_MODERATION_BACKLOG, a new synchronous image request is refused with 503
 * `service_unavailable` and Retry-After, before anything is reserved; an asynchronous one is accepted and waits in its
 * queue; once the backlog drains, image requests are served again. The backlog is filled here through the server's
 * own moderator (the same process), with real images on the real model: one thread, a bound of 2.
 */
describeOnBackend('the classifiers\' backlog bound', 'postgres', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_MODERATION_LOCAL: 'on', MMGEN_MODERATION_THREADS: '1', MMGEN_MODERATION_BACKLOG: '2' });
    api = client(s.url);
    org = await s.createOrg({ credits: 5_000_000 });
    // Loaded before the test: the first image would otherwise wait for the model, not for the backlog.
    expect((await api('POST', '/v1/images', { key: org.live, body: { model: 'flux-schnell', prompt: 'a warm-up', width: 256, height: 256 } })).status).toBe(200);
  }, 180_000); // the model loads here: seconds on a loaded machine
  afterAll(async () => s?.close());

  it('a synchronous image request beyond the backlog gets 503 with Retry-After, nothing reserved; served again once it drains', async () => {
    // One 1024² render, 64 times (the classifier keeps nothing: each is decoded and judged anew), over a second of work.
    const { bytes } = await renderImage({ prompt: 'filler', seed: 1, width: 1024, height: 1024, format: 'png' });
    const images = Array.from({ length: 64 }, () => Buffer.from(bytes));
    const before = await walletAndLedger(s.db, org.id);
    // 64 images for one thread: up to 8 in it (a batch), the rest waiting, far over the bound of 2.
    const filling = Promise.all(images.map((b) => s.runtime.deps.moderator.scoreImage(b)));
    try {
      expect(s.runtime.deps.moderator.saturated()).toBeGreaterThanOrEqual(1);
      const refused = await api('POST', '/v1/images', { key: org.live, body: { model: 'flux-schnell', prompt: 'a lighthouse', width: 256, height: 256 } });
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(refused.body.error).toMatchObject({ type: 'api_error', code: 'service_unavailable' });
      expect(refused.body.error.message).toMatch(/moderation is at its backlog; nothing was reserved/);
      expect(typeof refused.body.error.request_id).toBe('string');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // The compatible path is the same request.
      const compat = await api('POST', '/v1/images/generations', { key: org.live, body: { model: 'flux-schnell', prompt: 'a lighthouse', size: '256x256' } });
      expect(compat.status, JSON.stringify(compat.body)).toBe(503);
      expect(compat.headers.get('retry-after')).not.toBeNull();
      // Nothing reserved, nothing charged.
      const during = await expectWalletMatchesLedger(s.db, org.id);
      expect({ balance: during.balance, held: during.held }).toEqual({ balance: before.balance, held: before.held });
      // An asynchronous request is not refused: it waits in its queue (the worker takes a bounded number at a time).
      const video = await api('POST', '/v1/videos', { key: org.live, body: { model: 'wan-2.2', prompt: 'waves', duration_s: 1 } });
      expect(video.status, JSON.stringify(video.body)).toBe(202);
      // Requests that judge nothing are not held up by the image backlog.
      const voice = await api('POST', '/v1/voice', { key: org.live, body: { model: 'tts-1', text: 'Hello there.' } });
      expect(voice.status, JSON.stringify(voice.body)).toBe(200);
    } finally {
      const scores = await filling;
      expect(scores).toHaveLength(64);
    }
    expect(s.runtime.deps.moderator.saturated()).toBeNull();
    const served = await api('POST', '/v1/images', { key: org.live, body: { model: 'flux-schnell', prompt: 'a lighthouse', width: 256, height: 256 } });
    expect(served.status, JSON.stringify(served.body)).toBe(200);
    expect(served.body.outputs[0].moderation_status).toBe('approved');
  }, 180_000); // 64 images on one thread: a second or two alone, much longer on a loaded machine
});
