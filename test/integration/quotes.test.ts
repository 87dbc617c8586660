import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakes, type Fakes } from '../fakes/index.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * POST /v1/quotes (docs/contract-addenda.md, "Quotes") answers what the same request then reserves: each body below
 * is quoted, then sent to its modality's endpoint with a live key against the strict loopback fakes, and the quote
 * must equal that generation's reserved_credits. The bodies include prices that depend on what is sent (a size tier,
 * fal's per-megapixel price, a flat price per track), so a quote computed apart from acceptance would differ.
 */
const CASES: Array<{ path: string; body: Record<string, unknown> }> = [
  { path: '/v1/images', body: { model: 'gpt-image-1-mini', prompt: 'a lighthouse', width: 1024, height: 1024 } },
  { path: '/v1/images', body: { model: 'gpt-image-1-mini', prompt: 'a wide harbour', width: 1536, height: 1024, num_outputs: 2 } },
  { path: '/v1/images', body: { model: 'gpt-image-1-mini', prompt: 'a tall tower', width: 1024, height: 1536 } },
  { path: '/v1/images', body: { model: 'flux-dev', prompt: 'a big map', width: 2048, height: 2048 } },
  { path: '/v1/images', body: { model: 'flux-dev', prompt: 'a small map', width: 512, height: 512, num_outputs: 3 } },
  { path: '/v1/music', body: { model: 'stable-audio-2.5', prompt: 'calm piano', duration_s: 120 } },
  { path: '/v1/voice', body: { model: 'eleven-multilingual-v2', text: 'Hello there, this is a quote.'.repeat(40) } },
  { path: '/v1/chat', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 3000 } },
];

describeOnBackend('quotes: what a request would reserve', 'pglite', (backend) => {
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

  const walletAndCount = async () => ({
    wallet: (await api('GET', '/v1/wallet', { key: org.live })).body,
    generations: (await s.db.query<{ n: string }>('SELECT count(*)::text AS n FROM generations WHERE organization_id = $1', [org.id])).rows[0]!.n,
  });

  it('equals the reservation the same request then takes, at several sizes, tiers and modalities', async () => {
    const quoted = new Set<number>();
    for (const { path, body } of CASES) {
      const q = await api('POST', '/v1/quotes', { key: org.live, body });
      expect(q.status, `${path} ${JSON.stringify(q.body)}`).toBe(200);
      const sent = await api('POST', path, { key: org.live, body });
      expect([200, 202], `${path} ${JSON.stringify(sent.body)}`).toContain(sent.status);
      expect(q.body, `${body.model} ${JSON.stringify(body).slice(0, 80)}`).toEqual({
        object: 'quote',
        modality: sent.body.modality,
        model: body.model,
        credits: sent.body.reserved_credits,
      });
      quoted.add(q.body.credits);
    }
    // The cases are priced differently: a quote that ignored size, tier or units would fail above.
    expect(quoted.size).toBeGreaterThanOrEqual(6);
  });

  it('takes the modality explicitly too, and refuses one the model does not serve as its endpoint would', async () => {
    const body = { model: 'gpt-image-1-mini', prompt: 'x', width: 1536, height: 1024 };
    const implicit = await api('POST', '/v1/quotes', { key: org.live, body });
    const explicit = await api('POST', '/v1/quotes', { key: org.live, body: { modality: 'image', ...body } });
    expect(explicit.body).toEqual(implicit.body);
    const mismatch = await api('POST', '/v1/quotes', { key: org.live, body: { modality: 'video', model: 'gpt-image-1-mini', prompt: 'x' } });
    const sent = await api('POST', '/v1/videos', { key: org.live, body: { model: 'gpt-image-1-mini', prompt: 'x' } });
    expect(sent.body.error.code).toBe('model_modality_mismatch');
    expect({ status: mismatch.status, error: mismatch.body.error.code }).toEqual({ status: sent.status, error: sent.body.error.code });
  });

  /** The wallet once the earlier tests' queued generations have finished and nothing is held, so it moves only by what follows. */
  const settledWalletAndCount = async () => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const now = await walletAndCount();
      if (now.wallet.held_credits === 0 || Date.now() > deadline) return now;
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  it('answers the errors a real request gets (400, 404, 410), writing and reserving nothing', async () => {
    const delisted = s.runtime.deps.catalog.models.find((m) => m.status === 'delisted' && m.modality === 'image')!.slug;
    const before = await settledWalletAndCount();
    const bad: Array<{ path: string; body: Record<string, unknown>; status: number }> = [
      { path: '/v1/images', body: { model: 'no-such-model', prompt: 'x' }, status: 404 },
      { path: '/v1/images', body: { model: delisted, prompt: 'x' }, status: 410 },
      { path: '/v1/images', body: { model: 'gpt-image-1-mini', prompt: 'x', width: 1001 }, status: 400 },
      { path: '/v1/images', body: { model: 'gpt-image-1-mini', prompt: 'x', colour: 'red' }, status: 400 },
      { path: '/v1/images', body: { model: 'gpt-image-1-mini' }, status: 400 },
      { path: '/v1/images', body: { model: 'flux-schnell', prompt: 'x', image_url: 'https://example.com/a.png' }, status: 400 },
    ];
    for (const { path, body, status } of bad) {
      const modality = path === '/v1/images' ? 'image' : undefined;
      const q = await api('POST', '/v1/quotes', { key: org.live, body: { modality, ...body } });
      const real = await api('POST', path, { key: org.live, body });
      expect(real.status, JSON.stringify(real.body)).toBe(status);
      expect({ status: q.status, code: q.body.error?.code, param: q.body.error?.param }, JSON.stringify(body)).toEqual({
        status: real.status,
        code: real.body.error.code,
        param: real.body.error.param,
      });
    }
    // The quotes above, and valid ones, leave the wallet and the generations as they were.
    for (const { body } of CASES) expect((await api('POST', '/v1/quotes', { key: org.live, body })).status).toBe(200);
    expect(await walletAndCount()).toEqual(before);
  });

  it("is 0 with a test key, and needs the modality's scope", async () => {
    const q = await api('POST', '/v1/quotes', { key: org.test, body: CASES[1]!.body });
    expect(q.body).toMatchObject({ object: 'quote', credits: 0 });
    const narrow = await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'music only', scopes: ['music:write'] } });
    expect(narrow.status, JSON.stringify(narrow.body)).toBe(201);
    const refused = await api('POST', '/v1/quotes', { key: narrow.body.key, body: CASES[0]!.body });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_role');
    expect((await api('POST', '/v1/quotes', { key: narrow.body.key, body: CASES[5]!.body })).status).toBe(200);
  });
});

