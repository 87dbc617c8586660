import { afterAll, beforeAll, expect, it } from 'vitest';
import { MODALITIES } from '../../src/catalog/index.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

describeOnBackend('GET /v1/models', 'pglite', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;

  beforeAll(async () => {
    s = await startTestServer(backend);
    api = client(s.url);
    org = await s.createOrg();
  });
  afterAll(async () => s?.close());

  it('returns every active model with the documented fields', async () => {
    const res = await api('GET', '/v1/models', { key: org.test });
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('list');
    const data = res.body.data as any[];
    expect(data.length).toBeGreaterThanOrEqual(48);
    for (const m of data) {
      expect(m.id).toMatch(/^mdl_[0-9A-Za-z]{20}$/);
      expect(m).toMatchObject({ object: 'model', status: 'active' });
      expect(typeof m.slug).toBe('string');
      expect(['openai', 'anthropic', 'replicate', 'fal', 'elevenlabs']).toContain(m.provider);
      expect(MODALITIES).toContain(m.modality);
      expect(Array.isArray(m.capabilities)).toBe(true);
      expect(m.pricing.unit_cost_usd).toBeGreaterThan(0);
      expect(typeof m.pricing.unit).toBe('string');
      expect(typeof m.display_name).toBe('string');
    }
    expect(new Set(data.map((m) => m.id)).size).toBe(data.length);
    const counts = Object.fromEntries(MODALITIES.map((mod) => [mod, data.filter((m) => m.modality === mod).length]));
    expect(counts.image).toBeGreaterThanOrEqual(7);
    for (const mod of MODALITIES) expect(counts[mod], mod).toBeGreaterThanOrEqual(3);
  });

  it('filters by modality', async () => {
    for (const modality of MODALITIES) {
      const res = await api('GET', `/v1/models?modality=${modality}`, { key: org.live });
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeGreaterThanOrEqual(3);
      expect(res.body.data.every((m: { modality: string }) => m.modality === modality)).toBe(true);
    }
  });

  it('rejects an unknown modality and unknown parameters', async () => {
    const res = await api('GET', '/v1/models?modality=hologram', { key: org.live });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'modality' });
    const unknown = await api('GET', '/v1/models?modalty=image', { key: org.live });
    expect(unknown.body.error).toMatchObject({ code: 'parameter_unknown', param: 'modalty' });
    const badBool = await api('GET', '/v1/models?include_delisted=maybe', { key: org.live });
    expect(badBool.body.error).toMatchObject({ code: 'parameter_invalid', param: 'include_delisted' });
  });

  it('include_delisted=true adds exactly the 21 delisted models, those whose every upstream has shut down among them', async () => {
    const active = (await api('GET', '/v1/models', { key: org.live })).body.data;
    const all = (await api('GET', '/v1/models?include_delisted=true', { key: org.live })).body.data;
    const delisted = all.filter((m: { status: string }) => m.status === 'delisted');
    // The 14 of release 1.1.1 and the 7 delisted in the shipped data since (docs/contract-addenda.md, "Model lifecycle");
    // as of the tests' catalog date (2026-11-24), no model shipped as active has had every upstream shut down yet.
    const retired = ['claude-opus-4.1', 'claude-sonnet-4', 'gpt-image-1', 'imagen-4', 'nano-banana', 'sora-2'];
    expect(delisted).toHaveLength(21);
    expect(delisted.filter((m: { slug: string }) => retired.includes(m.slug)).map((m: { slug: string }) => m.slug).sort()).toEqual(retired);
    expect(all.length).toBe(active.length + 21);
    const imageDelisted = (await api('GET', '/v1/models?include_delisted=true&modality=image', { key: org.live })).body.data
      .filter((m: { status: string }) => m.status === 'delisted');
    expect(imageDelisted.length).toBeGreaterThan(0);
  });

  it('GET /v1/models/{slug or id} returns one model, delisted too; 404 model_not_found otherwise', async () => {
    const all = (await api('GET', '/v1/models?include_delisted=true', { key: org.live })).body.data;
    const delisted = all.find((m: { status: string }) => m.status === 'delisted');
    const bySlug = await api('GET', `/v1/models/${delisted.slug}`, { key: org.live });
    expect(bySlug.body).toEqual(delisted);
    const byId = await api('GET', `/v1/models/${all[0].id}`, { key: org.live });
    expect(byId.body).toEqual(all[0]);
    const missing = await api('GET', '/v1/models/gpt-17-ultra', { key: org.live });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('model_not_found');
  });

  it('resolving a model for a request: 404 unknown, 410 delisted, 400 other modality', async () => {
    const { catalog } = s.runtime.deps;
    const delisted = catalog.models.find((m) => m.status === 'delisted')!;
    const chat = catalog.models.find((m) => m.status === 'active' && m.modality === 'chat')!;
    expect(() => catalog.resolve('nope', 'image')).toThrowError(expect.objectContaining({ code: 'model_not_found', status: 404 }));
    expect(() => catalog.resolve(delisted.slug, delisted.modality)).toThrowError(expect.objectContaining({ code: 'model_unavailable', status: 410 }));
    expect(() => catalog.resolve(chat.slug, 'image')).toThrowError(expect.objectContaining({ code: 'model_modality_mismatch', status: 400 }));
    expect(catalog.resolve(chat.slug, 'chat')).toBe(chat);
  });
});
