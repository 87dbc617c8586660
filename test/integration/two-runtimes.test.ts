import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, newReplicateRecord } from '../helpers/operator-catalog.js';
import { client, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * Two installations in one process (issue 43: test files share a worker's modules, and later its servers) share
 * nothing but the shipped files: an operator's record added or edited on one is not the other's. Each server has a
 * database of its own, so only state held at module level could carry a change from one to the other.
 */
describe('two runtimes in one process', () => {
  let a: TestServer;
  let b: TestServer;
  let orgA: TestOrg;
  let orgB: TestOrg;

  beforeAll(async () => {
    // Live keys served by the simulator: a quote needs a provider, and it plays a model's first route that takes the request.
    const env = { MMGEN_ADMIN_TOKEN: ADMIN_TOKEN, MMGEN_SIMULATE_PROVIDERS: '1' };
    [a, b] = await Promise.all([startTestServer('pglite', env), startTestServer('pglite', env)]);
    [orgA, orgB] = await Promise.all([a.createOrg(), b.createOrg()]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it("an operator's records on one are not the other's: its models, parameters, prices and record lookups", async () => {
    const [apiA, apiB] = [client(a.url), client(b.url)];
    const admin = (api: ReturnType<typeof client>, method: string, path: string, body?: unknown) => api(method, path, { key: ADMIN_TOKEN, body });
    const schnellOnB = (await apiB('GET', '/v1/models/flux-schnell', { key: orgB.live })).body;
    const shippedMax = schnellOnB.parameters.properties.num_outputs.maximum;
    expect(shippedMax).toBeGreaterThan(2);

    // On A: a model with a record of its own, and the record of a shipped route edited (fewer outputs, a dearer price).
    const added = await admin(apiA, 'POST', '/v1/admin/models', {
      model: { slug: 'acme-solo', display_name: 'Acme Solo', modality: 'image', routes: [{ provider: 'replicate', upstream: 'acme/solo' }], capabilities: ['text-to-image'], unit_cost_usd: '0.05' },
      records: [newReplicateRecord('acme/solo')],
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const edited = newReplicateRecord('black-forest-labs/flux-schnell');
    (edited.input.properties.num_outputs as { maximum: number }).maximum = 2;
    const patched = await admin(apiA, 'PATCH', '/v1/admin/models/flux-schnell', { records: [{ ...edited, price: { unit_cost_usd: '0.5' } }] });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const schnellOnA = (await apiA('GET', '/v1/models/flux-schnell', { key: orgA.live })).body;
    expect(schnellOnA.parameters.properties.num_outputs.maximum).toBe(2);
    expect(schnellOnA.pricing.tiers[0].credits).toBeGreaterThan(schnellOnB.pricing.tiers[0].credits);

    // B is as shipped: its own model list, parameters, prices and price version.
    expect((await apiB('GET', '/v1/models/acme-solo', { key: orgB.live })).status).toBe(404);
    const schnellOnBNow = (await apiB('GET', '/v1/models/flux-schnell', { key: orgB.live })).body;
    expect(schnellOnBNow.parameters).toEqual(schnellOnB.parameters);
    expect(schnellOnBNow.pricing).toEqual(schnellOnB.pricing);
    const quote = await apiB('POST', '/v1/quotes', { key: orgB.live, body: { model: 'flux-schnell', prompt: 'a kite', num_outputs: 4 } });
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
    expect(quote.body.credits).toBe(schnellOnB.pricing.tiers[0].credits * 4);
    // And B has no record of A's upstream model: a model routed to it needs one given.
    const onB = await admin(apiB, 'POST', '/v1/admin/models', {
      model: { slug: 'acme-solo', display_name: 'Acme Solo', modality: 'image', routes: [{ provider: 'replicate', upstream: 'acme/solo' }], capabilities: ['text-to-image'], unit_cost_usd: '0.05' },
    });
    expect(onB.status, JSON.stringify(onB.body)).toBe(400);
    expect(onB.body.error).toMatchObject({ code: 'parameter_invalid', param: 'model.routes[0].upstream' });
  });
});
