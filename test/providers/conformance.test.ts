import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/catalog/models.js';
import type { CatalogModel, Modality } from '../../src/catalog/index.js';
import { sniffMime } from '../../src/media/index.js';
import { AnthropicAdapter } from '../../src/providers/anthropic/index.js';
import { ElevenLabsAdapter } from '../../src/providers/elevenlabs/index.js';
import { FalAdapter } from '../../src/providers/fal/index.js';
import { recordsOf } from '../../src/providers/declaration.js';
import { anthropic } from '../../src/providers/anthropic/provider.js';
import { elevenlabs } from '../../src/providers/elevenlabs/provider.js';
import { fal } from '../../src/providers/fal/provider.js';
import { openai } from '../../src/providers/openai/provider.js';
import { replicate } from '../../src/providers/replicate/provider.js';
import type { HttpPolicy } from '../../src/providers/http.js';
import { OpenAiAdapter } from '../../src/providers/openai/index.js';
import { ReplicateAdapter } from '../../src/providers/replicate/index.js';
import { ProviderError, type ChatStreamChunk, type ProviderAdapter, type UpstreamRequest, type UpstreamStatus } from '../../src/providers/types.js';
import type { FakeServer } from '../fakes/base.js';
import { AnthropicFake, ElevenLabsFake, FalFake, kindOfUpstream, OpenAiFake, ReplicateFake } from '../fakes/index.js';
import { fakePng } from '../fakes/media.js';

/**
 * The provider conformance suite: the same cases run against every adapter,
 * each talking HTTP to its loopback fake (which speaks the provider's
 * documented API). Nothing of mmgen's own is stubbed; the adapters are the
 * real ones, configured as the registry configures them.
 */

// Generous deadlines: a loaded machine must not turn a happy path into a timeout (the timeout tests set their own).
const POLICY: HttpPolicy = { timeoutMs: 10_000, readTimeoutMs: 10_000, maxRetryAfterMs: 1_500, rateLimitRetries: 2, maxBodyBytes: 64 * 1024 * 1024 };

type Adapter = ProviderAdapter & { close(): Promise<void> };

interface Harness {
  provider: string;
  async: boolean;
  makeFake(): FakeServer & { baseUrl: string };
  makeAdapter(baseUrl: string, key: string, policy?: HttpPolicy): Adapter;
  /** The call that does the work for a request (where misbehaviour is injected). */
  workPath(req: UpstreamRequest): { method: string; path: RegExp };
  /** The provider's error body for a status and message. */
  errorBody(status: number, message: string): unknown;
  /** Where the fake's job is held back / released (async providers). */
  hold?(fake: FakeServer, on: boolean): void;
  /** The provider lists its jobs with what they were sent, so a create whose answer was lost can be found again (docs/contract-addenda.md). */
  findsLost?: boolean;
  /** The fake's jobs by id (async providers), to check which one was found. */
  jobIds?(fake: FakeServer): string[];
}

const HARNESSES: Harness[] = [
  {
    provider: 'openai',
    async: false,
    makeFake: () => new OpenAiFake(),
    makeAdapter: (baseUrl, key, policy = POLICY) => new OpenAiAdapter({ baseUrl, apiKey: key }, recordsOf(openai), policy),
    workPath: (req) => ({ method: 'POST', path: { chat: /\/chat\/completions$/, image: /\/images\/(generations|edits)$/, voice: /\/audio\/speech$/ }[req.modality as 'chat'] ?? /./ }),
    errorBody: (_s, message) => ({ error: { message, type: 'invalid_request_error', param: null, code: null } }),
  },
  {
    provider: 'anthropic',
    async: false,
    makeFake: () => new AnthropicFake(),
    makeAdapter: (baseUrl, key, policy = POLICY) => new AnthropicAdapter({ baseUrl, apiKey: key }, recordsOf(anthropic), policy),
    workPath: () => ({ method: 'POST', path: /^\/v1\/messages$/ }),
    errorBody: (status, message) => ({ type: 'error', error: { type: status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error', message } }),
  },
  {
    provider: 'replicate',
    async: true,
    makeFake: () => new ReplicateFake({ kindOf: kindOfUpstream, jobMs: 40 }),
    makeAdapter: (baseUrl, key, policy = POLICY) => new ReplicateAdapter({ baseUrl, apiKey: key }, recordsOf(replicate), policy),
    workPath: () => ({ method: 'POST', path: /\/predictions$/ }),
    errorBody: (status, message) => ({ title: 'Error', detail: message, status }),
    hold: (fake, on) => ((fake as ReplicateFake).hold = on),
    findsLost: true,
    jobIds: (fake) => [...(fake as ReplicateFake).predictions.keys()],
  },
  {
    provider: 'fal',
    async: true,
    makeFake: () => new FalFake({ kindOf: kindOfUpstream, jobMs: 40 }),
    makeAdapter: (baseUrl, key, policy = POLICY) => new FalAdapter({ baseUrl, apiKey: key }, recordsOf(fal), policy),
    workPath: (req) => ({ method: 'POST', path: new RegExp(`^/${req.upstreamModel.replace(/[.]/g, '\\.')}$`) }),
    errorBody: (_s, message) => ({ detail: message }),
    hold: (fake, on) => ((fake as FalFake).hold = on),
  },
  {
    provider: 'elevenlabs',
    async: false,
    makeFake: () => new ElevenLabsFake(),
    makeAdapter: (baseUrl, key, policy = POLICY) => new ElevenLabsAdapter({ baseUrl, apiKey: key }, recordsOf(elevenlabs), policy),
    workPath: (req) => ({ method: 'POST', path: req.modality === 'voice' ? /^\/v1\/text-to-speech\// : /^\/v1\/music$/ }),
    errorBody: (_s, message) => ({ detail: { status: 'error', message } }),
  },
];

/** mmgen's validated request fields for each modality (as the routes fill in defaults). */
async function paramsFor(modality: Modality): Promise<{ params: Record<string, unknown>; image?: UpstreamRequest['image'] }> {
  const portrait = async () => ({ bytes: await fakePng('portrait', 256, 256), mime: 'image/png', width: 256, height: 256 });
  switch (modality) {
    case 'image':
      return { params: { prompt: 'a lighthouse', num_outputs: 2, width: 1024, height: 1024 } };
    case 'video':
      // The first video model of each job provider is Kling, which takes 5 or 10 s.
      return { params: { prompt: 'waves', duration_s: 5, aspect_ratio: '16:9' } };
    case 'voice':
      return { params: { text: 'Hello there, general.', language: 'en', speed: 1.1 } };
    case 'music':
      return { params: { prompt: 'lofi beat', duration_s: 5, with_vocals: false } };
    case 'avatar':
      // The first avatar model of each job provider is audio-driven (omnihuman): it requires the audio. Never fetched by the fakes.
      return { params: { text: 'Hi, I am an avatar.', audio_url: 'http://127.0.0.1:9/speech.mp3' }, image: await portrait() };
    case '3d':
      // The first 3D model of each job provider is image-to-3D (trellis, hunyuan3d v2).
      return { params: { prompt: 'a teapot', format: 'glb' }, image: await portrait() };
    case 'upscale':
      return { params: { scale: 2, face_restore: false }, image: await portrait() };
    case 'chat':
      return { params: { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'say hello world' }], max_tokens: 64, temperature: 0.5 } };
  }
}

/** The first active catalog model of a modality that has a route on this provider. */
function modelFor(provider: string, modality: Modality): { model: CatalogModel; upstream: string } | undefined {
  for (const m of CATALOG) {
    if (m.status !== 'active' || m.modality !== modality) continue;
    const r = m.routes.find((x) => x.provider === provider);
    if (r) return { model: m, upstream: r.upstream };
  }
  return undefined;
}

let refs = 0;
async function requestFor(provider: string, modality: Modality): Promise<UpstreamRequest> {
  const found = modelFor(provider, modality)!;
  const { params, image } = await paramsFor(modality);
  return { clientRef: `gen_conformance${++refs}#1`, attempt: 1, modality, model: found.model, upstreamModel: found.upstream, params, image };
}

async function untilTerminal(adapter: ProviderAdapter, req: UpstreamRequest, first: { upstreamId: string; status?: UpstreamStatus }): Promise<UpstreamStatus> {
  let status = first.status;
  const deadline = Date.now() + 15_000;
  while (!status || status.state === 'queued' || status.state === 'running') {
    if (Date.now() > deadline) throw new Error('job never finished');
    await new Promise((r) => setTimeout(r, 20));
    status = await adapter.poll(first.upstreamId, req);
  }
  return status;
}

async function expectProviderError(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ProviderError);
    return err as ProviderError;
  }
  throw new Error('expected a ProviderError');
}

const MAIN_KIND: Partial<Record<Modality, string>> = { image: 'image', upscale: 'image', video: 'video', avatar: 'video', voice: 'audio', music: 'audio', '3d': 'model' };

async function drainStream(it: AsyncIterable<ChatStreamChunk>): Promise<{ text: string; done: Extract<ChatStreamChunk, { type: 'done' }> | undefined }> {
  let text = '';
  let done: Extract<ChatStreamChunk, { type: 'done' }> | undefined;
  for await (const c of it) {
    if (c.type === 'delta') text += c.text;
    else done = c;
  }
  return { text, done };
}

for (const h of HARNESSES) {
  const modalities = (['image', 'video', 'voice', 'music', 'avatar', 'chat', '3d', 'upscale'] as const).filter((m) => modelFor(h.provider, m));

  describe(`provider conformance: ${h.provider}`, () => {
    let fake: FakeServer & { baseUrl: string };
    let adapter: Adapter;

    beforeAll(async () => {
      fake = await h.makeFake().start();
      adapter = h.makeAdapter(fake.baseUrl, fake.key);
    });
    afterAll(async () => {
      await adapter?.close();
      await fake?.close();
    });

    it('serves at least one catalog modality', () => {
      expect(modalities.length).toBeGreaterThan(0);
    });

    it.each(modalities)('happy path: %s', async (modality) => {
      fake.clearMisbehaviour();
      const req = await requestFor(h.provider, modality);
      const submitted = await adapter.submit(req);
      expect(submitted.upstreamId).toBeTruthy();
      if (!h.async) expect(submitted.status?.state).toBe('succeeded');
      const status = await untilTerminal(adapter, req, submitted);
      expect(status.state, JSON.stringify(status.error)).toBe('succeeded');
      if (modality === 'chat') {
        expect(status.message?.content).toMatch(/hello world/);
        expect(status.usage?.output_tokens).toBeGreaterThan(0);
        expect(status.finish_reason).toBe('stop');
        return;
      }
      const outputs = status.outputs ?? [];
      expect(outputs.length).toBeGreaterThan(0);
      if (modality === 'image') expect(outputs.filter((o) => (o.type ?? 'image') === 'image')).toHaveLength(2);
      const main = outputs.find((o) => o.type !== 'thumbnail')!;
      const bytes = main.bytes ?? Buffer.from(await (await fetch(main.url!)).arrayBuffer());
      expect(sniffMime(bytes)?.split('/')[0]).toBe(MAIN_KIND[modality]);
    });

    if (modalities.includes('chat')) {
      it('streams a chat reply with its usage', async () => {
        const req = await requestFor(h.provider, 'chat');
        const { text, done } = await drainStream(adapter.streamChat!(req));
        expect(text).toMatch(/hello world/);
        expect(done?.message.content).toBe(text);
        expect(done?.usage?.output_tokens).toBe(text.split(' ').length);
        expect(done?.finish_reason).toBe('stop');
      });

      it('a stream cut short by max_tokens ends with finish_reason length', async () => {
        const req = await requestFor(h.provider, 'chat');
        req.params.max_tokens = 2;
        const { done } = await drainStream(adapter.streamChat!(req));
        expect(done?.finish_reason).toBe('length');
        expect(done?.usage?.output_tokens).toBe(2);
      });

      it('aborting a stream ends it quietly', async () => {
        const req = await requestFor(h.provider, 'chat');
        const abort = new AbortController();
        let deltas = 0;
        for await (const c of adapter.streamChat!(req, abort.signal)) {
          if (c.type === 'delta' && ++deltas === 1) abort.abort();
        }
        expect(deltas).toBe(1);
      });
    }

    const m = modalities[0]!;

    it('a 4xx is not retryable, the gateway is at fault, nothing was accepted', async () => {
      const req = await requestFor(h.provider, m);
      const w = h.workPath(req);
      fake.misbehave(w, { reply: { status: 400, body: h.errorBody(400, 'bad field frobnicate') } });
      const err = await expectProviderError(adapter.submit(req));
      expect(err.opts).toMatchObject({ kind: 'bad_request', retryable: false, accepted: false, origin: 'gateway', status: 400 });
      expect(err.message).toMatch(/bad field frobnicate/);
      expect(err.canFallBack).toBe(false);
    });

    it('a wrong credential is an authentication error (gateway at fault)', async () => {
      const other = h.makeAdapter(fake.baseUrl, 'wrong-key');
      const err = await expectProviderError(other.submit(await requestFor(h.provider, m)));
      await other.close();
      expect(err.opts).toMatchObject({ kind: 'authentication', retryable: false, origin: 'gateway', status: 401 });
    });

    it('a 5xx is retryable and may fall back (the provider is at fault, nothing accepted)', async () => {
      const req = await requestFor(h.provider, m);
      fake.misbehave(h.workPath(req), { reply: { status: 500, body: h.errorBody(500, 'upstream exploded') } });
      const err = await expectProviderError(adapter.submit(req));
      expect(err.opts).toMatchObject({ retryable: true, accepted: false, origin: 'provider', status: 500 });
      expect(err.isProviderFault).toBe(true);
      expect(err.canFallBack).toBe(true);
    });

    it('a 429 with a short Retry-After is waited out and sent again to the same provider', async () => {
      const req = await requestFor(h.provider, m);
      const w = h.workPath(req);
      const before = fake.calls(w.method, w.path).length;
      fake.misbehave(w, { reply: { status: 429, headers: { 'retry-after': '1' }, body: h.errorBody(429, 'slow down') } });
      const started = Date.now();
      const submitted = await adapter.submit(req);
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect(fake.calls(w.method, w.path).length - before).toBe(2);
      expect((await untilTerminal(adapter, req, submitted)).state).toBe('succeeded');
    });

    it('a 429 with a long Retry-After is handed back typed, with the wait', async () => {
      const req = await requestFor(h.provider, m);
      fake.misbehave(h.workPath(req), { reply: { status: 429, headers: { 'retry-after': '30' }, body: h.errorBody(429, 'quota') } });
      const err = await expectProviderError(adapter.submit(req));
      expect(err.opts).toMatchObject({ kind: 'rate_limited', retryable: true, accepted: false, retryAfterMs: 30_000 });
    });

    it('a provider that does not answer in time is a timeout; the work may have been accepted', async () => {
      const req = await requestFor(h.provider, m);
      const quick = h.makeAdapter(fake.baseUrl, fake.key, { ...POLICY, timeoutMs: 300 });
      fake.misbehave(h.workPath(req), { hang: true });
      const started = Date.now();
      const err = await expectProviderError(quick.submit(req));
      await quick.close();
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(err.opts).toMatchObject({ kind: 'timeout', retryable: true, accepted: true });
      expect(err.canFallBack).toBe(false);
    });

    it('a malformed body is a malformed_response (accepted: the provider said 200)', async () => {
      const req = await requestFor(h.provider, m);
      fake.misbehave(h.workPath(req), { reply: { status: 200, headers: { 'content-type': 'text/html' }, body: '<html>gateway page</html>' } });
      const err = await expectProviderError(adapter.submit(req));
      expect(err.opts).toMatchObject({ kind: 'malformed_response', retryable: true, accepted: true, origin: 'provider' });
    });

    it('an unreachable provider is a network error before anything was sent', async () => {
      const closed = h.makeAdapter('http://127.0.0.1:9', fake.key);
      const err = await expectProviderError(closed.submit(await requestFor(h.provider, m)));
      await closed.close();
      expect(err.opts).toMatchObject({ kind: 'network', retryable: true, accepted: false });
      expect(err.canFallBack).toBe(true);
    });

    if (h.async) {
      it('cancel stops a running job upstream', async () => {
        const req = await requestFor(h.provider, m);
        h.hold!(fake, true);
        try {
          const { upstreamId } = await adapter.submit(req);
          expect(['queued', 'running']).toContain((await adapter.poll(upstreamId, req)).state);
          await adapter.cancel(upstreamId);
          expect(fake.calls().at(-1)!.path).toMatch(/\/cancel$/);
          expect(['canceled', 'failed']).toContain((await adapter.poll(upstreamId, req)).state);
          // Canceling again (already finished upstream) is not an error.
          await adapter.cancel(upstreamId);
        } finally {
          h.hold!(fake, false);
        }
      });

      it('lost, then retried: the recorded job is asked about again and its result used', async () => {
        const req = await requestFor(h.provider, m);
        h.hold!(fake, true);
        const { upstreamId } = await adapter.submit(req);
        // mmgen stops waiting (timeout, crash); the job finishes upstream meanwhile.
        h.hold!(fake, false);
        await new Promise((r) => setTimeout(r, 80));
        const restarted = h.makeAdapter(fake.baseUrl, fake.key);
        const w = h.workPath(req);
        const submissions = fake.calls(w.method, w.path).length;
        const status = await untilTerminal(restarted, req, { upstreamId });
        await restarted.close();
        expect(status.state).toBe('succeeded');
        expect(status.outputs?.length).toBeGreaterThan(0);
        expect(fake.calls(w.method, w.path).length).toBe(submissions);
      });

      it(`a submission whose answer is lost is accepted (never resubmitted blindly), and ${h.findsLost ? 'is' : 'cannot be'} found by client reference`, async () => {
        const req = await requestFor(h.provider, m);
        const before = new Set(h.jobIds?.(fake));
        fake.misbehave(h.workPath(req), { lose: true });
        const err = await expectProviderError(adapter.submit(req));
        expect(err.opts).toMatchObject({ accepted: true });
        expect(err.canFallBack).toBe(false);
        const found = await adapter.findByClientRef(req.clientRef);
        if (!h.findsLost) return expect(found).toBeNull();
        // The job the lost create made, and no other (earlier cases left jobs of the same model behind).
        const made = h.jobIds!(fake).filter((id) => !before.has(id));
        expect(made).toHaveLength(1);
        expect(found).toBe(made[0]);
        expect((await untilTerminal(adapter, req, { upstreamId: found! })).state).toBe('succeeded');
        // A reference whose create was answered (or never sent from here) finds nothing, and asks nothing.
        const calls = fake.calls().length;
        expect(await adapter.findByClientRef(`${req.clientRef}-never-sent`)).toBeNull();
        expect(fake.calls().length).toBe(calls);
      });

      if (h.findsLost) {
        it('a lost create is not confused with a look-alike: the same input answered, or two lost at once, is not adopted', async () => {
          const req = await requestFor(h.provider, m);
          // The same input, created with an answer: that prediction is another submission's.
          const other = await adapter.submit({ ...req, clientRef: `${req.clientRef}-other` });
          fake.misbehave(h.workPath(req), { lose: true });
          await expectProviderError(adapter.submit(req));
          const found = await adapter.findByClientRef(req.clientRef);
          expect(found).toBeTruthy();
          expect(found).not.toBe(other.upstreamId);
          // Two more lost creates of the same input: which is which cannot be told, so neither is adopted
          // (the one found above is its reference's now, and not a candidate).
          const twins = [`${req.clientRef}-a`, `${req.clientRef}-b`].map((clientRef) => ({ ...req, clientRef }));
          for (const twin of twins) {
            fake.misbehave(h.workPath(req), { lose: true });
            await expectProviderError(adapter.submit(twin));
          }
          for (const twin of twins) expect(await adapter.findByClientRef(twin.clientRef)).toBeNull();
          expect(await adapter.findByClientRef(req.clientRef)).toBe(found);
        });
      }

      it('a poll answered with a malformed body is a retryable malformed_response', async () => {
        const req = await requestFor(h.provider, m);
        const { upstreamId } = await adapter.submit(req);
        fake.misbehave({ method: 'GET' }, { reply: { status: 200, body: '{"status": ' } });
        const err = await expectProviderError(adapter.poll(upstreamId, req));
        expect(err.opts).toMatchObject({ kind: 'malformed_response', retryable: true });
        expect((await untilTerminal(adapter, req, { upstreamId })).state).toBe('succeeded');
      });
    } else {
      it('has no upstream job: cancel sends nothing, no client reference is kept, a lost answer counts as accepted', async () => {
        const before = fake.calls().length;
        await adapter.cancel('anything');
        expect(fake.calls().length).toBe(before);
        const req = await requestFor(h.provider, m);
        expect(await adapter.findByClientRef(req.clientRef)).toBeNull();
        fake.misbehave(h.workPath(req), { lose: true });
        const err = await expectProviderError(adapter.submit(req));
        expect(err.opts).toMatchObject({ accepted: true, retryable: true });
        expect(err.canFallBack).toBe(false);
      });
    }
  });
}

describe('provider specifics', () => {
  it('openai: a safety refusal is content_policy; image sizes are mapped to the model\'s own', async () => {
    const fake = await new OpenAiFake().start();
    const adapter = new OpenAiAdapter({ baseUrl: fake.baseUrl, apiKey: fake.key }, recordsOf(openai), POLICY);
    try {
      const req = await requestFor('openai', 'image');
      req.params = { prompt: 'a forbidden thing', num_outputs: 1, width: 640, height: 360 };
      const err = await expectProviderError(adapter.submit(req));
      expect(err.opts).toMatchObject({ kind: 'content_policy', retryable: false, origin: 'provider' });
      req.params.prompt = 'a wide harbour';
      const ok = await adapter.submit(req);
      expect(ok.status?.outputs).toHaveLength(1);
      expect((fake.calls('POST', /images/).at(-1)!.json as { size: string }).size).toBe('1536x1024');
      // Image-to-image goes to the edits endpoint as multipart with the input file.
      req.image = { bytes: await fakePng('input', 256, 256), mime: 'image/png', width: 256, height: 256 };
      const edited = await adapter.submit(req);
      expect(edited.status?.outputs).toHaveLength(1);
      expect(fake.calls('POST', /\/images\/edits$/)).toHaveLength(1);
    } finally {
      await adapter.close();
      await fake.close();
    }
  });

  it('anthropic: system lifted out, turns merged, temperature clamped; an error event mid-stream fails it', async () => {
    const fake = await new AnthropicFake({ failStreamAfter: 2 }).start();
    const adapter = new AnthropicAdapter({ baseUrl: fake.baseUrl, apiKey: fake.key }, recordsOf(anthropic), POLICY);
    try {
      const req = await requestFor('anthropic', 'chat');
      req.params = {
        messages: [
          { role: 'system', content: 'One.' },
          { role: 'assistant', content: 'I speak first.' },
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
          { role: 'system', content: 'Two.' },
        ],
        max_tokens: 50,
        temperature: 1.7,
        stop: 'END',
        seed: 7,
      };
      const res = await adapter.submit(req);
      expect(res.status?.state).toBe('succeeded');
      const sent = fake.calls('POST', '/v1/messages').at(-1)!.json as Record<string, unknown>;
      expect(sent).toMatchObject({ system: 'One.\n\nTwo.', temperature: 1, stop_sequences: ['END'], max_tokens: 50 });
      expect(sent.seed).toBeUndefined();
      expect(sent.messages).toEqual([
        { role: 'user', content: '.' },
        { role: 'assistant', content: 'I speak first.' },
        { role: 'user', content: 'a\n\nb' },
      ]);
      const err = await expectProviderError(drainStream(adapter.streamChat!(req)));
      expect(err.opts).toMatchObject({ kind: 'overloaded', accepted: true });
    } finally {
      await adapter.close();
      await fake.close();
    }
  });

  it('fal: what the safety checker flags is reported blocked; status is read under the app, not the endpoint path', async () => {
    const fake = await new FalFake({ kindOf: kindOfUpstream, jobMs: 10 }).start();
    const adapter = new FalAdapter({ baseUrl: fake.baseUrl, apiKey: fake.key }, recordsOf(fal), POLICY);
    try {
      const req = await requestFor('fal', 'image');
      req.params = { prompt: 'something nsfw', num_outputs: 1, width: 512, height: 512 };
      const submitted = await adapter.submit(req);
      const status = await untilTerminal(adapter, req, submitted);
      expect(status.outputs?.[0]?.moderation).toBe('blocked');
      const endpoint = req.upstreamModel;
      expect(endpoint.split('/').length).toBeGreaterThan(2);
      expect(fake.calls('GET').every((c) => !c.path.startsWith(`/${endpoint}/`))).toBe(true);
      fake.failNextRequests(1, 'GPU fell over');
      const failing = await adapter.submit(await requestFor('fal', 'image'));
      const failed = await untilTerminal(adapter, req, failing);
      expect(failed).toMatchObject({ state: 'failed' });
      expect(failed.error?.message).toMatch(/GPU fell over/);
    } finally {
      await adapter.close();
      await fake.close();
    }
  });

  it('replicate: a safety-checker failure says so; a failed prediction is a failed job', async () => {
    const fake = await new ReplicateFake({ kindOf: kindOfUpstream, jobMs: 10 }).start();
    const adapter = new ReplicateAdapter({ baseUrl: fake.baseUrl, apiKey: fake.key }, recordsOf(replicate), POLICY);
    try {
      const req = await requestFor('replicate', 'image');
      req.params = { prompt: 'an nsfw picture', num_outputs: 1 };
      const status = await untilTerminal(adapter, req, await adapter.submit(req));
      expect(status.state).toBe('failed');
      expect(status.error?.message).toMatch(/safety filter blocked/);
      const sent = fake.calls('POST').at(-1)!.json as { input: Record<string, unknown> };
      expect(sent.input).toMatchObject({ output_format: 'png', num_outputs: 1 });
    } finally {
      await adapter.close();
      await fake.close();
    }
  });

  it('replicate: a lost create is looked for in the list from just before it was sent, following the cursor two pages deep and no further', async () => {
    const fake = await new ReplicateFake({ kindOf: kindOfUpstream, jobMs: 10 }).start();
    fake.pageSize = 2;
    const adapter = new ReplicateAdapter({ baseUrl: fake.baseUrl, apiKey: fake.key }, recordsOf(replicate), POLICY);
    try {
      const lose = async (req: UpstreamRequest) => {
        fake.misbehave({ method: 'POST', path: /\/predictions$/ }, { lose: true });
        await expectProviderError(adapter.submit(req));
        return [...fake.predictions.keys()].at(-1)!;
      };
      const newer = async (n: number) => {
        for (let i = 0; i < n; i++) await adapter.submit(await requestFor('replicate', 'image'));
      };
      // Two newer predictions push it to the second page.
      const first = await requestFor('replicate', 'image');
      const firstId = await lose(first);
      await newer(2);
      const lists = fake.calls('GET', '/v1/predictions').length;
      expect(await adapter.findByClientRef(first.clientRef)).toBe(firstId);
      const asked = fake.calls('GET', '/v1/predictions').slice(lists);
      expect(asked).toHaveLength(2);
      expect(Date.parse(asked[0]!.query.get('created_after')!)).toBeLessThanOrEqual(Date.now());
      expect(asked[1]!.query.get('cursor')).toBeTruthy();
      // Four newer push it to the third page: not looked for there, so not found (mmgen submits again).
      const second = await requestFor('replicate', 'image');
      await lose(second);
      await newer(4);
      expect(await adapter.findByClientRef(second.clientRef)).toBeNull();
    } finally {
      await adapter.close();
      await fake.close();
    }
  });

  it('elevenlabs: language_code only where the model takes one; a voice id picks the voice', async () => {
    const fake = await new ElevenLabsFake().start();
    const adapter = new ElevenLabsAdapter({ baseUrl: fake.baseUrl, apiKey: fake.key }, recordsOf(elevenlabs), POLICY);
    try {
      const req = await requestFor('elevenlabs', 'voice');
      req.upstreamModel = 'eleven_flash_v2_5';
      req.params = { text: 'Bonjour', language: 'fr-FR', voice_id: 'AZnzlk1XvdvUeBnXmlld' };
      await adapter.submit(req);
      const call = fake.calls('POST').at(-1)!;
      expect(call.path).toBe('/v1/text-to-speech/AZnzlk1XvdvUeBnXmlld');
      expect(call.json).toMatchObject({ language_code: 'fr', model_id: 'eleven_flash_v2_5' });
      req.params.voice_id = 'nope';
      const err = await expectProviderError(adapter.submit(req));
      expect(err.opts).toMatchObject({ kind: 'not_found', status: 404 });
      expect(err.message).toMatch(/voice_not_found/);
    } finally {
      await adapter.close();
      await fake.close();
    }
  });
});

