import { afterAll, beforeAll, expect, it } from 'vitest';
import { costInCredits } from '../../src/billing/credits.js';
import { startFakes, type Fakes } from '../fakes/index.js';
import { expectWalletMatchesLedger } from '../helpers/money.js';
import { ADMIN_TOKEN, newReplicateRecord } from '../helpers/operator-catalog.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * The catalog as the operator's data (issue 28, item 1), in one process against the strict provider fakes: the
 * admin API opened by the operator's credential only, a model added with its upstream record and served at its
 * configured price (and margin), a model refused to one organization only, the audit's before and after, and a
 * bad definition refused naming its field. test/scenarios/operator-catalog-nodes.test.ts follows a change to a
 * second node.
 */
describeOnBackend('the operator catalog', 'postgres', (backend) => {
  let fakes: Fakes;
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let orgA: TestOrg;
  let orgB: TestOrg;
  const admin = (method: string, path: string, body?: unknown) => api(method, path, { key: ADMIN_TOKEN, body, headers: { 'x-mmgen-operator': 'ada' } });

  beforeAll(async () => {
    fakes = await startFakes({ jobMs: 20 });
    s = await startTestServer(backend, { ...fakes.env, MMGEN_ADMIN_TOKEN: ADMIN_TOKEN, MMGEN_ALLOW_PRIVATE_NETWORK: '1' });
    api = client(s.url);
    orgA = await s.createOrg({ credits: 1_000_000, name: 'a' });
    orgB = await s.createOrg({ credits: 1_000_000, name: 'b' });
  });
  afterAll(async () => {
    await s?.close();
    await fakes?.close();
  });

  it("takes the operator's credential only: none is 401, an organization's owner key 403, a wrong token 401", async () => {
    expect((await api('GET', '/v1/admin/models')).body.error.code).toBe('missing_authorization');
    const owner = await api('GET', '/v1/admin/models', { key: orgA.live });
    expect(owner.status).toBe(403);
    expect(owner.body.error).toMatchObject({ code: 'insufficient_role', type: 'permission_error' });
    expect(owner.body.error.message).toMatch(/MMGEN_ADMIN_TOKEN/);
    const wrong = await api('GET', '/v1/admin/models', { key: `${ADMIN_TOKEN}x` });
    expect(wrong.status).toBe(401);
    // Nothing of the body is judged before the credential: an organization key's bad body is still 403, not 400.
    expect((await api('POST', '/v1/admin/models', { key: orgA.live, body: { nonsense: true } })).status).toBe(403);
    const listed = await admin('GET', '/v1/admin/models');
    expect(listed.status).toBe(200);
    expect(listed.body.data.find((m: { slug: string }) => m.slug === 'flux-schnell')).toMatchObject({ source: 'shipped', disabled: false, margin_percent: null });
    const doc = await admin('GET', '/v1/admin/openapi.json');
    expect(doc.body.paths['/v1/admin/models'].post).toMatchObject({ tags: ['Admin'], security: [{ operatorToken: [] }] });
    // The organizations' document does not carry the operator's operations.
    expect(Object.keys((await api('GET', '/v1/openapi.json')).body.paths).some((p) => p.startsWith('/v1/admin'))).toBe(false);
  });

  it('refuses a bad definition with 400 naming the field', async () => {
    const model = { slug: 'acme-bad', display_name: 'Bad', modality: 'image', routes: [{ provider: 'replicate', upstream: 'acme/unknown' }], capabilities: [], unit_cost_usd: '0.01' };
    const price = await admin('POST', '/v1/admin/models', { model: { ...model, unit_cost_usd: 'ten cents' } });
    expect(price.status).toBe(400);
    expect(price.body.error).toMatchObject({ code: 'parameter_invalid', param: 'model.unit_cost_usd' });
    const noRecord = await admin('POST', '/v1/admin/models', { model });
    expect(noRecord.body.error).toMatchObject({ code: 'parameter_invalid', param: 'model.routes[0].upstream' });
    const provider = await admin('POST', '/v1/admin/models', { model: { ...model, routes: [{ provider: 'nope', upstream: 'x' }] } });
    expect(provider.body.error).toMatchObject({ code: 'parameter_invalid', param: 'model.routes[0].provider' });
    const { input: _input, ...recordWithoutInput } = newReplicateRecord('acme/unknown');
    const record = await admin('POST', '/v1/admin/models', { model, records: [recordWithoutInput] });
    expect(record.status).toBe(400);
    expect(record.body.error.param).toBe('records[0].input');
    // A record whose input is no JSON Schema, or whose map sends a field its input does not declare (issue 42).
    const withInput = (over: (r: ReturnType<typeof newReplicateRecord>) => void) => {
      const r = newReplicateRecord('acme/unknown');
      over(r);
      return admin('POST', '/v1/admin/models', { model, records: [r] });
    };
    const prompt = (r: ReturnType<typeof newReplicateRecord>) => r.input.properties.prompt as Record<string, unknown>;
    const typo = await withInput((r) => (prompt(r).type = 'strnig'));
    expect(typo.status).toBe(400);
    expect(typo.body.error).toMatchObject({ code: 'parameter_invalid', param: 'records[0].input.properties.prompt.type' });
    expect(typo.body.error.message).toMatch(/must be one of .*"string"/);
    const required = await withInput((r) => ((r.input as Record<string, unknown>).required = 'prompt'));
    expect(required.body.error).toMatchObject({ code: 'parameter_invalid', param: 'records[0].input.required', message: expect.stringMatching(/must be array/) });
    const minLength = await withInput((r) => (prompt(r).minLength = 'one'));
    expect(minLength.body.error).toMatchObject({ code: 'parameter_invalid', param: 'records[0].input.properties.prompt.minLength', message: expect.stringMatching(/must be integer/) });
    const map = await withInput((r) => (r.map.prompt = 'text'));
    expect(map.body.error).toMatchObject({ code: 'parameter_invalid', param: 'records[0].map.prompt', message: expect.stringMatching(/'text', which its input does not declare/) });
    const taken = await admin('POST', '/v1/admin/models', { model: { ...model, slug: 'flux-schnell', routes: [{ provider: 'replicate', upstream: 'black-forest-labs/flux-schnell' }] } });
    expect(taken.body.error).toMatchObject({ code: 'parameter_invalid', param: 'model.slug' });
    expect((await admin('GET', '/v1/admin/models')).body.data.some((m: { slug: string }) => m.slug === 'acme-bad')).toBe(false);
  });

  it('serves a model added with its record, through the strict fake, charged at its configured price', async () => {
    // The provider has the model: its fake publishes its documented schema, and judges its predictions by it.
    fakes.replicate.listing.add('acme/flux-fast', { input: newReplicateRecord('acme/flux-fast').input });
    const added = await admin('POST', '/v1/admin/models', {
      model: { slug: 'acme-flux-fast', display_name: 'Acme Flux Fast', modality: 'image', routes: [{ provider: 'replicate', upstream: 'acme/flux-fast' }], capabilities: ['text-to-image'], unit_cost_usd: '0.05' },
      records: [newReplicateRecord('acme/flux-fast')],
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body).toMatchObject({ slug: 'acme-flux-fast', source: 'added', facts: { unit_cost_usd: 'operator' } });
    const listed = await api('GET', '/v1/models/acme-flux-fast', { key: orgA.live });
    expect(listed.body).toMatchObject({ slug: 'acme-flux-fast', provider: 'replicate', pricing: { unit_cost_usd: 0.05, unit: 'image' } });
    // Its parameters come from its record, as a shipped model's do.
    expect(listed.body.parameters.properties.num_outputs).toMatchObject({ maximum: 4 });
    const res = await api('POST', '/v1/images', { key: orgA.live, body: { model: 'acme-flux-fast', prompt: 'a lighthouse', num_outputs: 2 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(fakes.replicate.calls('POST', '/v1/models/acme/flux-fast/predictions')).toHaveLength(1);
    const price = costInCredits('0.05', 2);
    expect(res.body).toMatchObject({ status: 'succeeded', reserved_credits: price, charged_credits: price });
  });

  it("a margin, the model's own over the global one, is published, reserved and charged", async () => {
    expect((await admin('PUT', '/v1/admin/margin', { margin_percent: 10 })).body).toEqual({ margin_percent: '10' });
    expect((await api('GET', '/v1/models/acme-flux-fast', { key: orgA.live })).body.pricing.unit_cost_usd).toBeCloseTo(0.055, 10);
    const own = await admin('PATCH', '/v1/admin/models/acme-flux-fast', { margin_percent: 20 });
    expect(own.body).toMatchObject({ margin_percent: '20', effective_margin_percent: '20' });
    expect((await api('GET', '/v1/models/acme-flux-fast', { key: orgA.live })).body.pricing.unit_cost_usd).toBeCloseTo(0.06, 10);
    const res = await api('POST', '/v1/images', { key: orgA.live, body: { model: 'acme-flux-fast', prompt: 'a harbour' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ reserved_credits: costInCredits('0.06', 1), charged_credits: costInCredits('0.06', 1) });
    // A shipped model takes the global margin.
    const shipped = await api('POST', '/v1/images', { key: orgA.live, body: { model: 'flux-schnell', prompt: 'a harbour' } });
    expect(shipped.body.charged_credits).toBe(costInCredits('0.0033', 1));
    await admin('PUT', '/v1/admin/margin', { margin_percent: null });
    await admin('PATCH', '/v1/admin/models/acme-flux-fast', { margin_percent: null });
    const after = await api('POST', '/v1/images', { key: orgA.live, body: { model: 'acme-flux-fast', prompt: 'a harbour' } });
    expect(after.body.charged_credits).toBe(costInCredits('0.05', 1));
    await expectWalletMatchesLedger(s.db, orgA.id);
  });

  it('a model denied to one organization is refused to it only, and left out of its GET /v1/models', async () => {
    const set = await admin('PUT', `/v1/admin/organizations/${orgA.id}/model-access`, { mode: 'deny', models: ['flux-schnell'] });
    expect(set.body).toEqual({ organization_id: orgA.id, mode: 'deny', models: ['flux-schnell'] });
    const refused = await api('POST', '/v1/images', { key: orgA.live, body: { model: 'flux-schnell', prompt: 'a lighthouse' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'model_not_allowed', type: 'permission_error', param: 'model' });
    const compared = await api('POST', '/v1/comparisons', { key: orgA.live, body: { models: ['flux-dev', 'flux-schnell'], prompt: 'a lighthouse' } });
    expect(compared.body.error).toMatchObject({ code: 'model_not_allowed', param: 'models[1]' });
    const slugsOf = async (org: TestOrg) => (await api('GET', '/v1/models', { key: org.live })).body.data.map((m: { slug: string }) => m.slug);
    expect(await slugsOf(orgA)).not.toContain('flux-schnell');
    expect(await slugsOf(orgB)).toContain('flux-schnell');
    const allowed = await api('POST', '/v1/images', { key: orgB.live, body: { model: 'flux-schnell', prompt: 'a lighthouse' } });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    // An allowlist: only what it lists.
    await admin('PUT', `/v1/admin/organizations/${orgB.id}/model-access`, { mode: 'allow', models: ['acme-flux-fast'] });
    expect(await slugsOf(orgB)).toEqual(['acme-flux-fast']);
    await admin('PUT', `/v1/admin/organizations/${orgB.id}/model-access`, { mode: 'all', models: [] });
    expect(await slugsOf(orgB)).toContain('flux-schnell');
  });

  it('a disabled model is refused to every organization and unlisted, and enabled again', async () => {
    await admin('PATCH', '/v1/admin/models/flux-dev', { disabled: true });
    const refused = await api('POST', '/v1/images', { key: orgB.live, body: { model: 'flux-dev', prompt: 'a lighthouse' } });
    expect(refused.body.error).toMatchObject({ code: 'model_not_allowed' });
    expect(refused.body.error.message).toMatch(/turned off/);
    await admin('PATCH', '/v1/admin/models/flux-dev', { disabled: false });
    expect((await api('GET', '/v1/models/flux-dev', { key: orgB.live })).status).toBe(200);
  });

  it('an edit of a shipped model overrides the facts it names; the audit shows who, before and after', async () => {
    const edited = await admin('PATCH', '/v1/admin/models/flux-schnell', { display_name: 'Schnell (house)', unit_cost_usd: '0.004' });
    expect(edited.body).toMatchObject({ source: 'override', facts: { display_name: 'operator', unit_cost_usd: 'operator', routes: 'shipped' } });
    const res = await api('POST', '/v1/images', { key: orgB.live, body: { model: 'flux-schnell', prompt: 'a lighthouse' } });
    expect(res.body.charged_credits).toBe(costInCredits('0.004', 1));
    const audit = await admin('GET', '/v1/admin/audit?target=flux-schnell');
    expect(audit.body.data[0]).toMatchObject({ action: 'model.edit', target: 'flux-schnell', before: { definition: null }, after: { definition: { display_name: 'Schnell (house)', unit_cost_usd: '0.004' } } });
    expect(audit.body.data[0].actor).toMatch(/^ada \(admin API/);
    // Edited back to what ships: shipped again.
    const back = await admin('PATCH', '/v1/admin/models/flux-schnell', { display_name: 'FLUX.1 [schnell]', unit_cost_usd: '0.003' });
    expect(back.body.source).toBe('shipped');
    const all = (await admin('GET', '/v1/admin/audit')).body.data.map((e: { action: string }) => e.action);
    expect(all).toEqual(expect.arrayContaining(['model.add', 'record.put', 'margin.set', 'access.set', 'model.edit']));
  });
});

describeOnBackend('the admin API without MMGEN_ADMIN_TOKEN', 'postgres', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(backend);
  });
  afterAll(async () => s?.close());

  it('is not there: 404, saying how to turn it on', async () => {
    const org = await s.createOrg();
    const res = await client(s.url)('GET', '/v1/admin/models', { key: org.live });
    expect(res.status).toBe(404);
    expect(res.body.error.message).toMatch(/MMGEN_ADMIN_TOKEN/);
  });
});
