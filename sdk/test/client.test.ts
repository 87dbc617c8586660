import {
  BudgetExceededError,
  APIError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  GoneError,
  InsufficientCreditsError,
  Mmgen,
  NotFoundError,
  PermissionDeniedError,
  UnprocessableEntityError,
  type Generation,
} from '@mmgen/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestOrg, TestServer } from '../../test/helpers/server.js';
import { png, startMmgen } from './helpers.js';

/** Every SDK method against a real mmgen (simulated providers), through its real HTTP API. */
describe('the SDK against a real mmgen', () => {
  let s: TestServer;
  let org: TestOrg;
  let test: Mmgen; // test key: simulator, no credits move
  let live: Mmgen; // live key: simulated, charged

  beforeAll(async () => {
    s = await startMmgen();
    org = await s.createOrg({ plan: 'team', credits: 100_000 });
    test = new Mmgen({ apiKey: org.test, baseURL: s.url });
    live = new Mmgen({ apiKey: org.live, baseURL: s.url });
  });
  afterAll(async () => s?.close());

  async function rejection(p: Promise<unknown>): Promise<unknown> {
    return p.then(
      () => {
        throw new Error('expected a rejection');
      },
      (e: unknown) => e,
    );
  }

  it('reads its key and base URL from MMGEN_API_KEY and MMGEN_BASE_URL, and accepts a base URL ending in /v1', async () => {
    const saved = { key: process.env.MMGEN_API_KEY, url: process.env.MMGEN_BASE_URL };
    process.env.MMGEN_API_KEY = org.test;
    process.env.MMGEN_BASE_URL = `${s.url}/v1/`;
    try {
      const fromEnv = new Mmgen();
      expect(fromEnv.baseURL).toBe(s.url);
      expect((await fromEnv.organization.get()).id).toBe(org.id);
      delete process.env.MMGEN_API_KEY;
      expect(() => new Mmgen()).toThrow(/MMGEN_API_KEY/);
    } finally {
      if (saved.key === undefined) delete process.env.MMGEN_API_KEY;
      else process.env.MMGEN_API_KEY = saved.key;
      if (saved.url === undefined) delete process.env.MMGEN_BASE_URL;
      else process.env.MMGEN_BASE_URL = saved.url;
    }
  });

  it('models.list and models.get', async () => {
    const images = await test.models.list({ modality: 'image' });
    expect(images.object).toBe('list');
    expect(images.data.length).toBeGreaterThan(3);
    expect(images.data.every((m) => m.modality === 'image')).toBe(true);
    const withDelisted = await test.models.list({ include_delisted: true });
    // The 14 of release 1.1.1, and the 7 shut down or gone upstream since, delisted in the shipped data (contract addenda, "Model lifecycle").
    expect(withDelisted.data.filter((m) => m.status === 'delisted')).toHaveLength(21);
    const one = await test.models.get('flux-schnell');
    expect(one).toMatchObject({ slug: 'flux-schnell', modality: 'image', pricing: { unit: 'image' } });
    expect((await test.models.get(one.id)).slug).toBe('flux-schnell');
  });

  it('organization.get/update and wallet.get', async () => {
    expect(await live.organization.get()).toMatchObject({ id: org.id, object: 'organization', plan: 'team', paused: false, limits: { models_per_comparison: 12 } });
    expect((await live.organization.update({ paused: true })).paused).toBe(true);
    expect((await live.organization.update({ paused: false })).paused).toBe(false);
    expect(await live.wallet.get()).toEqual({ object: 'wallet', balance_credits: 100_000, held_credits: 0, available_credits: 100_000 });
  });

  it('images.create (sync): a finished generation whose signed output URL serves the PNG; withResponse exposes the request id', async () => {
    const { data: image, response, requestId } = await test.images.create({ model: 'flux-schnell', prompt: 'a lighthouse', width: 256, height: 256, seed: 7 }).withResponse();
    expect(response.status).toBe(200);
    expect(requestId).toMatch(/^req_/);
    expect(image).toMatchObject({ object: 'generation', status: 'succeeded', modality: 'image', livemode: false });
    const file = await fetch(image.outputs[0]!.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    const bytes = new Uint8Array(await file.arrayBuffer());
    expect(Array.from(bytes.subarray(0, 4))).toEqual([0x89, 0x50, 0x4e, 0x47]);
  });

  it('quotes.create answers what generations.create then reserves; nothing is reserved by the quote', async () => {
    const params = { model: 'gpt-image-1-mini', prompt: 'a wide harbour', width: 1536, height: 1024 } as const;
    const quote = await live.quotes.create(params);
    expect(quote).toMatchObject({ object: 'quote', modality: 'image', model: 'gpt-image-1-mini' });
    expect(quote.credits).toBeGreaterThan(0);
    const before = await live.wallet.get();
    expect(await live.quotes.create({ modality: 'image', ...params })).toEqual(quote);
    expect(await live.wallet.get()).toEqual(before);
    const g = await live.generations.create({ modality: 'image', ...params });
    expect(g).toMatchObject({ object: 'generation', modality: 'image', reserved_credits: quote.credits });
  });

  it('every credit-consuming POST carries an Idempotency-Key: an explicit one replays the first answer and charges once', async () => {
    const before = await live.wallet.get();
    const body = { model: 'flux-schnell', prompt: 'idempotent cat', width: 256, height: 256 };
    const first = await live.images.create(body, { idempotencyKey: 'order-42' }).withResponse();
    const again = await live.images.create(body, { idempotencyKey: 'order-42' }).withResponse();
    expect(again.data.id).toBe(first.data.id);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(first.response.headers.get('idempotent-replayed')).toBeNull();
    const after = await live.wallet.get();
    expect(before.balance_credits - after.balance_credits).toBe(3); // flux-schnell: $0.003 = 3 credits, once
    // Without an explicit key each call is its own request: two calls, two generations.
    const a = await live.images.create(body);
    const b = await live.images.create(body);
    expect(a.id).not.toBe(b.id);
    // The same key with another body is refused (422), typed.
    const err = await rejection(live.images.create({ ...body, prompt: 'another' }, { idempotencyKey: 'order-42' }));
    expect(err).toBeInstanceOf(UnprocessableEntityError);
    expect(err).toMatchObject({ status: 422, code: 'idempotency_key_reused', param: 'Idempotency-Key' });
  });

  it('videos.create (202) then generations.wait follows the event stream to succeeded, reporting each state', async () => {
    const queued = await test.videos.create({ model: 'wan-2.2', prompt: 'waves at night', duration_s: 2, simulate: { delay_ms: 800 } });
    expect(queued.generation_id).toBe(queued.id);
    expect(['queued', 'running']).toContain(queued.status);
    const states: string[] = [];
    const done = await test.generations.wait(queued, { onUpdate: (g) => states.push(g.status) });
    expect(done.status).toBe('succeeded');
    expect(states.at(-1)).toBe('succeeded');
    expect(states.length).toBeGreaterThanOrEqual(2);
    expect(done.outputs.map((o) => o.type).sort()).toEqual(['thumbnail', 'video']);
    // A terminal generation given to wait() is returned as is, without a request.
    expect(await test.generations.wait(done)).toBe(done);
  });

  it('generations.stream yields the states of a generation and ends after the terminal one', async () => {
    const g = await test.music.create({ model: 'ace-step', prompt: 'a calm loop', duration_s: 5, simulate: { delay_ms: 500 } });
    const seen: Array<{ id: string | undefined; status: string }> = [];
    for await (const event of test.generations.stream(g.id)) {
      if (event.type === 'generation') seen.push({ id: event.id, status: event.generation.status });
    }
    expect(seen.at(-1)?.status).toBe('succeeded');
    const ids = seen.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    // Resuming after the last event id: nothing new, the stream just ends.
    const resumed: unknown[] = [];
    for await (const event of test.generations.stream(g.id, { lastEventId: seen.at(-1)!.id })) resumed.push(event);
    expect(resumed).toEqual([]);
  });

  it('generations.wait polls when asked to (stream: false)', async () => {
    const g = await test.threeD.create({ model: 'rodin', prompt: 'a teapot', simulate: { delay_ms: 400 } });
    const done = await test.generations.wait(g.id, { stream: false, pollInterval: 100 });
    expect(done.status).toBe('succeeded');
    expect(done.outputs.map((o) => o.type).sort()).toEqual(['mesh', 'thumbnail']);
  });

  it('voice, chat and chat.completions (plain and streamed)', async () => {
    const voice = await test.voice.create({ model: 'tts-1', text: 'Hello from the SDK.' });
    expect(voice.outputs[0]).toMatchObject({ type: 'audio' });
    const chat = await test.chat.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hi' }], simulate: { output_tokens: 12 } });
    expect(chat.message?.role).toBe('assistant');
    expect(chat.usage?.output_tokens).toBe(12);
    const completion = await test.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hi' }] });
    expect(completion).toMatchObject({ object: 'chat.completion', choices: [{ message: { role: 'assistant' } }] });
    const stream = await test.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Count' }], stream: true, stream_options: { include_usage: true }, simulate: { output_tokens: 20 } });
    expect(stream.requestId).toMatch(/^req_/);
    let text = '';
    let usage: unknown;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(chunks).toBeGreaterThan(2);
    expect(text.length).toBeGreaterThan(0);
    expect(usage).toMatchObject({ completion_tokens: 20 });
  });

  it('a streamed chat completion whose generation is canceled mid-way throws the typed error sent in the stream', async () => {
    const stream = await test.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Take your time' }], stream: true, simulate: { delay_ms: 3000 } });
    const received: string[] = [];
    const err = await (async () => {
      for await (const chunk of stream) {
        received.push(chunk.id);
        // The first chunk (the assistant role) names the generation: cancel it while the provider is still thinking.
        if (received.length === 1) await test.generations.cancel(chunk.id);
      }
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    expect(err).toMatchObject({ code: 'generation_canceled', status: undefined });
    expect((await test.generations.get(received[0]!)).status).toBe('canceled');
  });

  it('uploads.create + uploads.put, uploads.upload, uploads.get; the upload feeds upscale and avatars', async () => {
    const file = await png(64, 48);
    const created = await test.uploads.create({ content_type: 'image/png', size_bytes: file.length });
    expect(created).toMatchObject({ object: 'upload', status: 'pending', method: 'PUT' });
    const put = await test.uploads.put(created, file);
    expect(put).toMatchObject({ id: created.id, status: 'uploaded', width: 64, height: 48 });
    // The same bytes again are harmless (that is why the SDK may retry a PUT).
    expect((await test.uploads.put(created, file)).status).toBe('uploaded');
    expect(await test.uploads.get(created.id)).toMatchObject({ status: 'uploaded', size_bytes: file.length });

    // One call: the type from the bytes (a Blob without a type), created and sent.
    const uploaded = await test.uploads.upload(new Blob([await png(40, 40, '#00aa00')]));
    expect(uploaded).toMatchObject({ status: 'uploaded', content_type: 'image/png', width: 40 });

    const up = await test.upscale.create({ model: 'real-esrgan', upload_id: uploaded.id, scale: 2 });
    const upscaled = await test.generations.wait(up);
    expect(upscaled.status).toBe('succeeded');
    expect(upscaled.outputs[0]).toMatchObject({ mime: 'image/jpeg', width: 80, height: 80 });

    const avatar = await test.avatars.create({ model: 'fabric-1.0-text', upload_id: created.id, text: 'Hi there.' });
    expect((await test.generations.wait(avatar.id)).status).toBe('succeeded');
  });

  it('generations.get, list (paged, and every page with for await), cancel and retry', async () => {
    const slow = await test.videos.create({ model: 'wan-2.2', prompt: 'slow', duration_s: 1, simulate: { delay_ms: 60_000 } });
    const canceled = await test.generations.cancel(slow.id);
    expect(canceled.status).toBe('canceled');
    const notCancelable = await rejection(test.generations.cancel(slow.id));
    expect(notCancelable).toBeInstanceOf(ConflictError);
    expect(notCancelable).toMatchObject({ status: 409, code: 'generation_not_cancelable' });

    const failing = await test.videos.create({ model: 'wan-2.2', prompt: 'fails first', duration_s: 1, simulate: { outcome: 'failure' } });
    const failed = await test.generations.wait(failing);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ code: expect.any(String) });
    const retried = await test.generations.retry(failed.id);
    expect(retried.status).toBe('queued');
    expect((await test.generations.wait(retried)).status).toBe('succeeded');
    expect((await test.generations.get(failed.id)).status).toBe('succeeded');

    const page = await test.generations.list({ limit: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.has_more).toBe(true);
    const next = await page.getNextPage();
    expect(next.data[0]!.id).not.toBe(page.data[1]!.id);
    const all: Generation[] = [];
    for await (const g of test.generations.list({ limit: 3 })) all.push(g);
    const firstPageOnly = await test.generations.list({ limit: 100 });
    expect(all.map((g) => g.id)).toEqual(firstPageOnly.data.map((g) => g.id));
    expect(new Set(all.map((g) => g.id)).size).toBe(all.length);
    const videos = await test.generations.list({ modality: 'video', status: 'canceled' });
    expect(videos.data.map((g) => g.id)).toEqual([slow.id]);
  });

  it('comparisons.create, get and wait (following each child)', async () => {
    const cmp = await test.comparisons.create({ models: ['flux-schnell', 'recraft-v3'], prompt: 'a red fox', params: { width: 256, height: 256 }, simulate: { delay_ms: 300 } });
    expect(cmp).toMatchObject({ object: 'comparison', modality: 'image' });
    expect((await test.comparisons.get(cmp.id)).generations).toHaveLength(2);
    const children: string[] = [];
    const done = await test.comparisons.wait(cmp.id, { onChildDone: (c) => children.push(c.model) });
    expect(done.status).toBe('completed');
    expect(done.generations.every((g) => g.status === 'succeeded')).toBe(true);
    expect(children.sort()).toEqual(['flux-schnell', 'recraft-v3']);
  });

  it('usage.get', async () => {
    const byModel = await live.usage.get({ group_by: 'model' });
    expect(byModel).toMatchObject({ object: 'usage', group_by: 'model' });
    const flux = byModel.data.find((r) => r.key === 'flux-schnell');
    expect(flux?.charged_credits).toBeGreaterThanOrEqual(9);
    expect(byModel.totals.charged_credits).toBe(byModel.data.reduce((n, r) => n + r.charged_credits, 0));
  });

  it('apiKeys.create, list (all pages), get, update and delete; a revoked key gets AuthenticationError', async () => {
    const made = await live.apiKeys.create({ name: 'ci', role: 'viewer', scopes: ['usage:read'], monthly_budget_usd: 5 });
    expect(made.key).toMatch(/^sk_live_/);
    const extra = await live.apiKeys.create({ name: 'spare' });
    const ids: string[] = [];
    for await (const k of live.apiKeys.list({ limit: 1 })) ids.push(k.id);
    expect(ids).toEqual(expect.arrayContaining([made.id, extra.id]));
    expect(await live.apiKeys.get(made.id)).toMatchObject({ name: 'ci', role: 'viewer' });
    const me = await live.apiKeys.current();
    expect(me.id).toMatch(/^key_/);
    expect(me.id).not.toBe(made.id);
    expect(await live.apiKeys.update(made.id, { name: 'ci-2', monthly_budget_usd: null })).toMatchObject({ name: 'ci-2', monthly_budget_usd: null });

    const narrow = new Mmgen({ apiKey: made.key, baseURL: s.url });
    expect((await narrow.wallet.get()).object).toBe('wallet');
    const denied = await rejection(narrow.images.create({ model: 'flux-schnell', prompt: 'x' }));
    expect(denied).toBeInstanceOf(PermissionDeniedError);
    expect(denied).toMatchObject({ status: 403, code: 'insufficient_role' });

    expect(await live.apiKeys.delete(made.id)).toEqual({ id: made.id, object: 'api_key', deleted: true });
    await live.apiKeys.delete(extra.id);
    const revoked = await rejection(narrow.wallet.get());
    expect(revoked).toBeInstanceOf(AuthenticationError);
    expect(revoked).toMatchObject({ status: 401, code: 'invalid_api_key', type: 'authentication_error' });
    expect((revoked as AuthenticationError).requestId).toMatch(/^req_/);
  });

  it('auditEvents.list: every page, filtered; the key just revoked is there, with who and before and after', async () => {
    const made = await live.apiKeys.create({ name: 'audited' });
    await live.apiKeys.delete(made.id);
    const seen: Array<{ action: string; target: { id: string }; before: unknown }> = [];
    for await (const e of live.auditEvents.list({ action: 'api_key.*', target_id: made.id, limit: 1 })) seen.push(e);
    expect(seen.map((e) => e.action)).toEqual(['api_key.revoked', 'api_key.created']);
    expect(seen[0]).toMatchObject({ target: { id: made.id }, before: { name: 'audited' } });
  });

  it('webhooks.create, list, get, update, test, deliveries.list/get/replay, delete', async () => {
    const hook = await test.webhooks.create({ url: 'http://127.0.0.1:9/hook', events: ['generation.completed'] });
    expect(hook.secret).toMatch(/^whsec_/);
    const listed: string[] = [];
    for await (const w of test.webhooks.list()) listed.push(w.id);
    expect(listed).toContain(hook.id);
    expect(await test.webhooks.get(hook.id)).toMatchObject({ id: hook.id, enabled: true });
    expect(await test.webhooks.update(hook.id, { events: ['*'], enabled: false })).toMatchObject({ events: ['*'], enabled: false });
    const delivery = await test.webhooks.test(hook.id);
    expect(delivery).toMatchObject({ object: 'webhook_delivery', event_type: 'webhook.test', webhook_id: hook.id });
    const page = await test.webhooks.deliveries.list(hook.id);
    expect(page.data.map((d) => d.id)).toContain(delivery.id);
    expect((await test.webhooks.deliveries.get(hook.id, delivery.id)).id).toBe(delivery.id);
    const replay = await test.webhooks.deliveries.replay(hook.id, delivery.id);
    expect(replay).toMatchObject({ event_id: delivery.event_id, replay_of: delivery.id });
    expect(await test.webhooks.delete(hook.id)).toEqual({ id: hook.id, object: 'webhook', deleted: true });
    expect(await rejection(test.webhooks.get(hook.id))).toBeInstanceOf(NotFoundError);
  });

  it('typed errors by status and code, with param and request_id', async () => {
    const missing = await rejection(test.images.create({ model: 'flux-schnell' } as never));
    expect(missing).toBeInstanceOf(BadRequestError);
    expect(missing).toMatchObject({ status: 400, code: 'parameter_missing', param: 'prompt', type: 'invalid_request_error' });
    expect((missing as BadRequestError).message).toMatch(/^400 parameter_missing: .*\(request req_/);

    const gone = await rejection(test.images.create({ model: 'dall-e-2', prompt: 'x' }));
    expect(gone).toBeInstanceOf(GoneError);
    expect(gone).toMatchObject({ status: 410, code: 'model_unavailable' });

    const unknown = await rejection(test.generations.get('gen_doesnotexist'));
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect(unknown).toMatchObject({ code: 'resource_not_found' });

    // An id with path characters stays one path segment.
    expect(await rejection(test.generations.get('../wallet'))).toBeInstanceOf(NotFoundError);

    const poor = await s.createOrg({ credits: 0 });
    const broke = new Mmgen({ apiKey: poor.live, baseURL: s.url });
    const err = await rejection(broke.images.create({ model: 'flux-schnell', prompt: 'x' }));
    expect(err).toBeInstanceOf(InsufficientCreditsError);
    expect(err).not.toBeInstanceOf(BudgetExceededError);
    expect(err).toMatchObject({ status: 402, code: 'insufficient_credits', type: 'billing_error' });

    // A blocking budget of one cent refuses a 4-cent image: a 402 of its own class, still an InsufficientCreditsError.
    const owner = new Mmgen({ apiKey: org.live, baseURL: s.url });
    const capped = await owner.apiKeys.create({ name: 'capped', monthly_budget_usd: 0.01, budget_action: 'block' });
    const over = await rejection(new Mmgen({ apiKey: capped.key, baseURL: s.url }).images.create({ model: 'recraft-v3', prompt: 'x' }));
    expect(over).toBeInstanceOf(BudgetExceededError);
    expect(over).toBeInstanceOf(InsufficientCreditsError);
    expect(over).toMatchObject({ status: 402, code: 'budget_exceeded', type: 'billing_error' });

    const bad = new Mmgen({ apiKey: 'sk_test_nope', baseURL: s.url });
    expect(await rejection(bad.models.list())).toMatchObject({ status: 401, code: 'invalid_api_key' });
  });
});
