import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Modality, ProviderName } from '../../src/catalog/index.js';
import { servedModels } from '../helpers/catalog.js';
import { recordsOf } from '../../src/providers/declaration.js';
import { PROVIDER_DECLARATIONS } from '../../src/providers/index.js';
import { mappedFields, recordForRequest, takesImage } from '../../src/providers/upstream-input.js';
import { shippedRecord } from '../../src/providers/upstream-models.js';
import { startFakes, type Fakes } from '../fakes/index.js';
import { fakeMp3, fakePng } from '../fakes/media.js';
import { expectInvariant, waitTerminal } from '../helpers/generations.js';
import { client, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * Conformance (issue 18): every active catalog model, through each of its
 * routes, end to end against the strict fakes. A server per provider has only
 * that provider's credentials, so the registry sends each model to that
 * provider's route. The fakes refuse any request the model's recorded schema
 * (src/providers/<provider>/models/) refuses, so a pass means: the request
 * mmgen built is one the provider documents, the output was stored, and the
 * generation was charged within its reservation.
 */
const REQUESTS: Record<Modality, { path: string; body: (inputs: Inputs) => Record<string, unknown> }> = {
  image: { path: '/v1/images', body: () => ({ prompt: 'a lighthouse at dusk' }) },
  video: { path: '/v1/videos', body: () => ({ prompt: 'waves at night' }) },
  voice: { path: '/v1/voice', body: () => ({ text: 'Hello from mmgen.' }) },
  music: { path: '/v1/music', body: () => ({ prompt: 'a calm piano piece' }) },
  avatar: { path: '/v1/avatars', body: (i) => ({ image_url: i.portrait, audio_url: i.speech }) },
  chat: { path: '/v1/chat', body: () => ({ messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 16 }) },
  '3d': { path: '/v1/three-d', body: (i) => ({ prompt: 'a small wooden chair', image_url: i.portrait }) },
  upscale: { path: '/v1/upscale', body: (i) => ({ image_url: i.portrait }) },
};

interface Inputs {
  portrait: string;
  speech: string;
}

const SAMPLES: Record<string, (i: Inputs) => unknown> = {
  prompt: () => 'a small wooden chair',
  text: () => 'Hello from mmgen.',
  lyrics: () => '[verse]\nWaves on the shore, a calm piano song',
  audio_url: (i) => i.speech,
};

function requestFor(modality: Modality, provider: ProviderName, upstream: string, inputs: Inputs, withImage = false): Record<string, unknown> {
  let body: Record<string, unknown> = { ...REQUESTS[modality].body(inputs), ...(withImage ? { image_url: inputs.portrait } : {}) };
  // The record the adapter will send by: the route's own, or the sibling it names for a request with (or without) an image.
  const image = withImage ? { bytes: Buffer.alloc(0), mime: 'image/png', width: 1, height: 1 } : undefined;
  const record = shippedRecord(provider, upstream) ? recordForRequest(RECORDS.get(provider)!, { upstreamModel: upstream, image }) : undefined;
  if (!record || Object.keys(record.map).length === 0) return body;
  const mapped = mappedFields(record);
  body = Object.fromEntries(Object.entries(body).filter(([k]) => mapped.has(k) || ((k === 'image_url' || k === 'upload_id') && mapped.has('image'))));
  const required = new Set((record.input as { required?: string[] }).required ?? []);
  for (const [key, spec] of Object.entries(record.map)) {
    const to = typeof spec === 'string' ? spec : spec.to;
    if (!required.has(to.split('.')[0]!)) continue;
    for (const field of key.split(',')) if (body[field] === undefined && SAMPLES[field]) body[field] = SAMPLES[field](inputs);
  }
  return { ...body, ...(record.defaults ?? {}) };
}

const PROVIDERS = PROVIDER_DECLARATIONS.map((p) => p.name);
const RECORDS = new Map(PROVIDER_DECLARATIONS.map((p) => [p.name, recordsOf(p)]));
/** The variables that point mmgen at one provider's fake: its declaration's. */
const CREDENTIALS = new Map(PROVIDER_DECLARATIONS.map((p) => [p.name, [p.env.keyVar, p.env.baseUrlVar]]));

const routesOf = (provider: ProviderName) =>
  servedModels().flatMap((m) => m.routes.filter((r) => r.provider === provider).map((r) => ({ model: m, upstream: r.upstream })));

describe('every active catalog model, through each of its routes, against the strict fakes', () => {
  let fakes: Fakes;
  let inputs: Inputs;

  beforeAll(async () => {
    fakes = await startFakes({ jobMs: 20 });
    inputs = {
      portrait: fakes.fal.hostFile(await fakePng('a portrait', 512, 512), 'image/png', 'png'),
      speech: fakes.fal.hostFile(await fakeMp3({ text: 'Hello there, this is a test.' }), 'audio/mpeg', 'mp3'),
    };
  });
  afterAll(async () => fakes?.close());

  it('every route has a recorded, documented upstream schema', () => {
    const missing = PROVIDERS.flatMap((p) => routesOf(p).filter((r) => !shippedRecord(p, r.upstream)).map((r) => `${p} ${r.upstream}`));
    expect(missing).toEqual([]);
    for (const p of PROVIDERS) for (const r of routesOf(p)) expect(shippedRecord(p, r.upstream)?.sources.length, r.upstream).toBeGreaterThan(0);
  });

  for (const provider of PROVIDERS) {
    describe(provider, () => {
      let s: TestServer;
      let api: ReturnType<typeof client>;
      let org: TestOrg;

      beforeAll(async () => {
        const env = Object.fromEntries(Object.entries(fakes.env).filter(([k]) => CREDENTIALS.get(provider)!.includes(k)));
        s = await startTestServer('pglite', { ...env, MMGEN_ALLOW_PRIVATE_NETWORK: '1', MMGEN_PROVIDER_JOB_TIMEOUT_MS: '5000' });
        api = client(s.url);
        org = await s.createOrg({ credits: 50_000_000 });
      });
      afterAll(async () => s?.close());

      const cases = routesOf(provider).flatMap(({ model, upstream }) => {
        const record = shippedRecord(provider, upstream);
        // Image and video models that take an input image (themselves or through a sibling) are also run with one.
        const withImage = (model.modality === 'image' || model.modality === 'video') && !!record && takesImage(record);
        return [{ model, upstream, image: false }, ...(withImage ? [{ model, upstream, image: true }] : [])];
      });
      for (const { model, upstream, image } of cases) {
        it(`${model.slug} → ${upstream}${image ? ' (with an input image)' : ''}`, async () => {
          const record = shippedRecord(provider, upstream);
          const request = REQUESTS[model.modality];
          // A request the model takes: the modality's sample, less the fields this model does not map, plus what it
          // requires that the sample lacks (lyrics, …), with the model's own defaults where the modality's would not do.
          const body = { model: model.slug, ...requestFor(model.modality, provider, upstream, inputs, image) };
          const res = await api('POST', request.path, { key: org.live, body });
          // What the fake refused last, with long values (data URIs) cut short.
          const refusedBy = () =>
            JSON.stringify(([] as Array<{ violations: unknown }>).concat(fakes.byProvider.get(provider)?.refused ?? []).slice(-1), (_k, v: unknown) =>
              typeof v === 'string' && v.length > 120 ? `${v.slice(0, 60)}…(${v.length} chars)` : v,
            );
          expect([200, 202], `${res.status} ${JSON.stringify(res.body)} refused: ${refusedBy()}`).toContain(res.status);
          const g = res.status === 202 ? await waitTerminal(api, org.live, res.body.id as string) : res.body;
          expect(g.status, `${JSON.stringify(g.error)} refused: ${refusedBy()}`).toBe('succeeded');
          expect(g.outputs.length + (g.message ? 1 : 0)).toBeGreaterThan(0);
          expect(g.charged_credits).toBeGreaterThan(0);
          expectInvariant(g);
        });
      }
    });
  }
});
