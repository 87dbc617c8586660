import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import { fetch } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseLinks } from '../../src/user-cli/deprecation.js';
import { describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * Deprecation reaches clients (issue 28 item 6): an answer about a model whose records announce its end of life at the
 * tests' pinned catalog date carries Deprecation (RFC 9745), Sunset (RFC 8594) and Link headers, read here by real
 * HTTP clients (undici's fetch, the openai SDK's withResponse) from a real server, and parsed as those RFCs define
 * them. The models are chosen from GET /v1/models by what their `deprecation` says, and the headers are checked
 * against that object: the records may move, the agreement between the two may not.
 */

interface Deprecation {
  deprecated_on: string | null;
  shutdown_on: string | null;
  replacement: string | null;
  sources: string[];
}
interface ModelEntry {
  slug: string;
  modality: string;
  deprecation: Deprecation | null;
  parameters: { properties?: Record<string, unknown> };
}

/** RFC 9651 §3.3.7 Date: `@` and an integer of seconds since the epoch. */
function sfDate(value: string | null): number {
  const m = /^@(-?\d{1,15})$/.exec(value ?? '');
  if (!m) throw new Error(`not a Structured Field Date: ${value}`);
  return Number(m[1]);
}

/** RFC 9110 §5.6.7 IMF-fixdate, the form a sender generates (RFC 8594 §3: Sunset is an HTTP-date). */
function imfFixdate(value: string | null): number {
  if (!/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(value ?? '')) {
    throw new Error(`not an IMF-fixdate: ${value}`);
  }
  return Date.parse(value!) / 1000;
}

const midnight = (date: string) => Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / 1000;

const NO_DEPRECATION = { deprecation: null, sunset: null, link: null };
const deprecationOf = (h: { get(name: string): string | null }) => ({ deprecation: h.get('deprecation'), sunset: h.get('sunset'), link: h.get('link') });

/** The headers an answer about `m` alone must carry, checked field by field against its `deprecation`. */
function expectAnnounced(h: { get(name: string): string | null }, m: ModelEntry, scope: 'generation' | 'model'): void {
  const d = m.deprecation!;
  expect(sfDate(h.get('deprecation'))).toBe(midnight(d.deprecated_on!));
  if (d.shutdown_on) expect(imfFixdate(h.get('sunset'))).toBe(midnight(d.shutdown_on));
  else expect(h.get('sunset')).toBeNull();
  const links = parseLinks(h.get('link') ?? '');
  const own = links.filter((l) => l.target === `/v1/models/${m.slug}`);
  // A generation's answer points at the model's description; the description itself does not point at itself.
  expect(own).toEqual(scope === 'generation' ? [{ target: `/v1/models/${m.slug}`, params: { rel: 'deprecation', type: 'application/json' } }] : []);
  // The replacement, when the catalog serves it, is the successor (RFC 8288's successor-version).
  const successor = links.filter((l) => l.params.rel === 'successor-version');
  expect(successor.length).toBeLessThanOrEqual(1);
  for (const l of successor) {
    expect(d.replacement).not.toBeNull();
    expect(l.target).toMatch(/^\/v1\/models\/[a-z0-9.-]+$/);
    expect(l.target).not.toBe(`/v1/models/${m.slug}`);
  }
  const cited = links.filter((l) => l.target !== `/v1/models/${m.slug}` && l.params.rel !== 'successor-version');
  expect(cited.length).toBeGreaterThan(0);
  for (const l of cited) {
    expect(l.params).toEqual({ rel: 'deprecation' });
    expect(l.target).toMatch(/^https?:\/\//);
    expect(d.sources.some((s) => s.includes(l.target))).toBe(true);
  }
}

describeOnBackend('deprecation headers', 'pglite', (backend) => {
  let s: TestServer;
  let org: TestOrg;
  let openai: OpenAI;
  let models: ModelEntry[];
  /** A deprecated chat model with a shutdown date, a chat model with no deprecation, and likewise for images and speech. */
  let chat: ModelEntry;
  let currentChat: ModelEntry;
  let image: ModelEntry;
  let currentImage: ModelEntry;
  let voice: ModelEntry;

  const get = (path: string) => fetch(`${s.url}${path}`, { headers: { authorization: `Bearer ${org.live}` } });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${s.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${org.live}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_RATE_LIMIT_FREE: '2' });
    org = await s.createOrg({ credits: 1_000_000 });
    openai = new OpenAI({ apiKey: org.live, baseURL: `${s.url}/v1`, maxRetries: 0 });
    models = ((await (await get('/v1/models')).json()) as { data: ModelEntry[] }).data;
    const pick = (modality: string, deprecated: boolean, withShutdown = false) => {
      const m = models.find((x) => x.modality === modality && (deprecated ? !!x.deprecation && (!withShutdown || !!x.deprecation.shutdown_on) : !x.deprecation));
      if (!m) throw new Error(`no ${deprecated ? 'deprecated' : 'current'} ${modality} model on ${s.config.catalogDate}`);
      return m;
    };
    chat = pick('chat', true, true);
    currentChat = pick('chat', false);
    image = pick('image', true, true);
    currentImage = pick('image', false);
    voice = pick('voice', true);
  });
  afterAll(async () => s?.close());

  it('GET /v1/models/{id}: a deprecated model carries them, as its deprecation says; a current one none', async () => {
    const dep = await get(`/v1/models/${chat.slug}`);
    expect(dep.status).toBe(200);
    expectAnnounced(dep.headers, chat, 'model');
    const current = await get(`/v1/models/${currentChat.slug}`);
    expect(current.status).toBe(200);
    expect(deprecationOf(current.headers)).toEqual(NO_DEPRECATION);
    // The list speaks of many models at once: no headers.
    expect(deprecationOf((await get('/v1/models')).headers)).toEqual(NO_DEPRECATION);
  });

  it('a deprecated model without an announced shutdown has Deprecation and no Sunset', async () => {
    // imagen-4 on the pinned date: deprecated by Google, its Replicate route with no announced shutdown.
    const undated = models.find((m) => m.deprecation && !m.deprecation.shutdown_on);
    expect(undated).toBeDefined();
    if (!undated) return;
    const r = await get(`/v1/models/${undated.slug}`);
    expectAnnounced(r.headers, undated, 'model');
    expect(r.headers.get('sunset')).toBeNull();
  });

  it('POST /v1/chat: the request succeeds and carries them; a current model none', async () => {
    const r = await post('/v1/chat', { model: chat.slug, messages: [{ role: 'user', content: 'hello' }] });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { status: string }).status).toBe('succeeded');
    expectAnnounced(r.headers, chat, 'generation');
    const current = await post('/v1/chat', { model: currentChat.slug, messages: [{ role: 'user', content: 'hello' }] });
    expect(current.status).toBe(200);
    expect(deprecationOf(current.headers)).toEqual(NO_DEPRECATION);
  });

  it('POST /v1/chat/completions through the openai SDK (withResponse), plain and streamed', async () => {
    const { data, response } = await openai.chat.completions.create({ model: chat.slug, messages: [{ role: 'user', content: 'hello' }] }).withResponse();
    expect(data.choices[0]!.message.content!.length).toBeGreaterThan(0);
    expectAnnounced(response.headers, chat, 'generation');

    const streamed = await openai.chat.completions.create({ model: chat.slug, messages: [{ role: 'user', content: 'hello' }], stream: true }).withResponse();
    // Written with the stream's head, before its first event.
    expect(streamed.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expectAnnounced(streamed.response.headers, chat, 'generation');
    let text = '';
    for await (const chunk of streamed.data) text += chunk.choices[0]?.delta.content ?? '';
    expect(text.length).toBeGreaterThan(0);

    const current = await openai.chat.completions.create({ model: currentChat.slug, messages: [{ role: 'user', content: 'hello' }], stream: true }).withResponse();
    expect(deprecationOf(current.response.headers)).toEqual(NO_DEPRECATION);
    for await (const _ of current.data) void _;
  });

  it('the streamed chat path read with undici fetch: headers first, then the events', async () => {
    const r = await post('/v1/chat/completions', { model: chat.slug, messages: [{ role: 'user', content: 'hello' }], stream: true });
    expect(r.status).toBe(200);
    expectAnnounced(r.headers, chat, 'generation');
    expect(await r.text()).toMatch(/data: \[DONE\]\s*$/);
  });

  it('POST /v1/messages and POST /v1/responses, plain and streamed', async () => {
    for (const stream of [false, true]) {
      const m = await post('/v1/messages', { model: chat.slug, max_tokens: 100, messages: [{ role: 'user', content: 'hello' }], stream });
      expect(m.status).toBe(200);
      expectAnnounced(m.headers, chat, 'generation');
      await m.text();
      const r = await post('/v1/responses', { model: chat.slug, input: 'hello', stream });
      expect(r.status).toBe(200);
      expectAnnounced(r.headers, chat, 'generation');
      await r.text();
    }
    const current = await post('/v1/messages', { model: currentChat.slug, max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] });
    expect(deprecationOf(current.headers)).toEqual(NO_DEPRECATION);
  });

  it('POST /v1/images, /v1/images/generations and /v1/audio/speech', async () => {
    const native = await post('/v1/images', { model: image.slug, prompt: 'a lighthouse' });
    expect(native.status).toBe(200);
    expectAnnounced(native.headers, image, 'generation');
    const { response } = await openai.images.generate({ model: image.slug, prompt: 'a lighthouse' }).withResponse();
    expectAnnounced(response.headers, image, 'generation');
    const speech = await post('/v1/audio/speech', { model: voice.slug, input: 'Hello there.', voice: 'alloy' });
    expect(speech.status, await speech.clone().text().catch(() => '')).toBe(200);
    expectAnnounced(speech.headers, voice, 'generation');
    const current = await post('/v1/images', { model: currentImage.slug, prompt: 'a lighthouse' });
    expect(current.status).toBe(200);
    expect(deprecationOf(current.headers)).toEqual(NO_DEPRECATION);
  });

  it('a cache hit and an Idempotency-Key replay carry them too', async () => {
    // A cache hit needs a seed: a deprecated chat model that takes one.
    const seeded = models.find((m) => m.modality === 'chat' && m.deprecation && m.parameters.properties?.seed)!;
    const body = { model: seeded.slug, messages: [{ role: 'user', content: 'hello again' }], seed: 7 };
    const first = await post('/v1/chat', body);
    expect(first.status).toBe(200);
    const hit = await post('/v1/chat', body);
    expect(await hit.json()).toMatchObject({ cache_hit: true });
    expect(deprecationOf(hit.headers)).toEqual(deprecationOf(first.headers));
    expectAnnounced(hit.headers, seeded, 'generation');

    const key = { 'idempotency-key': `dep-${backend}-${Date.now()}` };
    const once = await post('/v1/chat/completions', { model: chat.slug, messages: [{ role: 'user', content: 'hi' }], stream: true }, key);
    await once.text();
    const replay = await post('/v1/chat/completions', { model: chat.slug, messages: [{ role: 'user', content: 'hi' }], stream: true }, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expectAnnounced(replay.headers, chat, 'generation');
    await replay.text();
  });

  it('a comparison with a deprecated model: the earliest dates, each link anchored at its model', async () => {
    const r = await post('/v1/comparisons', { models: [currentImage.slug, image.slug], prompt: 'a lighthouse' });
    expect(r.status).toBe(202);
    expect(sfDate(r.headers.get('deprecation'))).toBe(midnight(image.deprecation!.deprecated_on!));
    expect(imfFixdate(r.headers.get('sunset'))).toBe(midnight(image.deprecation!.shutdown_on!));
    const links = parseLinks(r.headers.get('link')!);
    expect(links.length).toBeGreaterThan(1);
    for (const l of links) expect(l.params.anchor).toBe(`/v1/models/${image.slug}`);
    expect(links.filter((l) => l.params.rel === 'deprecation')[0]).toEqual({ target: `/v1/models/${image.slug}`, params: { rel: 'deprecation', type: 'application/json', anchor: `/v1/models/${image.slug}` } });

    const none = await post('/v1/comparisons', { models: [currentImage.slug, models.find((m) => m.modality === 'image' && !m.deprecation && m.slug !== currentImage.slug)!.slug], prompt: 'x' });
    expect(none.status).toBe(202);
    expect(deprecationOf(none.headers)).toEqual(NO_DEPRECATION);
  });

  it.runIf(backend === 'pglite')('mmgen generate warns on stderr when the answer carries Deprecation', { timeout: 120_000 }, async () => {
    const run = promisify(execFile);
    const env = { ...process.env, MMGEN_API_KEY: org.live, MMGEN_BASE_URL: s.url };
    const bin = join(process.cwd(), 'bin', 'mmgen');
    const dep = await run(bin, ['generate', 'chat', '--model', chat.slug, '--prompt', 'hello', '--json'], { env, timeout: 90_000 });
    const lines = dep.stderr.split('\n').filter((l) => l.startsWith('mmgen: warning:'));
    expect(lines).toEqual([
      `mmgen: warning: ${chat.slug} is deprecated (since ${chat.deprecation!.deprecated_on}); shuts down ${chat.deprecation!.shutdown_on}${chat.deprecation!.replacement ? `; successor: ${chat.deprecation!.replacement}` : ''}; see: mmgen models show ${chat.slug}`,
    ]);
    expect(JSON.parse(dep.stdout)).toMatchObject({ model: chat.slug, status: 'succeeded' });
    const current = await run(bin, ['generate', 'chat', '--model', currentChat.slug, '--prompt', 'hello'], { env, timeout: 90_000 });
    expect(current.stderr).not.toContain('warning');
  });
});
