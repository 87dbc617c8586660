import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBudgets } from '../../src/domain/spending.js';
import { budgetYardsticks } from '../helpers/budgets.js';
import { expectWalletMatchesLedger } from '../helpers/money.js';
import { client, describeOnBackend, startTestServer, type TestServer } from '../helpers/server.js';

/** Blocking budgets (contract §7): the check at the reservation, concurrently too. */
describeOnBackend('blocking budgets', 'postgres', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    // The scheduler is slowed right down: the threshold test calls the check itself.
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_SCHEDULER_INTERVAL_MS: '3600000' });
    api = client(s.url);
  });
  afterAll(async () => s?.close());

  const { image, budgetFor, generationsOf } = budgetYardsticks(() => s);
  const generate = (key: string, prompt = 'a lighthouse') => api('POST', '/v1/images', { key, body: { model: image().slug, prompt } }); // its default size: the price above
  const wallet = async (key: string) => (await api('GET', '/v1/wallet', { key })).body;

  it('a block key budget refuses the request that would pass it, with nothing reserved', async () => {
    const org = await s.createOrg({ credits: 10_000_000 });
    const budget = budgetFor(2);
    const created = await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'capped', monthly_budget_usd: budget, budget_action: 'block' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ monthly_budget_usd: budget, budget_action: 'block', spent_usd: 0 });
    const key = created.body;
    const first = await generate(key.key);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect((await generate(key.key)).status).toBe(200);
    const before = await wallet(org.live);
    const refused = await generate(key.key);
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({ type: 'billing_error', code: 'budget_exceeded' });
    expect(refused.body.error.message).toMatch(/API key/);
    expect(await wallet(org.live)).toEqual(before);
    expect(await generationsOf(org.id)).toBe(2);
    // spent_usd shows the month's spend, on the key and in the list.
    const shown = (await api('GET', `/v1/api-keys/${key.id}`, { key: org.live })).body;
    expect(shown.spent_usd).toBeCloseTo((2 * image().credits) / 1000, 9);
    const listed = (await api('GET', '/v1/api-keys', { key: org.live })).body.data.find((k: any) => k.id === key.id);
    expect(listed.spent_usd).toBe(shown.spent_usd);
    // Other keys of the organization are not concerned by this key's budget.
    expect((await generate(org.live)).status).toBe(200);
    // Raising the budget lets the key through again; notify never refuses.
    const patched = await api('PATCH', `/v1/api-keys/${key.id}`, { key: org.live, body: { budget_action: 'notify' } });
    expect(patched.body).toMatchObject({ budget_action: 'notify', monthly_budget_usd: budget });
    expect((await generate(key.key)).status).toBe(200);
    await expectWalletMatchesLedger(s.db, org.id);
  });

  it('concurrently: of N parallel requests exactly as many are accepted as fit', async () => {
    const org = await s.createOrg({ credits: 10_000_000 });
    const fit = 3;
    const key = (await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'race', monthly_budget_usd: budgetFor(fit), budget_action: 'block' } })).body;
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => generate(key.key, `race ${i}`)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((x) => x === 200)).toHaveLength(fit);
    expect(statuses.filter((x) => x === 402)).toHaveLength(10 - fit);
    for (const r of results.filter((x) => x.status === 402)) expect(r.body.error.code).toBe('budget_exceeded');
    expect(await generationsOf(org.id)).toBe(fit);
    await expectWalletMatchesLedger(s.db, org.id);
  });

  it('held credits count: queued asynchronous work fills the budget before it is charged', async () => {
    const org = await s.createOrg({ credits: 10_000_000 });
    const video = s.runtime.deps.catalog.list({ modality: 'video' }).find((m) => m.slug === 'wan-2.2')!;
    const perVideo = Math.ceil((2 * video.pricing.unit_cost_usd) / 0.001 - 1e-9);
    const budget = Math.ceil((2 * perVideo) / 10) / 100;
    const key = (await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'held', monthly_budget_usd: budget, budget_action: 'block' } })).body;
    const slow = { model: video.slug, prompt: 'slow', duration_s: 2, simulate: { delay_ms: 60_000 } };
    expect((await api('POST', '/v1/videos', { key: key.key, body: slow })).status).toBe(202);
    expect((await api('POST', '/v1/videos', { key: key.key, body: slow })).status).toBe(202);
    expect((await wallet(org.live)).held_credits).toBe(2 * perVideo);
    const third = await api('POST', '/v1/videos', { key: key.key, body: slow });
    expect(third.status).toBe(402);
    expect(third.body.error.code).toBe('budget_exceeded');
    expect((await api('GET', `/v1/api-keys/${key.id}`, { key: org.live })).body.spent_usd).toBeCloseTo((2 * perVideo) / 1000, 9);
    // A canceled one gives its hold back, and with it room in the budget.
    const queued = (await s.db.query<{ id: string }>('SELECT id FROM generations WHERE api_key_id = $1 ORDER BY seq LIMIT 1', [key.id])).rows[0]!.id;
    expect((await api('POST', `/v1/generations/${queued}/cancel`, { key: key.key })).status).toBe(200);
    expect((await api('POST', '/v1/videos', { key: key.key, body: slow })).status).toBe(202);
  });

  it('the organization budget refuses across keys, and shows on GET /v1/organization', async () => {
    const org = await s.createOrg({ credits: 10_000_000 });
    const a = (await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'a' } })).body.key;
    const b = (await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'b' } })).body.key;
    const budget = budgetFor(4);
    const set = await api('PATCH', '/v1/organization', { key: org.live, body: { monthly_budget_usd: budget, budget_action: 'block' } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ monthly_budget_usd: budget, budget_action: 'block', spent_usd: 0, paused: false });
    expect((await generate(a)).status).toBe(200);
    // Concurrently from two keys: exactly three more fit.
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => generate(i % 2 === 0 ? a : b, `org ${i}`)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    const refused = results.filter((r) => r.status === 402);
    expect(refused).toHaveLength(5);
    for (const r of refused) expect(r.body.error.message).toMatch(/organization/);
    expect(await generationsOf(org.id)).toBe(4);
    const shown = (await api('GET', '/v1/organization', { key: a })).body;
    expect(shown.spent_usd).toBeCloseTo((4 * image().credits) / 1000, 9);
    // Test keys move no credits and are never refused by a budget.
    expect((await generate(org.test)).status).toBe(200);
    // Clearing the budget lifts the block.
    expect((await api('PATCH', '/v1/organization', { key: org.live, body: { monthly_budget_usd: null } })).body.monthly_budget_usd).toBeNull();
    expect((await generate(b)).status).toBe(200);
    await expectWalletMatchesLedger(s.db, org.id);
  });

  it('a comparison counts all its children, and a retry its new hold', async () => {
    const org = await s.createOrg({ credits: 10_000_000 });
    const models = s.runtime.deps.catalog.list({ modality: 'image' }).slice(0, 2);
    const key = (await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'cmp' } })).body;
    const body = { models: models.map((m) => m.slug), prompt: 'side by side', params: { width: 256, height: 256 } };
    const first = await api('POST', '/v1/comparisons', { key: key.key, body });
    expect(first.status).toBe(202);
    // Room for one comparison, not two: the second one's children do not all fit, so none is accepted.
    const price = first.body.reserved_credits;
    expect(price).toBeGreaterThanOrEqual(10);
    const capped = await api('PATCH', `/v1/api-keys/${key.id}`, { key: org.live, body: { monthly_budget_usd: Math.floor((2 * price - 1) / 10) / 100, budget_action: 'block' } });
    expect(capped.body, JSON.stringify({ price, capped: capped.body })).toMatchObject({ budget_action: 'block', spent_usd: price / 1000 });
    const before = await generationsOf(org.id);
    const second = await api('POST', '/v1/comparisons', { key: key.key, body });
    expect(second.status).toBe(402);
    expect(second.body.error.code).toBe('budget_exceeded');
    expect(await generationsOf(org.id)).toBe(before);

    // A retry reserves again: refused once the budget has no room for it.
    const video = s.runtime.deps.catalog.list({ modality: 'video' }).find((m) => m.slug === 'wan-2.2')!;
    const perVideo = Math.ceil((2 * video.pricing.unit_cost_usd) / 0.001 - 1e-9);
    const vkey = (await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'retry', monthly_budget_usd: Math.ceil(perVideo / 10) / 100, budget_action: 'block' } })).body;
    const failed = await api('POST', '/v1/videos', { key: vkey.key, body: { model: video.slug, prompt: 'fails', duration_s: 2, simulate: { outcome: 'failure' } } });
    expect(failed.status).toBe(202);
    for (;;) {
      const g = (await api('GET', `/v1/generations/${failed.body.id}`, { key: vkey.key })).body;
      if (g.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    // The failed one is refunded: its retry fits. A second video held meanwhile leaves no room for the retry.
    const hold = await api('POST', '/v1/videos', { key: vkey.key, body: { model: video.slug, prompt: 'slow', duration_s: 2, simulate: { delay_ms: 60_000 } } });
    expect(hold.status).toBe(202);
    const retry = await api('POST', `/v1/generations/${failed.body.id}/retry`, { key: vkey.key });
    expect(retry.status).toBe(402);
    expect(retry.body.error.code).toBe('budget_exceeded');
    expect((await api('GET', `/v1/generations/${failed.body.id}`, { key: vkey.key })).body.status).toBe('failed');
    await expectWalletMatchesLedger(s.db, org.id);
  });

  it('streamed chat is reserved against the budget and counts in its spend', async () => {
    const org = await s.createOrg({ credits: 10_000_000 });
    const chat = s.runtime.deps.catalog.list({ modality: 'chat' }).sort((a, b) => b.pricing.unit_cost_usd - a.pricing.unit_cost_usd)[0]!;
    const perToken = chat.pricing.unit_cost_usd / 0.001;
    const key = (await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'chat', monthly_budget_usd: 0.05, budget_action: 'block' } })).body;
    const stream = (maxTokens: number) =>
      fetch(`${s.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: chat.slug, messages: [{ role: 'user', content: 'hi' }], max_tokens: maxTokens, stream: true, simulate: { output_tokens: 5 } }),
      });
    // 50 credits of budget: a reservation of more tokens than that is refused before anything streams.
    const tooBig = await stream(Math.ceil(60 / perToken));
    expect(tooBig.status).toBe(402);
    expect(((await tooBig.json()) as any).error.code).toBe('budget_exceeded');
    const ok = await stream(Math.floor(40 / perToken));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/\[DONE\]/);
    const charged = Number((await s.db.query<{ c: string }>('SELECT sum(charged_credits) AS c FROM generations WHERE api_key_id = $1', [key.id])).rows[0]!.c);
    expect(charged).toBeGreaterThan(0);
    expect((await api('GET', `/v1/api-keys/${key.id}`, { key: org.live })).body.spent_usd).toBeCloseTo(charged / 1000, 9);
  });

  it('a notify budget lets requests through and fires each threshold once, for the key and the organization', async () => {
    const org = await s.createOrg({ credits: 10_000_000 });
    const budget = budgetFor(2);
    const key = (await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'notify', monthly_budget_usd: budget } })).body;
    expect(key.budget_action).toBe('notify');
    expect((await api('PATCH', '/v1/organization', { key: org.live, body: { monthly_budget_usd: budget } })).body.budget_action).toBe('notify');
    for (let i = 0; i < 3; i++) expect((await generate(key.key, `a lighthouse, ${i}`)).status).toBe(200);
    await checkBudgets(s.runtime.deps);
    await checkBudgets(s.runtime.deps);
    const events = (await s.db.query<{ data: any }>("SELECT data FROM events WHERE organization_id = $1 AND type = 'usage.budget_threshold' ORDER BY seq", [org.id])).rows.map((r) => r.data);
    const forKey = events.filter((e) => e.api_key_id === key.id);
    const forOrg = events.filter((e) => e.api_key_id === null);
    expect(forKey.map((e) => e.threshold_percent)).toEqual([50, 80, 100]);
    expect(forOrg.map((e) => e.threshold_percent)).toEqual([50, 80, 100]);
    expect(forOrg[2]).toMatchObject({ organization_id: org.id, monthly_budget_usd: budget, period: new Date().toISOString().slice(0, 7) });
    expect(forOrg[2].spent_usd).toBeCloseTo((3 * image().credits) / 1000, 9);
  });

  it('validates budgets and lets only owners set the organization’s', async () => {
    const org = await s.createOrg({ credits: 1000 });
    const bad: Array<[string, string, unknown, string]> = [
      ['PATCH', '/v1/organization', { monthly_budget_usd: -1 }, 'monthly_budget_usd'],
      ['PATCH', '/v1/organization', { monthly_budget_usd: 1.234 }, 'monthly_budget_usd'],
      ['PATCH', '/v1/organization', { budget_action: 'stop' }, 'budget_action'],
      ['POST', '/v1/api-keys', { name: 'x', monthly_budget_usd: 0.001 }, 'monthly_budget_usd'],
      ['POST', '/v1/api-keys', { name: 'x', budget_action: 'warn' }, 'budget_action'],
    ];
    for (const [method, path, body, param] of bad) {
      const res = await api(method, path, { key: org.live, body });
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param });
    }
    const keyId = (await api('GET', '/v1/api-keys/current', { key: org.live })).body.id;
    const patch = await api('PATCH', `/v1/api-keys/${keyId}`, { key: org.live, body: { monthly_budget_usd: -0.01 } });
    expect(patch.status).toBe(400);
    expect(patch.body.error.param).toBe('monthly_budget_usd');
    const admin = (await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'admin', role: 'admin' } })).body.key;
    const denied = await api('PATCH', '/v1/organization', { key: admin, body: { monthly_budget_usd: 10, budget_action: 'block' } });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('insufficient_role');
    expect((await api('GET', '/v1/organization', { key: admin })).body).toMatchObject({ monthly_budget_usd: null, budget_action: 'notify' });
  });
});
