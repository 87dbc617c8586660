import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_LIMITS } from '../../src/json-shape.js';
import { ADMIN_TOKEN } from '../helpers/operator-catalog.js';
import { client, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * Issue 42: one body that is deep or wide must not stop the node. With the organization capturing payloads at
 * `full` (whose redaction walked the body recursively, after the response, outside any error handling), each route
 * family gets bodies 100,000 levels deep (at the top, and inside a field the route knows) and wider than any object
 * or array it takes; each is refused 400 naming the limit, nothing is charged or stored as a generation, and the
 * node goes on serving. PGlite: what is tested is the HTTP layer.
 */
const deepObject = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
const deepArray = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const wideObject = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":1`).join(',')}}`;
const wideArray = (n: number) => `[${Array.from({ length: n }, () => '0').join(',')}]`;

describe('bounded input, with payload capture at full [pglite]', () => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;

  beforeAll(async () => {
    s = await startTestServer('pglite', { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_ADMIN_TOKEN: ADMIN_TOKEN, MMGEN_REQUEST_LOG_BATCH_MS: '5' });
    api = client(s.url);
    org = await s.createOrg({ credits: 1_000_000 });
    const set = await api('PATCH', '/v1/organization/data-policy', { key: org.live, body: { capture: 'full' } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
  });
  afterAll(async () => s?.close());

  const image = () => s.runtime.deps.catalog.list({ modality: 'image' })[0]!.slug;
  const chat = () => s.runtime.deps.catalog.list({ modality: 'chat' })[0]!.slug;

  /** Route, key, and the body's known fields with one field left as a hole for the odd value. */
  const routes = (): Array<{ path: string; key: string; head: string; known: string }> => [
    { path: '/v1/images', key: org.live, head: `"model":${JSON.stringify(image())},"prompt":"a cat"`, known: 'prompt' },
    { path: '/v1/chat/completions', key: org.live, head: `"model":${JSON.stringify(chat())}`, known: 'messages' },
    { path: '/v1/messages', key: org.live, head: `"model":${JSON.stringify(chat())},"max_tokens":20`, known: 'messages' },
    { path: '/v1/responses', key: org.live, head: `"model":${JSON.stringify(chat())}`, known: 'input' },
    { path: '/v1/comparisons', key: org.live, head: `"prompt":"a cat"`, known: 'models' },
    { path: '/v1/webhooks', key: org.live, head: `"url":"https://receiver.example/hook"`, known: 'events' },
    { path: '/v1/billing/stripe/webhook', key: org.live, head: `"id":"evt_1","type":"payment_intent.succeeded"`, known: 'data' },
    { path: '/v1/admin/models', key: ADMIN_TOKEN, head: `"records":[]`, known: 'model' },
  ];
  const bodies = (head: string, known: string): Array<[string, string, 'depth' | 'keys' | 'items']> => [
    ['100,000 levels at the top', `{${head},"x":${deepObject(100_000)}}`, 'depth'],
    ['100,000 levels of arrays as the whole body', deepArray(100_000), 'depth'],
    [`100,000 levels in ${known}`, `{${head},${JSON.stringify(known)}:[${deepObject(100_000)}]}`, 'depth'],
    [`${JSON_LIMITS.keys * 50} members in ${known}`, `{${head},${JSON.stringify(known)}:${wideObject(JSON_LIMITS.keys * 50)}}`, 'keys'],
    [`${JSON_LIMITS.items * 20} items in ${known}`, `{${head},${JSON.stringify(known)}:${wideArray(JSON_LIMITS.items * 20)}}`, 'items'],
  ];
  const limitWords = { depth: /levels deep/, keys: /members/, items: /items/ } as const;

  it('refuses each deep or wide body 400 naming the limit, on native, compatible, comparison, webhook and admin routes', async () => {
    const wallet = async () => (await api('GET', '/v1/wallet', { key: org.live })).body.balance_credits as number;
    const before = await wallet();
    const generationsBefore = (await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM generations')).rows[0]!.n;
    const problems: string[] = [];
    for (const r of routes()) {
      for (const [label, text, limit] of bodies(r.head, r.known)) {
        const res = await api('POST', r.path, {
          key: r.key,
          raw: text,
          headers: { 'content-type': 'application/json', 'x-mmgen-operator': 'ada', 'anthropic-version': '2023-06-01', 'stripe-signature': 't=1,v1=00' },
        });
        const e = (res.body as { error?: { code?: string; message?: string; param?: string } }).error;
        if (res.status !== 400 || e?.code !== 'parameter_invalid' || !limitWords[limit].test(e.message ?? '')) {
          problems.push(`${r.path} ${label}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        }
        if (label.includes(` in ${r.known}`) && e?.param !== r.known) problems.push(`${r.path} ${label}: param ${e?.param}`);
      }
    }
    expect(problems).toEqual([]);
    // Capture ran for every refused request (its document is made in a later turn): let it run, then keep serving.
    await s.runtime.deps.requestLog.flush();
    await new Promise((r) => setImmediate(r));
    expect((await api('GET', '/healthz')).status).toBe(200);
    const ok = await api('POST', '/v1/images', { key: org.live, body: { model: image(), prompt: 'still serving', width: 256, height: 256 } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const generationsAfter = (await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM generations')).rows[0]!.n;
    expect(generationsAfter).toBe(generationsBefore + 1);
    expect(await wallet()).toBe(before - (ok.body.charged_credits as number));
  });

  it('takes a body at the depth limit and refuses one level more', async () => {
    const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
    const models = JSON.stringify(s.runtime.deps.catalog.list({ modality: 'image' }).slice(0, 2).map((m) => m.slug));
    // The body's own object and `levels` objects from `params` down.
    const send = (levels: number) =>
      api('POST', '/v1/comparisons', { key: org.live, raw: `{"models":${models},"prompt":"a cat","params":${nested(levels)}}`, headers: { 'content-type': 'application/json' } });
    const at = await send(JSON_LIMITS.depth - 1);
    // Refused for what `params` holds (no image model takes `a`), not for its depth.
    expect(at.body.error?.message ?? '').not.toMatch(/levels deep/);
    const over = await send(JSON_LIMITS.depth);
    expect([over.status, over.body.error.code, over.body.error.param]).toEqual([400, 'parameter_invalid', 'params']);
    expect(over.body.error.message).toMatch(/levels deep/);
  });
});
