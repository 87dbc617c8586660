import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostedModerationError, OpenAiModerationClassifier, scoresFromOpenAi } from '../../src/moderation/hosted-openai.js';
import { ModerationUnavailableError, screenPrompt } from '../../src/moderation/prompt-screen.js';
import { OpenAiFake } from '../fakes/openai.js';

/**
 * The hosted classifier (src/moderation/hosted-openai.ts) against the loopback OpenAI fake's
 * POST /v1/moderations, which is strict about the request and scores by markers: a chosen word in a text, a
 * magenta top-left pixel in an image. No mocks: real HTTP on 127.0.0.1.
 */
let fake: OpenAiFake;
let classifier: OpenAiModerationClassifier;
const made: OpenAiModerationClassifier[] = [];
const make = (over: Partial<ConstructorParameters<typeof OpenAiModerationClassifier>[0]> = {}) => {
  const c = new OpenAiModerationClassifier({ apiKey: fake.key, baseUrl: fake.baseUrl, model: 'omni-moderation-latest', retryDelayMs: 10, ...over });
  made.push(c);
  return c;
};

const png = (r: number, g: number, b: number) =>
  sharp({ create: { width: 16, height: 16, channels: 3, background: { r: 20, g: 120, b: 40 } } })
    .composite([{ input: { create: { width: 1, height: 1, channels: 3, background: { r, g, b } } }, left: 0, top: 0 }])
    .png()
    .toBuffer();

beforeAll(async () => {
  fake = await new OpenAiFake({ moderationMarkers: { crimsonmarker: 'violence/graphic', tauntmarker: 'harassment/threatening', fakeviolence: 'violence' } }).start();
  classifier = make();
});
afterAll(async () => {
  await Promise.all(made.map((c) => c.close()));
  await fake?.close();
});

const post = async (body: unknown, key = fake.key) => {
  const res = await fetch(`${fake.baseUrl}/moderations`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
};

describe('OpenAI moderation as a text and image classifier', () => {
  it('a text: every text category scored low, mapped onto the vocabulary (no suggestive)', async () => {
    const before = fake.calls('POST', '/v1/moderations').length;
    const scores = await classifier.classify('a watercolor of a lighthouse');
    expect(Object.keys(scores).sort()).toEqual(['harassment', 'hate', 'illicit', 'self_harm', 'sexual', 'sexual_minors', 'violence']);
    for (const v of Object.values(scores)) expect(v).toBeLessThan(0.01);
    const call = fake.calls('POST', '/v1/moderations').slice(before);
    expect(call).toHaveLength(1);
    expect(call[0]!.json).toEqual({ model: 'omni-moderation-latest', input: 'a watercolor of a lighthouse' });
    expect(call[0]!.headers.authorization).toBe(`Bearer ${fake.key}`);
    expect(classifier.name).toBe('openai-omni-moderation-latest');
  });

  it('a family scores as its highest member: violence/graphic → violence, harassment/threatening → harassment', async () => {
    expect((await classifier.classify('a CrimsonMarker scene')).violence).toBe(0.97);
    const taunt = await classifier.classify('tauntmarker at dusk');
    expect(taunt.harassment).toBe(0.97);
    expect(taunt.violence).toBeLessThan(0.01);
  });

  it('an image: sent as a data URL input item, scored only for the categories that apply to images', async () => {
    const before = fake.calls('POST', '/v1/moderations').length;
    const marked = await classifier.classify(await png(255, 0, 255));
    expect(marked.sexual).toBe(0.98);
    expect(Object.keys(marked).sort()).toEqual(['self_harm', 'sexual', 'violence']);
    // Far from magenta (the marker allows a JPEG's few levels of drift).
    const clean = await classifier.classify(await png(200, 40, 255));
    expect(clean.sexual).toBeLessThan(0.01);
    const [first] = fake.calls('POST', '/v1/moderations').slice(before);
    const input = (first!.json as { input: Array<{ type: string; image_url: { url: string } }> }).input;
    expect(input).toHaveLength(1);
    expect(input[0]!.type).toBe('image_url');
    expect(input[0]!.image_url.url).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    // JPEG goes with its own type.
    const jpeg = await sharp(await png(0, 0, 0)).jpeg().toBuffer();
    expect((await classifier.classify(jpeg)).sexual).toBeLessThan(0.01);
    expect((fake.calls('POST', '/v1/moderations').at(-1)!.json as { input: Array<{ image_url: { url: string } }> }).input[0]!.image_url.url).toMatch(/^data:image\/jpeg;base64,/);
    await expect(classifier.classify(Buffer.from('GIF89a not supported'))).rejects.toThrow(TypeError);
    expect(fake.refused).toEqual([]);
  });

  it('a refused request is a clear, permanent error, not retried', async () => {
    const before = fake.calls('POST', '/v1/moderations').length;
    const err = await make({ model: 'omni-moderation-nope' }).classify('x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostedModerationError);
    expect((err as HostedModerationError).message).toMatch(/^openai-omni-moderation-nope: openai-moderation: HTTP 400: Invalid value for 'model'/);
    expect((err as HostedModerationError).permanent).toBe(true);
    const bad = await make({ apiKey: 'sk-wrong' }).classify('x').catch((e: unknown) => e);
    expect((bad as Error).message).toMatch(/HTTP 401: Incorrect API key provided/);
    expect((bad as HostedModerationError).cause.kind).toBe('authentication');
    expect(fake.calls('POST', '/v1/moderations').length - before).toBe(2);
  });

  it('a 429 is waited out and sent once more; a second 429 fails', async () => {
    const limited = { reply: { status: 429, headers: { 'retry-after-ms': '30' }, body: { error: { message: 'Rate limit reached for omni-moderation-latest', type: 'requests', param: null, code: 'rate_limit_exceeded' } } } };
    let before = fake.calls('POST', '/v1/moderations').length;
    fake.misbehave({ method: 'POST', path: '/v1/moderations' }, limited, 1);
    expect((await classifier.classify('fakeviolence')).violence).toBe(0.97);
    expect(fake.calls('POST', '/v1/moderations').length - before).toBe(2);

    before = fake.calls('POST', '/v1/moderations').length;
    fake.misbehave({ method: 'POST', path: '/v1/moderations' }, limited, 2);
    const err = await classifier.classify('x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HostedModerationError);
    expect((err as HostedModerationError).cause.kind).toBe('rate_limited');
    expect((err as HostedModerationError).permanent).toBe(false);
    expect(fake.calls('POST', '/v1/moderations').length - before).toBe(2);
  });

  it('a 5xx is tried once more (a moderation has no side effect); a second fails', async () => {
    const down = { reply: { status: 500, body: { error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } } } };
    let before = fake.calls('POST', '/v1/moderations').length;
    fake.misbehave({ method: 'POST', path: '/v1/moderations' }, down, 1);
    expect((await classifier.classify('fine')).violence).toBeLessThan(0.01);
    expect(fake.calls('POST', '/v1/moderations').length - before).toBe(2);
    before = fake.calls('POST', '/v1/moderations').length;
    fake.misbehave({ method: 'POST', path: '/v1/moderations' }, down, 2);
    await expect(classifier.classify('fine')).rejects.toThrow(/HTTP 500: The server had an error/);
    expect(fake.calls('POST', '/v1/moderations').length - before).toBe(2);
  });

  it('scores that do not apply, are unknown or null are left out; out-of-range ones are clamped', () => {
    expect(scoresFromOpenAi({ category_scores: { sexual: 1.2, 'hate/threatening': 0.3, hate: 0.1, novel: 0.9, illicit: null } }, 'text')).toEqual({ sexual: 1, hate: 0.3 });
    expect(scoresFromOpenAi({ category_scores: { sexual: 0.4, hate: 0.9 }, category_applied_input_types: { sexual: ['image'], hate: [] } }, 'image')).toEqual({ sexual: 0.4 });
    expect(() => scoresFromOpenAi({}, 'text')).toThrow(/category_scores/);
  });
});

describe('prompt screening with the hosted classifier', () => {
  it('refuses over the threshold with the mapped category, passes a clean prompt', async () => {
    expect(await screenPrompt('a fakeviolence poster', { blocklist: [], threshold: 0.8, hosted: classifier })).toMatchObject({ refused: true, rule: 'hosted', category: 'violence' });
    expect(await screenPrompt('a lighthouse at dawn', { blocklist: [], threshold: 0.8, hosted: classifier })).toEqual({ refused: false });
    // Above every score: nothing refused.
    expect(await screenPrompt('a fakeviolence poster', { blocklist: [], threshold: 0.99, hosted: classifier })).toEqual({ refused: false });
  });

  it('an unavailable endpoint fails closed', async () => {
    fake.misbehave({ method: 'POST', path: '/v1/moderations' }, { reply: { status: 503, body: { error: { message: 'overloaded', type: 'server_error', param: null, code: null } } } }, 2);
    await expect(screenPrompt('a lighthouse', { blocklist: [], threshold: 0.8, hosted: classifier })).rejects.toThrow(ModerationUnavailableError);
  });
});

describe('the fake moderation endpoint is strict', () => {
  it('accepts the documented inputs: a string, strings (a result each), text and image items (one result)', async () => {
    const one = await post({ input: 'hello' });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: expect.stringMatching(/^modr-/), model: 'omni-moderation-2024-09-26', results: [{ flagged: false }] });
    expect(Object.keys(one.body.results[0].categories)).toHaveLength(13);
    const many = await post({ input: ['a', 'fakeviolence'], model: 'text-moderation-latest' });
    expect(many.body.results.map((r: { flagged: boolean }) => r.flagged)).toEqual([false, true]);
    expect(many.body.results[1].categories).toMatchObject({ violence: true, illicit: null });
    const url = `data:image/png;base64,${(await png(255, 0, 255)).toString('base64')}`;
    const mixed = await post({ input: [{ type: 'text', text: 'a caption' }, { type: 'image_url', image_url: { url } }] });
    expect(mixed.body.results).toHaveLength(1);
    expect(mixed.body.results[0]).toMatchObject({ flagged: true, categories: { sexual: true }, category_applied_input_types: { sexual: ['text', 'image'], hate: ['text'] } });
  });

  it('refuses in OpenAI\'s 400 shape what the API refuses', async () => {
    const url = `data:image/png;base64,${(await png(1, 2, 3)).toString('base64')}`;
    const cases: Array<[unknown, string | null, string | null]> = [
      [{}, 'missing_required_parameter', 'input'],
      [{ input: 'x', user: 'u1' }, 'unknown_parameter', 'user'],
      [{ input: 'x', model: 'gpt-4o' }, 'invalid_value', 'model'],
      [{ input: 42 }, 'invalid_type', 'input'],
      [{ input: [] }, 'invalid_type', 'input'],
      [{ input: ['a', { type: 'text', text: 'b' }] }, 'invalid_type', 'input'],
      [{ input: [{ type: 'audio', audio: 'x' }] }, 'invalid_value', 'input[0].type'],
      [{ input: [{ type: 'text', text: 'b', extra: 1 }] }, 'unknown_parameter', 'input[0].extra'],
      [{ input: [{ type: 'image_url', image_url: { url, detail: 'high' } }] }, 'unknown_parameter', 'input[0].image_url.detail'],
      [{ input: [{ type: 'image_url', image_url: {} }] }, 'missing_required_parameter', 'input[0].image_url.url'],
      [{ input: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,bm90IGFuIGltYWdl' } }] }, 'invalid_image', 'input[0].image_url.url'],
      [{ input: [{ type: 'image_url', image_url: { url: 'ftp://x/y.png' } }] }, 'invalid_value', 'input[0].image_url.url'],
      [{ input: [{ type: 'image_url', image_url: { url } }], model: 'text-moderation-stable' }, 'invalid_value', 'input'],
    ];
    for (const [body, code, param] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body).slice(0, 120)).toBe(400);
      expect(res.body.error, JSON.stringify(body).slice(0, 120)).toMatchObject({ type: 'invalid_request_error', code, param });
    }
    expect((await post({ input: 'x' }, 'sk-nope')).status).toBe(401);
    fake.refused.length = 0;
  });
});
