import { afterAll, beforeAll, expect, it } from 'vitest';
import { costInCredits } from '../../src/billing/credits.js';
import { shippedRecord } from '../../src/providers/upstream-models.js';
import { CATALOG } from '../../src/catalog/models.js';
import { startFakes, type Fakes } from '../fakes/index.js';
import { fakePng } from '../fakes/media.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';
import { expectWalletMatchesLedger } from '../helpers/money.js';
import { waitTerminal } from '../helpers/generations.js';

/**
 * Prices that match what is sent (issue 18, item 6; docs/contract-addenda.md, "Prices and tiers"), end to end
 * with live keys against the strict loopback fakes: the tier mmgen pins is in the body the provider gets, a
 * request for a dearer variant is reserved and charged at that variant's price, and a request that may fall
 * back to a dearer route is reserved at that route's price and charged at the price of the one that served it.
 */
const catalogPrice = (slug: string) => CATALOG.find((m) => m.slug === slug)!.unit_cost_usd;

describeOnBackend('prices and tiers against the provider fakes', 'pglite', (backend) => {
  let fakes: Fakes;
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;

  beforeAll(async () => {
    fakes = await startFakes({ jobMs: 40 });
    s = await startTestServer(backend, { ...fakes.env, MMGEN_ALLOW_PRIVATE_NETWORK: '1', MMGEN_CIRCUIT_FAILURE_THRESHOLD: '50' });
    api = client(s.url);
    org = await s.createOrg({ credits: 1_000_000 });
  });
  afterAll(async () => {
    await s?.close();
    await fakes?.close();
  });

  it('gpt-image-1-mini sends the pinned quality; a square image costs the catalog price', async () => {
    const res = await api('POST', '/v1/images', { key: org.live, body: { model: 'gpt-image-1-mini', prompt: 'a lighthouse', width: 1024, height: 1024 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(fakes.openai.calls('POST', '/v1/images/generations').at(-1)!.json).toMatchObject({ size: '1024x1024', quality: 'medium' });
    const price = costInCredits(catalogPrice('gpt-image-1-mini'), 1);
    expect(res.body).toMatchObject({ status: 'succeeded', reserved_credits: price, charged_credits: price, refunded_credits: 0 });
  });

  it('gpt-image-1-mini at 1536×1024 is reserved and charged at its size tier', async () => {
    const tier = shippedRecord('openai', 'gpt-image-1-mini')!.price!.tiers!.find((t) => t.when?.size?.includes('1536x1024'))!.unit_cost_usd;
    expect(Number(tier)).toBeGreaterThan(Number(catalogPrice('gpt-image-1-mini')));
    const res = await api('POST', '/v1/images', { key: org.live, body: { model: 'gpt-image-1-mini', prompt: 'a wide harbour', width: 1536, height: 1024, num_outputs: 2 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(fakes.openai.calls('POST', '/v1/images/generations').at(-1)!.json).toMatchObject({ size: '1536x1024', quality: 'medium', n: 2 });
    const price = costInCredits(tier, 2);
    expect(res.body).toMatchObject({ status: 'succeeded', reserved_credits: price, charged_credits: price, refunded_credits: 0 });
    await expectWalletMatchesLedger(s.db, org.id);
  });

  it('flux-dev at 2048×2048: reserved at fal’s per-megapixel price, charged Replicate’s when Replicate serves it, fal’s when fal does', async () => {
    const body = { model: 'flux-dev', prompt: 'a big map', width: 2048, height: 2048 };
    const perImage = costInCredits(catalogPrice('flux-dev'), 1);
    const fourMegapixels = costInCredits(catalogPrice('flux-dev'), 4); // fal bills per started megapixel
    const served = await api('POST', '/v1/images', { key: org.live, body });
    expect(served.status, JSON.stringify(served.body)).toBe(200);
    expect((await s.db.query<{ provider: string }>('SELECT provider FROM generations WHERE id = $1', [served.body.id])).rows[0]!.provider).toBe('replicate');
    expect(served.body).toMatchObject({ reserved_credits: fourMegapixels, charged_credits: perImage, refunded_credits: fourMegapixels - perImage });

    // Replicate down before taking the work: fal serves it, at its own price.
    fakes.replicate.misbehave({ method: 'POST', path: /\/predictions$/ }, { reply: { status: 503, body: { title: 'Service Unavailable', detail: 'maintenance', status: 503 } } });
    const fellBack = await api('POST', '/v1/images', { key: org.live, body });
    expect(fellBack.status, JSON.stringify(fellBack.body)).toBe(200);
    expect((await s.db.query<{ provider: string }>('SELECT provider FROM generations WHERE id = $1', [fellBack.body.id])).rows[0]!.provider).toBe('fal');
    expect(fakes.fal.calls('POST', /^\/fal-ai\/flux\/dev$/).at(-1)!.json).toMatchObject({ image_size: { width: 2048, height: 2048 } });
    expect(fellBack.body).toMatchObject({ reserved_credits: fourMegapixels, charged_credits: fourMegapixels, refunded_credits: 0 });
    await expectWalletMatchesLedger(s.db, org.id);
  });

  it('stable-audio-2.5 is $0.20 a track whatever its length: reserved and charged that, not per second', async () => {
    const track = costInCredits('0.20', 1);
    for (const duration_s of [10, 120]) {
      const res = await api('POST', '/v1/music', { key: org.live, body: { model: 'stable-audio-2.5', prompt: 'calm piano', duration_s } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body.reserved_credits, `${duration_s} s`).toBe(track);
      const done = await waitTerminal(api, org.live, res.body.id);
      expect(done, `${duration_s} s`).toMatchObject({ status: 'succeeded', reserved_credits: track, charged_credits: track, refunded_credits: 0 });
    }
    expect(fakes.fal.calls('POST', /^\/fal-ai\/stable-audio-25\/text-to-audio$/).at(-1)!.json).toMatchObject({ seconds_total: 120 });
    await expectWalletMatchesLedger(s.db, org.id);
  });

  it('clarity-upscaler: reserved at fal’s price per output megapixel of the image given, charged Replicate’s run when Replicate serves it', async () => {
    const image = fakes.fal.hostFile(await fakePng('a small photo', 1024, 768), 'image/png', 'png');
    const res = await api('POST', '/v1/upscale', { key: org.live, body: { model: 'clarity-upscaler', image_url: image, scale: 2 } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const falPrice = costInCredits('0.03', 3); // 2048×1536 out: 3 MP at fal's $0.03
    expect(res.body.reserved_credits).toBe(falPrice);
    const done = await waitTerminal(api, org.live, res.body.id);
    const replicatePrice = costInCredits(catalogPrice('clarity-upscaler'), 1);
    expect(done).toMatchObject({ status: 'succeeded', reserved_credits: falPrice, charged_credits: replicatePrice, refunded_credits: falPrice - replicatePrice });
    await expectWalletMatchesLedger(s.db, org.id);
  });

  it('an installation without fal reserves flux-dev at the routes it has: Replicate’s per-image price, not fal’s per megapixel', async () => {
    const { FAL_KEY: _fal, FAL_BASE_URL: _falUrl, ...withoutFal } = fakes.env;
    const here = await startTestServer(backend, { ...withoutFal, MMGEN_ALLOW_PRIVATE_NETWORK: '1' });
    try {
      const o = await here.createOrg({ credits: 10_000 });
      const res = await client(here.url)('POST', '/v1/images', { key: o.live, body: { model: 'flux-dev', prompt: 'a big map', width: 2048, height: 2048 } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const perImage = costInCredits(catalogPrice('flux-dev'), 1);
      expect(res.body).toMatchObject({ status: 'succeeded', reserved_credits: perImage, charged_credits: perImage, refunded_credits: 0 });
      await expectWalletMatchesLedger(here.db, o.id);
    } finally {
      await here.close();
    }
  });

  it('veed fabric sends the resolution its price is for', async () => {
    const portrait = fakes.fal.hostFile(await fakePng('a portrait', 256, 256), 'image/png', 'png');
    const res = await api('POST', '/v1/avatars', { key: org.live, body: { model: 'fabric-1.0-text', image_url: portrait, text: 'Hello there.' } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    for (let i = 0; i < 200 && fakes.fal.calls('POST', /^\/veed\/fabric-1\.0\/text$/).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(fakes.fal.calls('POST', /^\/veed\/fabric-1\.0\/text$/).at(-1)!.json).toMatchObject({ resolution: '480p' });
  });
});
