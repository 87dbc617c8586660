import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { getWallet, ledgerSums } from '../../src/billing/credits.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

describeOnBackend('POST /v1/chat/completions with the official openai SDK', 'pglite', (backend) => {
  let s: TestServer;
  let org: TestOrg;
  let openai: OpenAI;
  let model: string;

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1' });
    org = await s.createOrg({ credits: 1_000_000 });
    openai = new OpenAI({ apiKey: org.live, baseURL: `${s.url}/v1`, maxRetries: 0 });
    model = s.runtime.deps.catalog.list({ modality: 'chat' })[0]!.slug;
  });
  afterAll(async () => s?.close());

  it('answers a completion and bills it as a generation', async () => {
    const res = await openai.chat.completions.create({
      model,
      messages: [{ role: 'developer', content: 'terse' }, { role: 'user', content: [{ type: 'text', text: 'Hello there' }] }],
      max_tokens: 200,
      temperature: 0.2,
      top_p: 0.9,
      user: 'u-1',
    });
    expect(res.object).toBe('chat.completion');
    expect(res.id).toMatch(/^gen_/);
    expect(res.choices[0]!.message.role).toBe('assistant');
    expect(res.choices[0]!.message.content!.length).toBeGreaterThan(0);
    expect(res.usage!.total_tokens).toBe(res.usage!.prompt_tokens + res.usage!.completion_tokens);
    const g = (await client(s.url)('GET', `/v1/generations/${res.id}`, { key: org.live })).body;
    expect(g).toMatchObject({ status: 'succeeded', modality: 'chat', prompt: 'Hello there' });
    expect(g.usage.output_tokens).toBe(res.usage!.completion_tokens);
    expect(g.reserved_credits).toBe(g.charged_credits + g.refunded_credits);
    expect(g.charged_credits).toBeGreaterThan(0);
  });

  it('streams server-sent chunks ending in [DONE], with usage when asked, charged once', async () => {
    const before = await getWallet(s.db, org.id);
    const stream = await openai.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Tell me a story' }],
      max_tokens: 300,
      stream: true,
      stream_options: { include_usage: true },
      simulate: { output_tokens: 60 },
    } as OpenAI.ChatCompletionCreateParamsStreaming);
    let text = '';
    let chunks = 0;
    let usage: OpenAI.CompletionUsage | undefined;
    let id = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      chunks++;
      id = chunk.id;
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices[0];
      if (choice?.delta?.content) text += choice.delta.content;
      if (choice?.finish_reason) finish = choice.finish_reason;
    }
    expect(chunks).toBeGreaterThan(3);
    expect(finish).toBe('stop');
    expect(usage!.completion_tokens).toBe(60);
    const g = (await client(s.url)('GET', `/v1/generations/${id}`, { key: org.live })).body;
    expect(g.message.content).toBe(text);
    expect(g.usage.output_tokens).toBe(60);
    const after = await getWallet(s.db, org.id);
    expect(before.balance_credits - after.balance_credits).toBe(g.charged_credits);
    expect(await ledgerSums(s.db, org.id)).toEqual({ balance_credits: after.balance_credits, held_credits: after.held_credits });
  });

  it('errors reach the SDK as typed errors with our code', async () => {
    const bad = new OpenAI({ apiKey: 'sk_live_nope00000000000000000000000000', baseURL: `${s.url}/v1`, maxRetries: 0 });
    await expect(bad.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
    await expect(openai.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
    await expect(openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }], n: 2 })).rejects.toMatchObject({ status: 400, code: 'parameter_invalid', param: 'n' });
  });

  it('a streamed cache hit replays the stored reply and never asks the provider', async () => {
    const body = { model, messages: [{ role: 'user' as const, content: 'cache my stream' }], seed: 99, max_tokens: 400 };
    const first = await openai.chat.completions.create({ ...body, simulate: { output_tokens: 12 } } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    // A different simulate would make the provider answer differently: the replay must not ask it.
    const stream = await openai.chat.completions.create({ ...body, stream: true, simulate: { output_tokens: 300 } } as OpenAI.ChatCompletionCreateParamsStreaming);
    let text = '';
    let id = '';
    for await (const chunk of stream) {
      id = chunk.id;
      text += chunk.choices[0]?.delta?.content ?? '';
    }
    expect(text).toBe(first.choices[0]!.message.content);
    const g = (await client(s.url)('GET', `/v1/generations/${id}`, { key: org.live })).body;
    expect(g).toMatchObject({ cache_hit: true, charged_credits: 0, reserved_credits: 0 });
  });

  it('canceling a streaming generation stops the stream and charges nothing', async () => {
    const before = await getWallet(s.db, org.id);
    const res = await fetch(`${s.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.live}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'long' }], max_tokens: 2000, stream: true, simulate: { delay_ms: 1500, output_tokens: 1500 } }),
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let raw = '';
    while (!raw.includes('\n\n')) raw += decoder.decode((await reader.read()).value);
    const id = /"id":"(gen_\w+)"/.exec(raw)![1]!;
    const canceled = await client(s.url)('POST', `/v1/generations/${id}/cancel`, { key: org.live });
    expect(canceled.status).toBe(200);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      raw += decoder.decode(value);
    }
    expect(raw).toContain('generation_canceled');
    expect(raw).not.toContain('[DONE]');
    const g = (await client(s.url)('GET', `/v1/generations/${id}`, { key: org.live })).body;
    expect(g).toMatchObject({ status: 'canceled', charged_credits: 0 });
    expect(g.refunded_credits).toBe(g.reserved_credits);
    const after = await getWallet(s.db, org.id);
    expect(after).toEqual(before);
  });
});
