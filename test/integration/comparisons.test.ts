import { afterAll, beforeAll, expect, it } from 'vitest';
import { getWallet, ledgerSums, topUp } from '../../src/billing/credits.js';
import { client, describeOnBackend, startTestServer, type TestServer } from '../helpers/server.js';

describeOnBackend('comparisons', 'postgres', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  const slugs = (modality: string, n: number) => s.runtime.deps.catalog.list({ modality: modality as never }).slice(0, n).map((m) => m.slug);

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1' });
    api = client(s.url);
  });
  afterAll(async () => s?.close());

  async function waitCompleted(key: string, id: string): Promise<any> {
    for (let i = 0; i < 400; i++) {
      const c = (await api('GET', `/v1/comparisons/${id}`, { key })).body;
      if (c.status === 'completed') return c;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('comparison did not complete');
  }

  it('runs one prompt on N models asynchronously and completes when all children are terminal', async () => {
    const org = await s.createOrg({ plan: 'pro', credits: 1_000_000 });
    const models = slugs('image', 3);
    const res = await api('POST', '/v1/comparisons', { key: org.live, body: { models, prompt: 'a red fox', params: { width: 256, height: 256 } } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const c = res.body;
    expect(c.id).toMatch(/^cmp_/);
    expect(c).toMatchObject({ object: 'comparison', modality: 'image', prompt: 'a red fox', models, completed_at: null });
    expect(c.generations).toHaveLength(3);
    expect(c.reserved_credits).toBe(c.generations.reduce((n: number, g: any) => n + g.reserved_credits, 0));
    expect(c.reserved_credits).toBeGreaterThan(0);
    for (const g of c.generations) expect(g.comparison_id).toBe(c.id);
    const done = await waitCompleted(org.live, c.id);
    expect(done.completed_at).not.toBeNull();
    expect(done.generations.map((g: any) => g.model)).toEqual(models);
    for (const g of done.generations) {
      expect(g.status).toBe('succeeded');
      expect(g.outputs[0]).toMatchObject({ type: 'image', width: 256, height: 256 });
      expect(g.reserved_credits).toBe(g.charged_credits + g.refunded_credits);
    }
    // comparison.completed is written once, with the children's ids.
    const events = await s.db.query<{ type: string; data: any }>("SELECT type, data FROM events WHERE organization_id = $1 AND type = 'comparison.completed'", [org.id]);
    expect(events.rows).toHaveLength(1);
    expect(events.rows[0]!.data).toEqual({ comparison_id: c.id, status: 'completed', generation_ids: c.generations.map((g: any) => g.id) });
  });

  it('a comparison with failures still completes once; children carry their own outcomes', async () => {
    const org = await s.createOrg({ plan: 'team', credits: 1_000_000 });
    const res = await api('POST', '/v1/comparisons', { key: org.test, body: { models: ['eleven-music', 'stable-audio-2.5'], prompt: 'jazz', params: { duration_s: 5 }, simulate: { outcome: 'failure' } } });
    expect(res.status).toBe(202);
    const done = await waitCompleted(org.test, res.body.id);
    expect(done.generations.every((g: any) => g.status === 'failed')).toBe(true);
    const events = await s.db.query("SELECT 1 FROM events WHERE organization_id = $1 AND type = 'comparison.completed'", [org.id]);
    expect(events.rows).toHaveLength(1);
  });

  it('canceling children counts them as terminal', async () => {
    const org = await s.createOrg({ plan: 'team', credits: 1_000_000 });
    const res = await api('POST', '/v1/comparisons', { key: org.live, body: { models: ['wan-2.2', 'hunyuan-video'], prompt: 'slow', params: { duration_s: 1 }, simulate: { delay_ms: 20_000 } } });
    for (const g of res.body.generations) expect((await api('POST', `/v1/generations/${g.id}/cancel`, { key: org.live })).status).toBe(200);
    const done = await waitCompleted(org.live, res.body.id);
    expect(done.generations.every((g: any) => g.status === 'canceled')).toBe(true);
    const wallet = await getWallet(s.db, org.id);
    expect(wallet).toMatchObject({ balance_credits: 1_000_000, held_credits: 0 });
  });

  it('chat and voice prompts land in their own fields', async () => {
    const org = await s.createOrg({ plan: 'pro' });
    const chat = await api('POST', '/v1/comparisons', { key: org.test, body: { models: slugs('chat', 2), prompt: 'Hi there', params: { max_tokens: 50 } } });
    expect(chat.status, JSON.stringify(chat.body)).toBe(202);
    const done = await waitCompleted(org.test, chat.body.id);
    for (const g of done.generations) {
      expect(g.prompt).toBe('Hi there');
      expect(g.params.messages).toEqual([{ role: 'user', content: 'Hi there' }]);
      expect(g.message.content.length).toBeGreaterThan(0);
    }
    const voice = await api('POST', '/v1/comparisons', { key: org.test, body: { models: slugs('voice', 2), prompt: 'Read me' } });
    expect(voice.status).toBe(202);
    expect(voice.body.generations[0].params.text).toBe('Read me');
  });

  it('plan width: free 2, pro 3, studio 6, team 12 → 403 plan_limit_exceeded beyond', async () => {
    const images = slugs('image', 13);
    for (const [plan, width] of [['free', 2], ['pro', 3], ['studio', 6], ['team', 12]] as const) {
      const org = await s.createOrg({ plan });
      // A size and a prompt every one of the image models takes (seedream-4 draws 1024 px and up on Replicate, nano-banana wants 3 characters on fal).
      const ok = await api('POST', '/v1/comparisons', { key: org.test, body: { models: images.slice(0, width), prompt: 'a red fox', params: { width: 1024, height: 1024 } } });
      expect(ok.status, `${plan} ${JSON.stringify(ok.body)}`).toBe(202);
      if (width < 12) {
        const over = await api('POST', '/v1/comparisons', { key: org.test, body: { models: images.slice(0, width + 1), prompt: 'x' } });
        expect(over.status, plan).toBe(403);
        expect(over.body.error).toMatchObject({ code: 'plan_limit_exceeded', param: 'models' });
      }
    }
  });

  it('more models than the plan allows is 403 above 12 too, not a schema limit', async () => {
    // On this date the catalog serves 13 image models (gpt-image-1-mini's shutdown is months away), one more than the widest plan.
    const early = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_CATALOG_DATE: '2026-01-01' });
    try {
      const images = early.runtime.deps.catalog.list({ modality: 'image' }).map((m) => m.slug);
      expect(images.length).toBeGreaterThanOrEqual(13);
      const team = await early.createOrg({ plan: 'team' });
      const over = await client(early.url)('POST', '/v1/comparisons', { key: team.test, body: { models: images.slice(0, 13), prompt: 'x' } });
      expect(over.status, JSON.stringify(over.body)).toBe(403);
      expect(over.body.error).toMatchObject({ code: 'plan_limit_exceeded', param: 'models' });
      // The models are still checked first (contract: model, then plan limits): an unknown one among 13 is 404.
      const unknown = await client(early.url)('POST', '/v1/comparisons', { key: team.test, body: { models: [...images.slice(0, 12), 'no-such-model'], prompt: 'x' } });
      expect(unknown.body.error).toMatchObject({ code: 'model_not_found', param: 'models[12]' });
    } finally {
      await early.close();
    }
  });

  it('402 reserves nothing and creates nothing when the wallet cannot cover all children', async () => {
    // Three video models that take 5 s.
    const models = s.runtime.deps.catalog.list({ modality: 'video' }).filter((m) => ['kling-v2.1-master', 'kling-v2.5-turbo-pro', 'seedance-1-pro'].includes(m.slug));
    expect(models).toHaveLength(3);
    const org = await s.createOrg({ plan: 'pro', credits: 0 });
    // Enough for the first child only.
    const first = Math.ceil((5 * models[0]!.pricing.unit_cost_usd) / 0.001);
    await s.db.tx((q) => topUp(q, { organizationId: org.id, credits: first, reference: `t:${org.id}` }));
    const res = await api('POST', '/v1/comparisons', { key: org.live, body: { models: models.map((m) => m.slug), prompt: 'x', params: { duration_s: 5 } } });
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('insufficient_credits');
    const gens = await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM generations WHERE organization_id = $1', [org.id]);
    const cmps = await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM comparisons WHERE organization_id = $1', [org.id]);
    expect(gens.rows[0]!.n).toBe(0);
    expect(cmps.rows[0]!.n).toBe(0);
    const wallet = await getWallet(s.db, org.id);
    expect(wallet).toMatchObject({ balance_credits: first, held_credits: 0 });
    expect(await ledgerSums(s.db, org.id)).toEqual({ balance_credits: first, held_credits: 0 });
  });

  it('validation: mixed modalities, duplicates, unknown and delisted models, bad params, scope', async () => {
    const org = await s.createOrg({ plan: 'team' });
    const [img] = slugs('image', 1);
    const [chat] = slugs('chat', 1);
    const delisted = s.runtime.deps.catalog.models.find((m) => m.status === 'delisted' && m.modality === 'image')!.slug;
    const cases: Array<[unknown, number, string, string | undefined]> = [
      [{ models: [img, chat], prompt: 'x' }, 400, 'parameter_invalid', 'models'],
      [{ models: [img, img], prompt: 'x' }, 400, 'parameter_invalid', 'models'],
      [{ models: [img], prompt: 'x' }, 400, 'parameter_invalid', 'models'],
      [{ models: [img, 'nope'], prompt: 'x' }, 404, 'model_not_found', 'models[1]'],
      [{ models: [img, delisted], prompt: 'x' }, 410, 'model_unavailable', 'models[1]'],
      [{ models: slugs('image', 2), prompt: 'x', params: { num_outputs: 9 } }, 400, 'parameter_invalid', 'params.num_outputs'],
      [{ models: slugs('image', 2), prompt: 'x', params: { colour: 'red' } }, 400, 'parameter_unknown', 'params.colour'],
      [{ models: slugs('image', 2) }, 400, 'parameter_missing', 'prompt'],
      [{ models: slugs('image', 2), prompt: 'x', extra: 1 }, 400, 'parameter_unknown', 'extra'],
    ];
    for (const [body, status, code, param] of cases) {
      const res = await api('POST', '/v1/comparisons', { key: org.test, body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error, JSON.stringify(body)).toMatchObject({ code, ...(param ? { param } : {}) });
    }
    const videoOnly = (await api('POST', '/v1/api-keys', { key: org.test, body: { name: 'v', scopes: ['videos:write', 'generations:read'] } })).body.key;
    const denied = await api('POST', '/v1/comparisons', { key: videoOnly, body: { models: slugs('image', 2), prompt: 'x' } });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('insufficient_role');
    expect((await api('POST', '/v1/comparisons', { key: videoOnly, body: { models: slugs('video', 2), prompt: 'x' } })).status).toBe(202);
  });

  it('another organization or mode gets 404', async () => {
    const org = await s.createOrg({ plan: 'pro' });
    const res = await api('POST', '/v1/comparisons', { key: org.test, body: { models: slugs('chat', 2), prompt: 'x' } });
    const other = await s.createOrg();
    expect((await api('GET', `/v1/comparisons/${res.body.id}`, { key: other.test })).status).toBe(404);
    expect((await api('GET', `/v1/comparisons/${res.body.id}`, { key: org.live })).status).toBe(404);
  });
});
