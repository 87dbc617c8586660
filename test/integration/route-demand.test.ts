import { afterAll, beforeAll, expect, it } from 'vitest';
import { getWallet } from '../../src/billing/credits.js';
import { startFakes, type Fakes } from '../fakes/index.js';
import { expectInvariant, waitTerminal } from '../helpers/generations.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * A model's parameters declare a field some route takes (its values, those every such route takes); each request is
 * served only by the routes that take what it carries (providers/parameters.ts,
 * routeRefusal): at acceptance, and again at every fallback. Live keys against
 * the strict loopback fakes.
 */
describeOnBackend('routes chosen by what a request carries', 'pglite', (backend) => {
  let fakes: Fakes;
  let all: TestServer;
  let replicateOnly: TestServer;
  let falDown: TestServer;

  beforeAll(async () => {
    fakes = await startFakes({ jobMs: 30 });
    // The fakes serve their files from loopback: downloads from them must be allowed.
    const env = { MMGEN_ALLOW_PRIVATE_NETWORK: '1', MMGEN_PROVIDER_JOB_TIMEOUT_MS: '3000', MMGEN_CIRCUIT_FAILURE_THRESHOLD: '50' };
    all = await startTestServer(backend, { ...fakes.env, ...env });
    replicateOnly = await startTestServer(backend, { REPLICATE_API_TOKEN: fakes.env.REPLICATE_API_TOKEN!, REPLICATE_BASE_URL: fakes.env.REPLICATE_BASE_URL!, ...env });
    // fal configured, but nothing listens there: every call to it is refused before it is accepted (retryable).
    falDown = await startTestServer(backend, {
      ELEVENLABS_API_KEY: fakes.env.ELEVENLABS_API_KEY!, ELEVENLABS_BASE_URL: fakes.env.ELEVENLABS_BASE_URL!,
      FAL_KEY: fakes.env.FAL_KEY!, FAL_BASE_URL: 'http://127.0.0.1:9', ...env,
    });
  });
  afterAll(async () => {
    await Promise.all([all?.close(), replicateOnly?.close(), falDown?.close()]);
    await fakes?.close();
  });

  async function orgOn(s: TestServer): Promise<{ api: ReturnType<typeof client>; org: TestOrg }> {
    return { api: client(s.url), org: await s.createOrg({ credits: 1_000_000 }) };
  }

  it('a field only the second route takes sends the request there; without it, the first route serves', async () => {
    const { api, org } = await orgOn(all);
    const replicateCalls = fakes.replicate.calls('POST').length;
    // flux-1.1-pro: Replicate makes one image per prediction; fal takes num_images.
    const two = await api('POST', '/v1/images', { key: org.live, body: { model: 'flux-1.1-pro', prompt: 'two foxes', num_outputs: 2 } });
    expect(two.status, JSON.stringify(two.body)).toBe(200);
    expect(two.body.outputs.filter((o: { type: string }) => o.type === 'image')).toHaveLength(2);
    const row = await all.db.query<{ provider: string }>('SELECT provider FROM generations WHERE id = $1', [two.body.id]);
    expect(row.rows[0]!.provider).toBe('fal');
    expect(fakes.fal.calls('POST').at(-1)!.json).toMatchObject({ prompt: 'two foxes', num_images: 2 });
    expect(fakes.replicate.calls('POST').length).toBe(replicateCalls);

    const one = await api('POST', '/v1/images', { key: org.live, body: { model: 'flux-1.1-pro', prompt: 'one fox' } });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect((await all.db.query<{ provider: string }>('SELECT provider FROM generations WHERE id = $1', [one.body.id])).rows[0]!.provider).toBe('replicate');
  });

  it('no configured route takes it: 400 naming the field, nothing reserved or created', async () => {
    const { api, org } = await orgOn(replicateOnly);
    const before = await getWallet(replicateOnly.db, org.id);
    const res = await api('POST', '/v1/images', { key: org.live, body: { model: 'flux-1.1-pro', prompt: 'two foxes', num_outputs: 2 } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'num_outputs' });
    expect(res.body.error.message).toMatch(/replicate .*does not take num_outputs/);
    expect(await getWallet(replicateOnly.db, org.id)).toEqual(before);
    const count = await replicateOnly.db.query<{ n: number }>('SELECT count(*)::int AS n FROM generations WHERE organization_id = $1', [org.id]);
    expect(count.rows[0]!.n).toBe(0);
    // A value no route of the model documents is refused by its parameters, whatever is configured.
    const seven = await api('POST', '/v1/videos', { key: org.live, body: { model: 'kling-v2.1-master', prompt: 'waves', duration_s: 7 } });
    expect(seven.body.error).toMatchObject({ code: 'parameter_invalid', param: 'duration_s' });
  });

  it('a fallback never goes to a route that would drop a field the client sent', async () => {
    const { api, org } = await orgOn(falDown);
    const elevenCalls = () => fakes.elevenlabs.calls('POST').length;
    // Without a language, ElevenLabs (the first route) serves.
    const plain = await api('POST', '/v1/voice', { key: org.live, body: { model: 'eleven-multilingual-v2', text: 'Hello.' } });
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
    // With one, only fal takes it (ElevenLabs refuses language_code on this model): fal is down, and ElevenLabs is
    // not tried, since it would speak without the language.
    const before = elevenCalls();
    const french = await api('POST', '/v1/voice', { key: org.live, body: { model: 'eleven-multilingual-v2', text: 'Bonjour.', language: 'fr' } });
    expect(french.status).toBe(502);
    expect(elevenCalls()).toBe(before);
    const failed = await waitTerminal(api, org.live, french.body.error.message.match(/gen_\w+/)![0]);
    expect(failed).toMatchObject({ status: 'failed', charged_credits: 0 });
    expectInvariant(failed);
  });

  it('a comparison holds each child to its own model: 400 naming the field and the model, nothing reserved', async () => {
    const { api, org } = await orgOn(all);
    const before = await getWallet(all.db, org.id);
    const res = await api('POST', '/v1/comparisons', { key: org.live, body: { models: ['wan-2.2', 'kling-v2.1-master'], prompt: 'waves', params: { duration_s: 2 } } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'params.duration_s' });
    expect(res.body.error.message).toMatch(/kling-v2\.1-master/);
    expect(await getWallet(all.db, org.id)).toEqual(before);
    // Each child gets its own model's defaults: hailuo's 6 s beside kling's 5.
    const ok = await api('POST', '/v1/comparisons', { key: org.test, body: { models: ['kling-v2.1-master', 'hailuo-02'], prompt: 'waves' } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(202);
    const durations = Object.fromEntries(ok.body.generations.map((g: { model: string; params: { duration_s: number } }) => [g.model, g.params.duration_s]));
    expect(durations).toEqual({ 'kling-v2.1-master': 5, 'hailuo-02': 6 });
  });
});
