import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakes, type Fakes } from '../fakes/index.js';
import { ADMIN_TOKEN } from '../helpers/operator-catalog.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';
import { expectWalletMatchesLedger } from '../helpers/money.js';

/**
 * Prices are versioned (issue 28 item 4; docs/contract-addenda.md, "Price versions"): a generation records the
 * version of its model's prices that priced it, as GET /v1/models publishes it; an operator's price change (the
 * admin API) publishes a new version and prices new requests at it, while what was charged before keeps its
 * version and its credits; GET /v1/usage splits spending by version.
 */
describeOnBackend('price versions', 'pglite', (backend) => {
  let fakes: Fakes;
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;
  const admin = (method: string, path: string, body?: unknown) => api(method, path, { key: ADMIN_TOKEN, body, headers: { 'x-mmgen-operator': 'ada' } });
  const body = { model: 'gpt-image-1-mini', prompt: 'a wide harbour', width: 1536, height: 1024 };

  beforeAll(async () => {
    fakes = await startFakes({ jobMs: 20 });
    s = await startTestServer(backend, { ...fakes.env, MMGEN_ADMIN_TOKEN: ADMIN_TOKEN, MMGEN_ALLOW_PRIVATE_NETWORK: '1' });
    api = client(s.url);
    org = await s.createOrg({ credits: 1_000_000 });
  });
  afterAll(async () => {
    await admin('PUT', '/v1/admin/margin', { margin_percent: null }).catch(() => {});
    await s?.close();
    await fakes?.close();
  });

  const published = async () => (await api('GET', '/v1/models/gpt-image-1-mini', { key: org.live })).body.pricing;

  it('a charge records its version; a price change makes a new one and never rewrites what was charged', async () => {
    const before = await published();
    const first = await api('POST', '/v1/images', { key: org.live, body });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ status: 'succeeded', price_version: before.version, charged_credits: before.tiers[1].credits });

    // The operator raises every price by 50 %: a new version, published and charged.
    expect((await admin('PUT', '/v1/admin/margin', { margin_percent: 50 })).status).toBe(200);
    const after = await published();
    expect(after.version).not.toBe(before.version);
    expect(after.tiers[1].credits).toBeGreaterThan(before.tiers[1].credits);
    const second = await api('POST', '/v1/images', { key: org.live, body });
    expect(second.body).toMatchObject({ status: 'succeeded', price_version: after.version, charged_credits: after.tiers[1].credits });

    // The first generation is as it was charged.
    const again = await api('GET', `/v1/generations/${first.body.id}`, { key: org.live });
    expect(again.body).toMatchObject({ price_version: before.version, charged_credits: before.tiers[1].credits });

    // Usage, by model and version: each version's spending apart.
    const usage = await api('GET', '/v1/usage?group_by=model&breakdown=price_version', { key: org.live });
    const line = usage.body.data.find((l: { key: string }) => l.key === 'gpt-image-1-mini');
    expect(line.breakdown).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: before.version, generations: 1, charged_credits: before.tiers[1].credits }),
        expect.objectContaining({ key: after.version, generations: 1, charged_credits: after.tiers[1].credits }),
      ]),
    );
    const byVersion = await api('GET', '/v1/usage?group_by=price_version', { key: org.live });
    expect(byVersion.body.data.map((l: { key: string }) => l.key)).toEqual(expect.arrayContaining([before.version, after.version]));
    await expectWalletMatchesLedger(s.db, org.id);

    // Back to the shipped prices: the version is the one it was (a digest of the prices, not a counter).
    expect((await admin('PUT', '/v1/admin/margin', { margin_percent: null })).status).toBe(200);
    expect((await published()).version).toBe(before.version);
  });
});
