import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { costInCredits } from '../../src/billing/credits.js';
import { startFakes, type Fakes } from '../fakes/index.js';
import { mmgen } from '../helpers/processes.js';
import { ADMIN_TOKEN } from '../helpers/operator-catalog.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * A model added with its input schema imported from its provider (issue 28, item 2): Replicate publishes one per
 * model version (Cog's, its enums behind `$ref`s to the document's components), fal one per endpoint. The strict
 * fakes publish a model released upstream today and judge its predictions by that schema alone (mmgen's records
 * play no part upstream); the model is then called through them and charged at the configured price.
 */

/** What Cog publishes for a model: `Input`, whose enum fields point at components through a one-element `allOf`. */
const COG_INPUT = {
  type: 'object' as const,
  title: 'Input',
  required: ['prompt'],
  properties: {
    prompt: { type: 'string', title: 'Prompt', 'x-order': 0, description: 'Text prompt' },
    aspect_ratio: { allOf: [{ $ref: '#/components/schemas/aspect_ratio' }], default: '1:1', 'x-order': 1, description: 'Aspect ratio' },
    num_outputs: { type: 'integer', title: 'Num Outputs', minimum: 1, maximum: 2, default: 1, 'x-order': 2 },
    seed: { type: 'integer', title: 'Seed', 'x-order': 3 },
  },
};
const COG_COMPONENTS = { aspect_ratio: { title: 'aspect_ratio', type: 'string', enum: ['1:1', '16:9', '9:16'], description: 'An enumeration.' } };

/** What fal publishes for an endpoint: its input, whose custom size is a component. */
const FAL_INPUT = {
  type: 'object' as const,
  required: ['prompt'],
  properties: {
    prompt: { type: 'string' },
    image_size: { anyOf: [{ type: 'string', enum: ['square_hd', 'landscape_4_3'] }, { $ref: '#/components/schemas/ImageSize' }], default: 'landscape_4_3' },
    num_images: { type: 'integer', minimum: 1, maximum: 4, default: 1 },
  },
};
const FAL_COMPONENTS = { ImageSize: { type: 'object', properties: { width: { type: 'integer', maximum: 4096 }, height: { type: 'integer', maximum: 4096 } }, additionalProperties: false } };

const definition = (slug: string, price: string) => ({ slug, display_name: slug, modality: 'image', capabilities: ['text-to-image'], unit_cost_usd: price });

describeOnBackend('a model imported from its provider', 'postgres', (backend) => {
  let fakes: Fakes;
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;
  const admin = (method: string, path: string, body?: unknown) => api(method, path, { key: ADMIN_TOKEN, body, headers: { 'x-mmgen-operator': 'grace' } });

  beforeAll(async () => {
    fakes = await startFakes({ jobMs: 20 });
    fakes.replicate.listing.add('acme/flux-3', { input: COG_INPUT, components: COG_COMPONENTS });
    fakes.fal.listing.add('fal-ai/acme-2', { input: FAL_INPUT, components: FAL_COMPONENTS });
    fakes.replicate.listing.add('acme/flux-3-mini', { input: COG_INPUT, components: COG_COMPONENTS });
    fakes.replicate.listing.add('acme/flux-3-typo', { input: { ...COG_INPUT, properties: { ...COG_INPUT.properties, seed: { type: 'integr' } } }, components: COG_COMPONENTS });
    s = await startTestServer(backend, { ...fakes.env, MMGEN_ADMIN_TOKEN: ADMIN_TOKEN, MMGEN_ALLOW_PRIVATE_NETWORK: '1' });
    api = client(s.url);
    org = await s.createOrg({ credits: 1_000_000 });
  });
  afterAll(async () => {
    await s?.close();
    await fakes?.close();
  });

  it("Replicate: the version's schema becomes the record's input, its references resolved; called through the strict fake at its price", async () => {
    const res = await admin('POST', '/v1/admin/models/import', {
      provider: 'replicate',
      upstream: 'acme/flux-3',
      model: definition('acme-flux-3', '0.025'),
      record: { call: { official: true }, map: { prompt: 'prompt', num_outputs: 'num_outputs', seed: 'seed', 'width,height': { to: 'aspect_ratio', as: 'aspect_ratio' } }, set: {} },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ slug: 'acme-flux-3', source: 'added', definition: { routes: [{ provider: 'replicate', upstream: 'acme/flux-3' }] } });
    // The record as imported: the published fields, the enum read through its reference, nothing else let through.
    const audit = await admin('GET', '/v1/admin/audit?target=replicate:acme/flux-3');
    const record = audit.body.data[0];
    expect(record).toMatchObject({ action: 'record.put', actor: expect.stringMatching(/^grace/) });
    expect(record.after.input.additionalProperties).toBe(false);
    expect(record.after.input.required).toEqual(['prompt']);
    expect(record.after.input.properties.aspect_ratio).toMatchObject({ type: 'string', enum: ['1:1', '16:9', '9:16'], default: '1:1', description: 'Aspect ratio' });
    expect(JSON.stringify(record.after.input)).not.toContain('$ref');
    expect(record.after.sources[0]).toMatch(/^replicate's published input schema of acme\/flux-3, imported on \d{4}-\d{2}-\d{2}$/);

    // Its parameters come from the imported schema, as a shipped model's come from its record.
    const listed = await api('GET', '/v1/models/acme-flux-3', { key: org.live });
    expect(listed.body).toMatchObject({ provider: 'replicate', pricing: { unit_cost_usd: 0.025, unit: 'image' } });
    expect(listed.body.parameters.properties.num_outputs).toMatchObject({ maximum: 2 });
    const made = await api('POST', '/v1/images', { key: org.live, body: { model: 'acme-flux-3', prompt: 'a lighthouse', num_outputs: 2, width: 1024, height: 1024 } });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body).toMatchObject({ status: 'succeeded', reserved_credits: costInCredits('0.025', 2), charged_credits: costInCredits('0.025', 2) });
    const sent = fakes.replicate.calls('POST', '/v1/models/acme/flux-3/predictions');
    expect(sent).toHaveLength(1);
    expect((sent[0]!.json as { input: unknown }).input).toMatchObject({ prompt: 'a lighthouse', num_outputs: 2, aspect_ratio: '1:1' });
    expect(fakes.replicate.refused).toHaveLength(0);
    // Beyond what the schema allows is refused by mmgen, as the parameters say, before anything reaches Replicate.
    const over = await api('POST', '/v1/images', { key: org.live, body: { model: 'acme-flux-3', prompt: 'a lighthouse', num_outputs: 3 } });
    expect(over.status).toBe(400);
    expect(fakes.replicate.calls('POST', '/v1/models/acme/flux-3/predictions')).toHaveLength(1);
  });

  // The CLI is a second process on the server's database: PostgreSQL only (an embedded PGlite is the server's alone).
  it.runIf(backend === 'postgres')("fal: the endpoint's OpenAPI document, through `mmgen catalog add --import`", async () => {
    const dir = s.config.dataDir;
    const file = join(dir, 'import.json');
    writeFileSync(
      file,
      JSON.stringify({
        provider: 'fal',
        upstream: 'fal-ai/acme-2',
        model: definition('acme-2', '0.01'),
        record: { map: { prompt: 'prompt', num_outputs: 'num_images', 'width,height': { to: 'image_size', as: 'image_size' } } },
      }),
    );
    // The server follows the CLI's change within a second.
    const env = { ...fakes.env, MMGEN_DATA_DIR: join(dir, 'cli'), DATABASE_URL: s.dbUrl! };
    const r = await mmgen(['catalog', 'add', '--import', '--file', file, '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ slug: 'acme-2', source: 'added' });
    let listed = await api('GET', '/v1/models/acme-2', { key: org.live });
    for (const t0 = Date.now(); listed.status !== 200 && Date.now() - t0 < 10_000; ) {
      await new Promise((res) => setTimeout(res, 100));
      listed = await api('GET', '/v1/models/acme-2', { key: org.live });
    }
    expect(listed.status).toBe(200);
    const made = await api('POST', '/v1/images', { key: org.live, body: { model: 'acme-2', prompt: 'a harbour', width: 1024, height: 1024 } });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body).toMatchObject({ reserved_credits: costInCredits('0.01', 1), charged_credits: costInCredits('0.01', 1) });
    expect(fakes.fal.calls('POST', '/fal-ai/acme-2')).toHaveLength(1);
    expect(fakes.fal.refused).toHaveLength(0);
  });

  it('refuses what cannot be imported with 400 naming the field', async () => {
    const body = (over: Record<string, unknown>) => ({ provider: 'replicate', upstream: 'acme/none', model: definition('acme-none', '0.01'), record: { map: { prompt: 'prompt' } }, ...over });
    const missing = await admin('POST', '/v1/admin/models/import', body({}));
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'parameter_invalid', param: 'upstream' });
    expect(missing.body.error.message).toMatch(/replicate publishes no model 'acme\/none'.*404/);
    // As POST /v1/admin/models answers a route on it (issue 42: it was a 500).
    const unregistered = await admin('POST', '/v1/admin/models/import', body({ provider: 'no-such-provider' }));
    expect(unregistered.status).toBe(400);
    expect(unregistered.body.error).toMatchObject({ code: 'parameter_invalid', param: 'provider', message: expect.stringMatching(/^No provider 'no-such-provider' is registered; the registered ones are .*replicate/) });
    const noSchema = await admin('POST', '/v1/admin/models/import', body({ provider: 'openai', upstream: 'gpt-9' }));
    expect(noSchema.body.error).toMatchObject({ code: 'parameter_invalid', param: 'provider' });
    expect(noSchema.body.error.message).toMatch(/publishes no per-model input schema/);
    const shipped = await admin('POST', '/v1/admin/models/import', body({ upstream: 'black-forest-labs/flux-schnell' }));
    expect(shipped.body.error).toMatchObject({ param: 'upstream' });
    expect(shipped.body.error.message).toMatch(/has a record of/);
    const badMap = await admin('POST', '/v1/admin/models/import', body({ upstream: 'acme/flux-3-mini', model: definition('acme-flux-3b', '0.01'), record: { map: { prompt: 'text' } } }));
    expect(badMap.body.error).toMatchObject({ code: 'parameter_invalid', param: 'record.map.prompt' });
    expect(badMap.body.error.message).toMatch(/'text', which its input does not declare \(its fields: prompt, aspect_ratio, num_outputs, seed\).*replicate's published input schema of acme\/flux-3-mini/);
    // A published schema that is no JSON Schema is the provider's, not the operator's: 400 on `upstream`.
    const typo = await admin('POST', '/v1/admin/models/import', body({ upstream: 'acme/flux-3-typo', model: definition('acme-flux-3t', '0.01') }));
    expect(typo.body.error).toMatchObject({ code: 'parameter_invalid', param: 'upstream' });
    expect(typo.body.error.message).toMatch(/^replicate's published input schema of acme\/flux-3-typo is not one mmgen can take: .*input\.properties\.seed\.type must be one of/);
    const routes = await admin('POST', '/v1/admin/models/import', body({ model: { ...definition('acme-x', '0.01'), routes: [] } }));
    expect(routes.body.error).toMatchObject({ code: 'parameter_unknown', param: 'model.routes' });
    expect((await admin('GET', '/v1/admin/models')).body.data.some((m: { slug: string }) => ['acme-none', 'acme-flux-3b', 'acme-flux-3t'].includes(m.slug))).toBe(false);
  });

  it('a synced schema is held to the same check: one that drops a field the record maps is refused, and nothing is taken', async () => {
    fakes.fal.drifted.set('fal-ai/flux/schnell', (input) => {
      const { seed: _seed, ...properties } = input.properties;
      return { ...input, properties };
    });
    try {
      const id = 'schema:fal:fal-ai/flux/schnell';
      const report = await admin('POST', '/v1/admin/catalog/sync', {});
      expect(report.body.findings.map((f: { id: string }) => f.id)).toContain(id);
      const before = (await admin('GET', '/v1/admin/models')).body.version;
      const res = await admin('POST', '/v1/admin/catalog/sync', { apply: [id] });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'apply[0]' });
      expect(res.body.error.message).toMatch(/map\.seed names 'seed', which its input does not declare/);
      expect((await admin('GET', '/v1/admin/models')).body.version).toBe(before);
      expect((await admin('GET', '/v1/admin/audit?target=fal:fal-ai/flux/schnell')).body.data).toEqual([]);
    } finally {
      fakes.fal.drifted.delete('fal-ai/flux/schnell');
    }
  });
});
