import { APIConnectionError, APIConnectionTimeoutError, APIUserAbortError, Mmgen, RateLimitError, ServiceUnavailableError } from '@mmgen/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type TestOrg, type TestServer } from '../../test/helpers/server.js';
import { FlakyProxy, startMmgen, type ProxyAction, type SeenRequest } from './helpers.js';

const FLUX_CREDITS = 3; // flux-schnell: US$0.003 per image

/**
 * Retries, through a loopback proxy in front of a real mmgen that answers
 * 429/503, hangs, or lets mmgen execute a request and then loses its answer.
 */
describe('retries, backoff and idempotency keys', () => {
  let s: TestServer;
  let org: TestOrg;
  let proxy: FlakyProxy | undefined;
  const body = { model: 'flux-schnell', prompt: 'retry me', width: 256, height: 256 };

  beforeAll(async () => {
    s = await startMmgen();
    org = await s.createOrg({ plan: 'team', credits: 10_000 });
  });
  afterAll(async () => s?.close());
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });

  const direct = () => new Mmgen({ apiKey: org.live, baseURL: s.url });

  /** A client talking to mmgen through a proxy that applies `script` to the requests matching `target`, in order, then forwards. */
  async function through(target: (r: SeenRequest) => boolean, script: ProxyAction[], options: ConstructorParameters<typeof Mmgen>[0] = {}) {
    let n = 0;
    proxy = await new FlakyProxy(s.url, (r) => (target(r) ? (script[n++] ?? { kind: 'forward' }) : { kind: 'forward' })).start();
    return new Mmgen({ apiKey: org.live, baseURL: proxy.url, ...options });
  }
  const isImagePost = (r: SeenRequest) => r.method === 'POST' && r.path === '/v1/images';
  const balance = async () => (await direct().wallet.get()).balance_credits;
  const generationCount = async () => (await direct().generations.list({ limit: 100 })).data.length;

  it('a 429 with Retry-After is waited out, then the request goes through', async () => {
    const sdk = await through((r) => r.path === '/v1/wallet', [{ kind: 'respond', status: 429, headers: { 'retry-after': '1' }, body: { error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'slow down' } } }]);
    const started = Date.now();
    const wallet = await sdk.wallet.get();
    expect(wallet.object).toBe('wallet');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(proxy!.requests((r) => r.path === '/v1/wallet')).toHaveLength(2);
  });

  it('503s are retried with growing backoff, under one Idempotency-Key; mmgen executes the POST once and charges once', async () => {
    const before = await balance();
    const unavailable: ProxyAction = { kind: 'respond', status: 503, body: { error: { type: 'api_error', code: 'internal_error', message: 'overloaded' } } };
    const sdk = await through(isImagePost, [unavailable, unavailable]);
    const started = Date.now();
    const image = await sdk.images.create(body);
    const elapsed = Date.now() - started;
    expect(image.status).toBe('succeeded');
    const posts = proxy!.requests(isImagePost);
    expect(posts).toHaveLength(3);
    const keys = posts.map((p) => p.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^mmgen-sdk-[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    // Backoff: about 0.5 s then 1 s (each less up to a quarter for jitter).
    expect(elapsed).toBeGreaterThanOrEqual(1100);
    expect(before - (await balance())).toBe(FLUX_CREDITS);
  });

  it('an answer lost after mmgen executed the POST: the retry replays it, and the wallet is charged once', async () => {
    const before = await balance();
    const generations = await generationCount();
    const sdk = await through(isImagePost, [{ kind: 'forward-then-drop' }]);
    const { data: image, response } = await sdk.images.create(body).withResponse();
    const posts = proxy!.requests(isImagePost);
    expect(posts).toHaveLength(2);
    expect(posts[1]!.headers['idempotency-key']).toBe(posts[0]!.headers['idempotency-key']);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    expect(image.status).toBe('succeeded');
    expect(before - (await balance())).toBe(FLUX_CREDITS);
    expect(await generationCount()).toBe(generations + 1);
  });

  it('a 5xx answered after mmgen executed the POST (a failing gateway) is retried into the replay as well', async () => {
    const before = await balance();
    const sdk = await through(isImagePost, [{ kind: 'forward-then-respond', status: 502, body: { error: { type: 'api_error', code: 'internal_error', message: 'bad gateway' } } }]);
    const image = await sdk.images.create(body);
    expect(proxy!.requests(isImagePost)).toHaveLength(2);
    expect((await direct().generations.get(image.id)).status).toBe('succeeded');
    expect(before - (await balance())).toBe(FLUX_CREDITS);
  });

  it('without the SDK key, the same lost answer would have charged twice (the control)', async () => {
    const before = await balance();
    const sdk = await through(isImagePost, [{ kind: 'forward-then-drop' }]);
    // Two different keys, as a naive client retrying by hand would send.
    await sdk.images.create(body, { maxRetries: 0 }).catch(() => {});
    await sdk.images.create(body, { maxRetries: 0 });
    expect(before - (await balance())).toBe(2 * FLUX_CREDITS);
  });

  it('409 idempotency_key_in_use (the first attempt still running) is retried until the replay', async () => {
    const before = await balance();
    const slow = { ...body, simulate: { delay_ms: 1200 } };
    const sdk = direct();
    const [a, b] = await Promise.all([
      sdk.images.create(slow, { idempotencyKey: 'concurrent-1' }),
      new Promise((r) => setTimeout(r, 200)).then(() => sdk.images.create(slow, { idempotencyKey: 'concurrent-1', maxRetries: 6 }).withResponse()),
    ]);
    expect(b.data.id).toBe(a.id);
    expect(b.response.headers.get('idempotent-replayed')).toBe('true');
    expect(before - (await balance())).toBe(FLUX_CREDITS);
  });

  it('POSTs mmgen does not deduplicate (creating a webhook) are not retried after a lost answer, only after 429/503', async () => {
    const isHookPost = (r: SeenRequest) => r.method === 'POST' && r.path === '/v1/webhooks';
    const sdk = await through(isHookPost, [{ kind: 'forward-then-drop' }, { kind: 'respond', status: 429, headers: { 'retry-after': '0' }, body: { error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'x' } } }]);
    // Disabled and on a closed loopback port: nothing is ever delivered anywhere.
    const hook = { url: 'https://127.0.0.1:9/never', events: ['generation.completed' as const], enabled: false };
    const lost = await sdk.webhooks.create(hook).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(APIConnectionError);
    expect(proxy!.requests(isHookPost)).toHaveLength(1);
    expect(proxy!.requests(isHookPost)[0]!.headers['idempotency-key']).toBeUndefined();
    const made = await sdk.webhooks.create(hook);
    expect(proxy!.requests(isHookPost)).toHaveLength(3);
    const all = (await direct().webhooks.list({ limit: 100 })).data.filter((w) => w.url === hook.url);
    expect(all.map((w) => w.id)).toContain(made.id);
    expect(all).toHaveLength(2); // the lost one really was created: exactly why it was not retried blindly
  });

  it('gives up after maxRetries with the typed error of the last answer', async () => {
    const always503: ProxyAction = { kind: 'respond', status: 503, body: { error: { type: 'api_error', code: 'internal_error', message: 'down' } } };
    const sdk = await through((r) => r.path === '/v1/models', [always503, always503, always503], { maxRetries: 1 });
    const err = await sdk.models.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(err).toMatchObject({ status: 503, code: 'internal_error' });
    expect(proxy!.requests((r) => r.path === '/v1/models')).toHaveLength(2);
  });

  it('a Retry-After longer than maxRetryDelay is not slept through: the RateLimitError surfaces with retryAfter', async () => {
    const sdk = await through((r) => r.path === '/v1/wallet', [{ kind: 'respond', status: 429, headers: { 'retry-after': '120' }, body: { error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'later' } } }]);
    const started = Date.now();
    const err = await sdk.wallet.get().catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfter).toBe(120);
    expect(proxy!.requests()).toHaveLength(1);
  });

  it('an attempt that gets no answer times out and is retried; the last timeout is thrown', async () => {
    const sdk = await through((r) => r.path === '/v1/organization', [{ kind: 'hang' }, { kind: 'hang' }], { timeout: 300, maxRetries: 1 });
    const err = await sdk.organization.get().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIConnectionTimeoutError);
    expect(proxy!.requests()).toHaveLength(2);
  });

  it('an AbortSignal stops a request at once, retries included', async () => {
    const sdk = await through(() => true, [{ kind: 'hang' }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const started = Date.now();
    const err = await sdk.wallet.get({ signal: controller.signal }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIUserAbortError);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('a refused connection is a network error: retried, then APIConnectionError', async () => {
    const port = await freePort();
    const sdk = new Mmgen({ apiKey: org.live, baseURL: `http://127.0.0.1:${port}`, maxRetries: 1 });
    const err = await sdk.wallet.get().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIConnectionError);
    expect((err as Error).message).toContain(`127.0.0.1:${port}`);
  });

  it('wait() falls back to polling when the event stream is unavailable', async () => {
    const isEvents = (r: SeenRequest) => r.path.endsWith('/events');
    const down: ProxyAction = { kind: 'respond', status: 503, body: { error: { type: 'api_error', code: 'internal_error', message: 'no streams here' } } };
    const sdk = await through(isEvents, [down, down, down, down]);
    const g = await sdk.videos.create({ model: 'wan-2.2', prompt: 'poll me', duration_s: 1, simulate: { delay_ms: 500 } });
    const done = await sdk.generations.wait(g, { pollInterval: 100 });
    expect(done.status).toBe('succeeded');
    expect(proxy!.requests(isEvents)).toHaveLength(3);
    expect(proxy!.requests((r) => r.method === 'GET' && r.path === `/v1/generations/${g.id}`).length).toBeGreaterThanOrEqual(1);
  });

  it('wait() polls at once when a proxy answers the stream with something that is not an event stream', async () => {
    const isEvents = (r: SeenRequest) => r.path.endsWith('/events');
    const sdk = await through(isEvents, [{ kind: 'respond', status: 200, body: { buffered: true } }]);
    const g = await sdk.music.create({ model: 'ace-step', prompt: 'poll me', duration_s: 5, simulate: { delay_ms: 300 } });
    expect((await sdk.generations.wait(g, { pollInterval: 100 })).status).toBe('succeeded');
    expect(proxy!.requests(isEvents)).toHaveLength(1);
  });

  it('wait() reconnects a broken event stream with Last-Event-ID', async () => {
    const isEvents = (r: SeenRequest) => r.path.endsWith('/events');
    const sdk = await through(isEvents, [{ kind: 'forward-first-event' }]);
    const g = await sdk.videos.create({ model: 'wan-2.2', prompt: 'reconnect', duration_s: 1, simulate: { delay_ms: 700 } });
    const done = await sdk.generations.wait(g);
    expect(done.status).toBe('succeeded');
    const streams = proxy!.requests(isEvents);
    expect(streams.length).toBeGreaterThanOrEqual(2);
    expect(streams[0]!.headers['last-event-id']).toBeUndefined();
    expect(streams[1]!.headers['last-event-id']).toMatch(/^\d+$/);
  });
});

describe("mmgen's own rate limit", () => {
  let s: TestServer;
  let org: TestOrg;

  beforeAll(async () => {
    s = await startMmgen({ MMGEN_RATE_LIMIT_TEAM: '2' });
    org = await s.createOrg({ plan: 'team' });
  });
  afterAll(async () => s?.close());

  it('surfaces as RateLimitError with mmgen Retry-After (1–60 s) and the request id', async () => {
    const sdk = new Mmgen({ apiKey: org.test, baseURL: s.url, maxRetries: 0 });
    await sdk.wallet.get();
    const { response } = await sdk.wallet.get().withResponse();
    expect(response.headers.get('ratelimit-remaining')).toBe('0');
    const err = await sdk.wallet.get().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    const rl = err as RateLimitError;
    expect(rl).toMatchObject({ status: 429, code: 'rate_limit_exceeded', type: 'rate_limit_error' });
    expect(rl.retryAfter).toBeGreaterThanOrEqual(1);
    expect(rl.retryAfter).toBeLessThanOrEqual(60);
    expect(rl.requestId).toMatch(/^req_/);
    // With a ceiling below mmgen's Retry-After, retries do not sleep through it either.
    const patient = new Mmgen({ apiKey: org.test, baseURL: s.url, maxRetries: 3, maxRetryDelay: 500 });
    const started = Date.now();
    expect(await patient.wallet.get().catch((e: unknown) => e)).toBeInstanceOf(RateLimitError);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
