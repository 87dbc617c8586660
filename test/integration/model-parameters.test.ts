import { afterAll, beforeAll, expect, it } from 'vitest';
import { CATALOG } from '../../src/catalog/models.js';
import { enforceParameters } from '../../src/generations/hold-to-model.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';
import { SHIPPED_RECORDS } from '../../src/providers/upstream-models.js';

/**
 * Each model's `parameters` (contract §3a), derived from its routes' records
 * (src/providers/parameters.ts): what GET /v1/models declares, and what
 * enforceParameters holds a request to (every generation route and each
 * comparison child; route-demand.test.ts shows the routing that follows).
 */
const model = (slug: string) => CATALOG.find((m) => m.slug === slug)!;

describeOnBackend('model parameters', 'pglite', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;

  beforeAll(async () => {
    s = await startTestServer(backend);
    api = client(s.url);
    org = await s.createOrg({ credits: 1000 });
  });
  afterAll(async () => s?.close());

  it('GET /v1/models carries each model\'s parameters: what some route of it documents', async () => {
    const res = await api('GET', '/v1/models?modality=video', { key: org.test });
    expect(res.status).toBe(200);
    const bySlug = new Map((res.body.data as Array<{ slug: string; parameters: any }>).map((m) => [m.slug, m.parameters]));
    // Kling takes 5 or 10 s on Replicate (integers) and on fal (the strings "5" and "10"): both read back as 5 | 10.
    expect(bySlug.get('kling-v2.1-master')).toMatchObject({ type: 'object', properties: { duration_s: { enum: [5, 10], default: 5 } } });
    // Hailuo takes 6 or 10: its own default, not the modality's 5.
    expect(bySlug.get('hailuo-02').properties.duration_s).toMatchObject({ enum: [6, 10], default: 6 });
    // Veo 3.1 takes "4s" | "6s" | "8s" on fal and 4 | 6 | 8 on Replicate.
    expect(bySlug.get('veo-3.1').properties.duration_s).toMatchObject({ enum: [4, 6, 8], default: 8 });
    const one = await api('GET', '/v1/models/trellis', { key: org.test });
    // Image-to-3D only: no prompt; the image is required.
    expect(one.body.parameters.properties.prompt).toBeUndefined();
    expect(one.body.parameters['x-mmgen-image']).toBe('required');
    // Bodies built in code follow their records too: gpt-5 takes no temperature, gpt-4o at most 16,384 tokens.
    const chat = await api('GET', '/v1/models/gpt-4o-mini', { key: org.test });
    expect(Object.keys(chat.body.parameters.properties)).toEqual(expect.arrayContaining(['messages', 'max_tokens', 'temperature']));
    expect((await api('GET', '/v1/models/gpt-5', { key: org.test })).body.parameters.properties.temperature).toBeUndefined();
    expect((await api('GET', '/v1/models/gpt-4o', { key: org.test })).body.parameters.properties.max_tokens.maximum).toBe(16384);
    // A field only some routes take is declared: flux-1.1-pro takes num_outputs (fal does; Replicate makes one image per prediction).
    expect((await api('GET', '/v1/models/flux-1.1-pro', { key: org.test })).body.parameters.properties.num_outputs).toBeDefined();
    // An audio-driven avatar with a speech step takes text and a voice, as its voice model does; audio is not required.
    const avatar = (await api('GET', '/v1/models/omnihuman', { key: org.test })).body.parameters;
    expect(avatar['x-mmgen-speech']).toBe('eleven-turbo-v2.5');
    expect(Object.keys(avatar.properties)).toEqual(expect.arrayContaining(['text', 'voice_id', 'audio_url']));
    expect(avatar.required ?? []).not.toContain('audio_url');
  });

  it('GET /v1/models carries each model\'s upstream end of life, from its routes\' records', async () => {
    const get = async (slug: string) => (await api('GET', `/v1/models/${slug}`, { key: org.test })).body;
    // One route, shut down upstream on 2026-10-23 (OpenAI's deprecations).
    expect((await get('gpt-image-1')).deprecation).toMatchObject({ deprecated_on: '2026-04-22', shutdown_on: '2026-10-23' });
    expect((await get('claude-sonnet-4')).deprecation).toMatchObject({ shutdown_on: '2026-06-15', replacement: 'claude-sonnet-4-6' });
    // Two routes, both shut down upstream (Google's Imagen 4), naming the successor the catalog serves.
    expect((await get('imagen-4')).deprecation).toMatchObject({ deprecated_on: '2026-08-17', shutdown_on: '2026-08-17', replacement: 'nano-banana-2' });
    expect((await get('flux-schnell')).deprecation).toBeNull();
    const list = await api('GET', '/v1/models', { key: org.test });
    expect(list.body.data.every((m: { deprecation: unknown }) => m.deprecation === null || typeof m.deprecation === 'object')).toBe(true);
  });

  it('enforceParameters: the model\'s defaults for what was not sent, then 400 naming the field', () => {
    const body: Record<string, unknown> = { model: 'hailuo-02', prompt: 'waves', duration_s: 5, aspect_ratio: '16:9' };
    // Only the prompt was sent: the modality's 5 s gives way to the model's 6 (and hailuo takes no aspect ratio: dropped, not refused).
    enforceParameters(SHIPPED_RECORDS, model('hailuo-02'), body, new Set(['model', 'prompt']));
    expect(body.duration_s).toBe(6);
    expect(() => enforceParameters(SHIPPED_RECORDS, model('kling-v2.1-master'), { model: 'kling-v2.1-master', prompt: 'x', duration_s: 7 }, new Set(['model', 'prompt', 'duration_s']))).toThrow(
      expect.objectContaining({ code: 'parameter_invalid', param: 'duration_s' }),
    );
    expect(() => enforceParameters(SHIPPED_RECORDS, model('trellis'), { model: 'trellis', prompt: 'a chair', image_url: 'https://example.com/a.png' }, new Set(['model', 'prompt', 'image_url']))).toThrow(
      expect.objectContaining({ code: 'parameter_invalid', param: 'prompt' }),
    );
    expect(() => enforceParameters(SHIPPED_RECORDS, model('trellis'), { model: 'trellis' }, new Set(['model']))).toThrow(expect.objectContaining({ code: 'parameter_missing', param: 'upload_id' }));
    // Required upstream: minimax music needs lyrics.
    expect(() => enforceParameters(SHIPPED_RECORDS, model('minimax-music-1.5'), { model: 'minimax-music-1.5', prompt: 'a song' }, new Set(['model', 'prompt']))).toThrow(
      expect.objectContaining({ code: 'parameter_missing', param: 'lyrics' }),
    );
    // In a comparison, the field is named where the request has it.
    expect(() => enforceParameters(SHIPPED_RECORDS, model('kling-v2.1-master'), { model: 'kling-v2.1-master', prompt: 'x', duration_s: 3 }, new Set(['duration_s']), (f) => `params.${f}`)).toThrow(
      expect.objectContaining({ param: 'params.duration_s' }),
    );
  });
});
