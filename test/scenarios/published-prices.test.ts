import { afterAll, beforeAll, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import type { Modality } from '../../src/catalog/index.js';
import { startFakes, type Fakes } from '../fakes/index.js';
import { fakePng } from '../fakes/media.js';
import { modalityPaths } from '../helpers/catalog.js';
import type { PublishedTier } from '../../src/generations/published-prices.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * Published, quoted and reserved are one number (issue 28 item 4; docs/contract-addenda.md, "Published prices"): for
 * EVERY active model GET /v1/models lists, and EVERY price it publishes (the default variant, tiers[0], and each
 * tier), the request that selects it (the tier's `when` over the fields every request of the model carries, with an
 * input image of the published size where there is one) is quoted (POST /v1/quotes) and then sent with a live key to
 * its modality's endpoint against the strict loopback fakes: the published credits, the quote, the generation's
 * reserved_credits and its reserve row in the ledger must all agree. No worker runs, so an asynchronous request
 * stays queued with its hold; a synchronous one runs against the fakes.
 */

interface ModelEntry {
  slug: string;
  modality: Modality;
  pricing: { unit_cost_usd: number; unit: string; unit_description: string; source: string | null; estimate: boolean; version: string; tiers: PublishedTier[] };
}

/** User messages of `bytes` bytes in all, each within the chat content's 200,000-character cap. */
function longPrompt(bytes: number): Array<{ role: 'user'; content: string }> {
  const out: Array<{ role: 'user'; content: string }> = [];
  for (let left = bytes; left > 0; left -= 200_000) out.push({ role: 'user', content: 'a'.repeat(Math.min(left, 200_000)) });
  return out;
}

describeOnBackend('published prices = quote = reservation, for every active model and tier', 'pglite', (backend) => {
  let fakes: Fakes;
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;
  let models: ModelEntry[];
  let PATHS: Record<Modality, string>;
  const images = new Map<string, string>();

  beforeAll(async () => {
    fakes = await startFakes({ jobMs: 40 });
    s = await startTestServer(backend, { ...fakes.env, MMGEN_ALLOW_PRIVATE_NETWORK: '1', MMGEN_CIRCUIT_FAILURE_THRESHOLD: '500' }, { worker: false });
    api = client(s.url);
    org = await s.createOrg({ credits: 100_000_000 });
    const list = await api('GET', '/v1/models', { key: org.live });
    expect(list.status).toBe(200);
    models = list.body.data as ModelEntry[];
    PATHS = modalityPaths((await api('GET', '/v1/openapi.json')).body);
  });
  afterAll(async () => {
    await s?.close();
    await fakes?.close();
  });

  /** An input image of that size, served by a loopback fake (made once per size). */
  const imageOf = async (size: { width: number; height: number }) => {
    const key = `${size.width}x${size.height}`;
    if (!images.has(key)) images.set(key, fakes.fal.hostFile(await fakePng('an input photo', size.width, size.height), 'image/png', 'png'));
    return images.get(key)!;
  };

  it('publishes a price for every active model: the default variant first, and what it stands on', () => {
    expect(models.length).toBeGreaterThan(50);
    for (const m of models) {
      const p = m.pricing;
      expect(p.tiers.length, m.slug).toBeGreaterThanOrEqual(1);
      expect(p.tiers[0]!.when, m.slug).toEqual({});
      expect(p.version, m.slug).toMatch(/^pv_[0-9a-f]{16}$/);
      expect(typeof p.unit_description).toBe('string');
      if (p.source !== null) expect(p.source, m.slug).toMatch(/^https?:\/\/\S+$/);
      if (p.source !== null) expect(p.estimate, m.slug).toBe(false);
      for (const t of p.tiers) {
        // The example is the request the tier stands for: its selecting fields are in it as published.
        expect(t.example, m.slug).toMatchObject({ model: m.slug, ...t.when });
        // Where the price is plain units × price, the published unit price says the same as the credits.
        if (!t.per_megapixel && m.modality !== 'avatar') {
          expect(t.credits, `${m.slug} ${JSON.stringify(t.when)}`).toBe(new Decimal(t.units).mul(t.unit_cost_usd).div('0.001').ceil().toNumber());
        }
      }
    }
    // The tiered GPT image models publish their larger sizes' prices in mmgen's own fields.
    const tiered = models.filter((m) => m.pricing.tiers.length > 1);
    expect(tiered.length).toBeGreaterThanOrEqual(2);
    const gpt = models.find((m) => m.slug === 'gpt-image-1-mini');
    if (gpt) expect(gpt.pricing.tiers.map((t) => t.when)).toEqual([{}, { width: 1536, height: 1024 }, { width: 1024, height: 1536 }]);
  });

  it('for every tier, the quote and the live reservation (answer and ledger) are the published credits', async () => {
    let checked = 0;
    for (const m of models) {
      for (const t of m.pricing.tiers) {
        const label = `${m.slug} ${JSON.stringify(t.when)}${t.input_image ? ` image ${t.input_image.width}×${t.input_image.height}` : ''}`;
        const body: Record<string, unknown> = { ...t.example, ...t.when, model: m.slug };
        if (t.input_image) body.image_url = await imageOf(t.input_image);
        // A long-context tier's example stands for a prompt longer than its bound: sent with one (messages of a long word).
        if (t.input_tokens_over !== undefined) body.messages = [...(body.messages as unknown[]), ...longPrompt(t.input_tokens_over + 1)];
        const q = await api('POST', '/v1/quotes', { key: org.live, body });
        expect(q.status, `${label}: ${JSON.stringify(q.body)}`).toBe(200);
        expect(q.body.credits, `quote of ${label}`).toBe(t.credits);
        const sent = await api('POST', PATHS[m.modality], { key: org.live, body: { ...body, cache: false } });
        expect([200, 202], `${label}: ${JSON.stringify(sent.body)}`).toContain(sent.status);
        expect(sent.body.reserved_credits, `reservation of ${label}`).toBe(t.credits);
        const held = await s.db.query<{ held: string }>("SELECT held_delta::text AS held FROM ledger_entries WHERE kind = 'reserve' AND generation_id = $1", [sent.body.id]);
        expect(held.rows.map((r) => Number(r.held)), `ledger of ${label}`).toEqual(t.credits > 0 ? [t.credits] : []);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(models.length);
  }, 600_000);
});
