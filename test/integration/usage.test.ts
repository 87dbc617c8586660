import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBudgets, detectAnomalies } from '../../src/domain/spending.js';
import { client, describeOnBackend, startTestServer, type TestServer } from '../helpers/server.js';

describeOnBackend('usage, budgets and anomalies', 'postgres', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    // The scheduler is slowed right down: these tests call the checks themselves.
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_SCHEDULER_INTERVAL_MS: '3600000', MMGEN_ANOMALY_FLOOR_USD: '0.5' });
    api = client(s.url);
  });
  afterAll(async () => s?.close());

  const chatModel = () => s.runtime.deps.catalog.list({ modality: 'chat' })[0]!.slug;
  const imageModel = (i = 0) => s.runtime.deps.catalog.list({ modality: 'image' })[i]!.slug;

  async function spend(key: string, n: number, model = imageModel()) {
    for (let i = 0; i < n; i++) {
      const res = await api('POST', '/v1/images', { key, body: { model, prompt: `p${i}`, width: 256, height: 256 } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  }

  describe('GET /v1/usage', () => {
    it('groups by day, model and api_key, and agrees with the ledger', async () => {
      const org = await s.createOrg({ credits: 10_000_000 });
      const second = (await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'second' } })).body;
      await spend(org.live, 3, imageModel(0));
      await spend(second.key, 2, imageModel(1));
      const failed = await api('POST', '/v1/images', { key: org.live, body: { model: imageModel(0), prompt: 'x', simulate: { outcome: 'failure' } } });
      expect(failed.status).toBe(502);

      const byDay = (await api('GET', '/v1/usage', { key: org.live })).body;
      const today = new Date().toISOString().slice(0, 10);
      expect(byDay).toMatchObject({ object: 'usage', group_by: 'day', start: `${today.slice(0, 7)}-01`, end: today });
      expect(byDay.data).toHaveLength(1);
      expect(byDay.data[0].key).toBe(today);
      expect(byDay.totals.generations).toBe(6);

      const ledger = await s.db.query<{ charged: string; refunded: string }>(
        `SELECT -sum(balance_delta) FILTER (WHERE kind = 'charge') AS charged, -sum(held_delta) FILTER (WHERE kind = 'release') AS refunded
         FROM ledger_entries WHERE organization_id = $1`,
        [org.id],
      );
      expect(byDay.totals.charged_credits).toBe(Number(ledger.rows[0]!.charged));
      expect(byDay.totals.refunded_credits).toBe(Number(ledger.rows[0]!.refunded));
      expect(byDay.totals.refunded_credits).toBeGreaterThan(0);
      expect(byDay.totals.cost_usd).toBeCloseTo(byDay.totals.charged_credits * 0.001, 9);

      const byModel = (await api('GET', '/v1/usage?group_by=model', { key: org.live })).body;
      expect(byModel.data.map((d: any) => d.key).sort()).toEqual([imageModel(0), imageModel(1)].sort());
      expect(byModel.data.find((d: any) => d.key === imageModel(1)).generations).toBe(2);

      const byKey = (await api('GET', '/v1/usage?group_by=api_key', { key: org.live })).body;
      const keys = Object.fromEntries(byKey.data.map((d: any) => [d.key, d.generations]));
      expect(keys[second.id]).toBe(2);
      expect(Object.values(keys).reduce((a: number, b) => a + (b as number), 0)).toBe(6);
    });

    it('groups by modality, and splits rows by a second dimension with breakdown', async () => {
      const org = await s.createOrg({ credits: 10_000_000 });
      await spend(org.live, 2, imageModel(0));
      await spend(org.live, 1, imageModel(1));
      const chat = await api('POST', '/v1/chat', { key: org.live, body: { model: chatModel(), messages: [{ role: 'user', content: 'hi' }] } });
      expect(chat.status).toBe(200);

      const byModality = (await api('GET', '/v1/usage?group_by=modality', { key: org.live })).body;
      expect(byModality.data.map((d: any) => [d.key, d.generations])).toEqual([['chat', 1], ['image', 3]]);
      expect(byModality.data[0].breakdown).toBeUndefined();

      const today = new Date().toISOString().slice(0, 10);
      const split = (await api('GET', '/v1/usage?group_by=day&breakdown=modality', { key: org.live })).body;
      expect(split.breakdown).toBe('modality');
      expect(split.data).toHaveLength(1);
      const day = split.data[0];
      expect(day.key).toBe(today);
      expect(day.breakdown.map((b: any) => [b.key, b.generations])).toEqual([['chat', 1], ['image', 3]]);
      // Each row is the sum of its parts, and the totals the sum of the rows.
      for (const f of ['generations', 'charged_credits', 'refunded_credits'] as const) {
        expect(day[f]).toBe(day.breakdown.reduce((t: number, b: any) => t + b[f], 0));
        expect(split.totals[f]).toBe(day[f]);
      }
      expect(day.breakdown.find((b: any) => b.key === 'image').charged_credits).toBe(
        byModality.data.find((d: any) => d.key === 'image').charged_credits,
      );

      const byModel = (await api('GET', '/v1/usage?group_by=model&breakdown=day', { key: org.live })).body;
      expect(byModel.data.find((d: any) => d.key === imageModel(0)).breakdown).toEqual([
        expect.objectContaining({ key: today, generations: 2 }),
      ]);

      const same = await api('GET', '/v1/usage?group_by=model&breakdown=model', { key: org.live });
      expect(same.status).toBe(400);
      expect(same.body.error).toMatchObject({ code: 'parameter_invalid', param: 'breakdown' });
      const unknown = await api('GET', '/v1/usage?breakdown=week', { key: org.live });
      expect(unknown.body.error).toMatchObject({ code: 'parameter_invalid', param: 'breakdown' });
    });

    it('test keys see test usage only (free), and live usage never mixes in', async () => {
      const org = await s.createOrg({ credits: 1_000_000 });
      await spend(org.test, 2);
      await spend(org.live, 1);
      const test = (await api('GET', '/v1/usage', { key: org.test })).body;
      expect(test.totals).toMatchObject({ generations: 2, charged_credits: 0, cost_usd: 0 });
      const live = (await api('GET', '/v1/usage', { key: org.live })).body;
      expect(live.totals.generations).toBe(1);
    });

    it('validates dates and range, and needs usage:read', async () => {
      const org = await s.createOrg();
      for (const [q, param] of [['start=2026-13-01', 'start'], ['end=yesterday', 'end'], ['start=2026-05-10&end=2026-05-01', 'start'], ['start=2020-01-01&end=2026-01-01', 'end'], ['group_by=week', 'group_by']] as const) {
        const res = await api('GET', `/v1/usage?${q}`, { key: org.live });
        expect(res.status, q).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param });
      }
      const past = (await api('GET', '/v1/usage?start=2025-01-01&end=2025-01-31', { key: org.live })).body;
      expect(past).toMatchObject({ start: '2025-01-01', end: '2025-01-31', data: [], totals: { generations: 0 } });
      const noScope = (await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'n', scopes: ['images:write'] } })).body.key;
      expect((await api('GET', '/v1/usage', { key: noScope })).status).toBe(403);
    });
  });

  describe('budgets', () => {
    it('fire 50, 80 and 100 % once each per month, computed from what the key was charged', async () => {
      const org = await s.createOrg({ credits: 10_000_000 });
      const model = s.runtime.deps.catalog.list({ modality: 'image' })[0]!;
      const perImage = Math.ceil(model.pricing.unit_cost_usd / 0.001 - 1e-9);
      // A budget of exactly 10 images.
      const budgetUsd = (perImage * 10) / 1000;
      const key = (await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'budgeted', monthly_budget_usd: budgetUsd } })).body;
      const events = async () =>
        (await s.db.query<{ data: any }>("SELECT data FROM events WHERE organization_id = $1 AND type = 'usage.budget_threshold' ORDER BY seq", [org.id])).rows.map((r) => r.data);

      await spend(key.key, 4);
      await checkBudgets(s.runtime.deps);
      expect(await events()).toEqual([]);
      await spend(key.key, 1); // 50 %
      await checkBudgets(s.runtime.deps);
      await checkBudgets(s.runtime.deps);
      expect((await events()).map((e) => e.threshold_percent)).toEqual([50]);
      await spend(key.key, 6); // 110 %: 80 and 100 together
      await checkBudgets(s.runtime.deps);
      const all = await events();
      expect(all.map((e) => e.threshold_percent)).toEqual([50, 80, 100]);
      expect(all[2]).toMatchObject({ api_key_id: key.id, monthly_budget_usd: budgetUsd, period: new Date().toISOString().slice(0, 7) });
      expect(all[2].spent_usd).toBeCloseTo((perImage * 11) / 1000, 9);
      // Budgets notify; they never block.
      await spend(key.key, 1);
      await checkBudgets(s.runtime.deps);
      expect(await events()).toHaveLength(3);
    });
  });

  describe('the anomaly detector', () => {
    it('pauses an organization whose last-hour spend is far above its baseline; unpausing restores it', async () => {
      const org = await s.createOrg({ credits: 100_000_000 });
      const model = s.runtime.deps.catalog.list({ modality: 'video' })[0]!;
      // Enough spend to pass the 0.5 USD floor configured for this test, with no baseline at all.
      let spent = 0;
      while (spent < 0.6) {
        const res = await api('POST', '/v1/videos', { key: org.live, body: { model: model.slug, prompt: 'burst', duration_s: 10 } });
        expect(res.status).toBe(202);
        spent += 10 * model.pricing.unit_cost_usd;
      }
      for (;;) {
        const w = (await api('GET', '/v1/wallet', { key: org.live })).body;
        if (w.held_credits === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const quiet = await s.createOrg({ credits: 10_000 }); // spends below the floor
      await spend(quiet.live, 1);

      const paused = await detectAnomalies(s.runtime.deps);
      expect(paused).toContain(org.id);
      expect(paused).not.toContain(quiet.id);
      expect(await detectAnomalies(s.runtime.deps)).not.toContain(org.id); // once

      const refused = await api('POST', '/v1/images', { key: org.live, body: { model: imageModel(), prompt: 'x' } });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('organization_paused');
      expect((await api('GET', '/v1/organization', { key: org.live })).body.paused).toBe(true);
      const ev = await s.db.query<{ data: any }>("SELECT data FROM events WHERE organization_id = $1 AND type = 'usage.anomaly_detected'", [org.id]);
      expect(ev.rows).toHaveLength(1);
      expect(ev.rows[0]!.data).toMatchObject({ organization_id: org.id, window_minutes: 60, baseline_usd: 0, paused: true });
      expect(ev.rows[0]!.data.spent_usd).toBeGreaterThanOrEqual(0.5);

      expect((await api('PATCH', '/v1/organization', { key: org.live, body: { paused: false } })).body.paused).toBe(false);
      expect((await api('POST', '/v1/images', { key: org.live, body: { model: imageModel(), prompt: 'x', width: 256, height: 256 } })).status).toBe(200);
    });

    it('a steady spender with a matching baseline is left alone', async () => {
      const org = await s.createOrg({ credits: 100_000_000 });
      const model = s.runtime.deps.catalog.list({ modality: 'video' })[0]!;
      const perVideo = Math.ceil((10 * model.pricing.unit_cost_usd) / 0.001);
      // A baseline: the same spend every day of the last week, as rollups.
      for (let d = 1; d <= 7; d++) {
        const day = new Date(Date.now() - d * 86_400_000).toISOString().slice(0, 10);
        await s.db.query(
          `INSERT INTO usage_rollups (organization_id, mode, day, model, modality, api_key_id, generations, charged_credits, refunded_credits)
           VALUES ($1, 'live', $2, $3, 'video', 'key_x', 100, $4, 0)`,
          [org.id, day, model.slug, perVideo * 24 * 10],
        );
      }
      let spent = 0;
      while (spent < 0.6) {
        await api('POST', '/v1/videos', { key: org.live, body: { model: model.slug, prompt: 'steady', duration_s: 10 } });
        spent += 10 * model.pricing.unit_cost_usd;
      }
      for (;;) {
        if ((await api('GET', '/v1/wallet', { key: org.live })).body.held_credits === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await detectAnomalies(s.runtime.deps)).not.toContain(org.id);
    });
  });
});
