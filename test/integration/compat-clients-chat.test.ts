import Anthropic from '@anthropic-ai/sdk';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AIMessageChunk } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { generateText, streamText, type LanguageModel } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectChatsChargedExactly, generationsOf as listGenerations } from '../helpers/generations.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * The clients people already use, unchanged, against a real mmgen on loopback (contract §12): the official Anthropic
 * and OpenAI SDKs, the Vercel AI SDK through both its OpenAI providers, and LangChain. Live keys on simulated
 * providers, so that every call is charged: each test runs in an organization of its own and checks that its wallet
 * moved by exactly the sum of its generations' charged_credits.
 */
const CREDITS = 1_000_000;
type APIError = InstanceType<typeof Anthropic.APIError>;

describeOnBackend('compatible chat clients', 'pglite', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_RATE_LIMIT_FREE: '2' });
    api = client(s.url);
  });
  afterAll(async () => s?.close());

  const fresh = () => s.createOrg({ credits: CREDITS });
  const anthropic = (org: TestOrg, opts: Partial<ConstructorParameters<typeof Anthropic>[0]> = {}) =>
    new Anthropic({ baseURL: s.url, apiKey: org.live, maxRetries: 0, ...opts });
  const openai = (org: TestOrg) => new OpenAI({ apiKey: org.live, baseURL: `${s.url}/v1`, maxRetries: 0 });

  /** The wallet moved by exactly what the organization's generations were charged; returns them. */
  const expectChargedExactly = (org: TestOrg, count: number): Promise<any[]> => expectChatsChargedExactly(api, org.live, CREDITS, count);

  it('@anthropic-ai/sdk messages.create: a reply with usage, with system, on an OpenAI model too', async () => {
    const org = await fresh();
    const claude = anthropic(org);
    const plain = await claude.messages.create({ model: 'claude-haiku-4-5', max_tokens: 200, messages: [{ role: 'user', content: 'Hello there' }] });
    expect(plain.id).toMatch(/^gen_/);
    // The SDK's request id, read from Anthropic's `request-id` header: mmgen's own.
    expect(plain._request_id).toMatch(/^req_/);
    expect(plain).toMatchObject({ type: 'message', role: 'assistant', model: 'claude-haiku-4.5', stop_reason: 'end_turn', stop_sequence: null });
    expect(plain.content).toHaveLength(1);
    const block = plain.content[0]!;
    expect(block.type === 'text' && block.text.length > 20).toBe(true);
    expect(plain.usage.input_tokens).toBeGreaterThan(0);
    expect(plain.usage.output_tokens).toBeGreaterThan(0);

    const withSystem = await claude.messages.create({
      model: 'claude-haiku-4-5-20251001',
      max_tokens: 300,
      system: [{ type: 'text', text: 'You are terse.' }, { type: 'text', text: ' Answer in English.' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Tell me ' }, { type: 'text', text: 'about tides' }] },
        { role: 'assistant', content: 'Gladly.' },
        { role: 'user', content: 'Go on' },
      ],
      stop_sequences: ['\n\n\n'],
      metadata: { user_id: 'u-1' },
      // Documented by Anthropic; this SDK version's types no longer list it.
      temperature: 0.3,
    } as Anthropic.MessageCreateParamsNonStreaming);
    const onOpenAi = await claude.messages.create({ model: 'gpt-4o-mini', max_tokens: 5, messages: [{ role: 'user', content: 'Count to fifty' }], simulate: { output_tokens: 40 } } as Anthropic.MessageCreateParamsNonStreaming);
    expect(onOpenAi).toMatchObject({ model: 'gpt-4o-mini', stop_reason: 'max_tokens', usage: { output_tokens: 5 } });

    const gens = await expectChargedExactly(org, 3);
    const byId = new Map(gens.map((g) => [g.id, g]));
    for (const m of [plain, withSystem, onOpenAi]) {
      const g = byId.get(m.id)!;
      expect(g.message.content).toBe((m.content[0] as Anthropic.TextBlock).text);
      expect(g.usage).toEqual({ input_tokens: m.usage.input_tokens, output_tokens: m.usage.output_tokens });
    }
    // The system blocks joined, first; the user's text blocks joined; the stored prompt is the last user turn.
    expect(byId.get(withSystem.id)!.params).toMatchObject({
      messages: [{ role: 'system', content: 'You are terse. Answer in English.' }, { role: 'user', content: 'Tell me about tides' }, { role: 'assistant', content: 'Gladly.' }, { role: 'user', content: 'Go on' }],
      stop: ['\n\n\n'],
      user: 'u-1',
      temperature: 0.3,
    });
    expect(byId.get(withSystem.id)!.prompt).toBe('Go on');
  });

  it('@anthropic-ai/sdk messages.stream: the documented event order, text events, a final message with usage', async () => {
    const org = await fresh();
    const stream = anthropic(org).messages.stream({ model: 'claude-haiku-4.5', max_tokens: 400, messages: [{ role: 'user', content: 'Tell me a story' }], simulate: { output_tokens: 50 } } as Anthropic.MessageStreamParams);
    const types: string[] = [];
    let text = '';
    stream.on('streamEvent', (e) => types.push(e.type));
    stream.on('text', (delta) => (text += delta));
    const final = await stream.finalMessage();
    expect(stream.request_id).toMatch(/^req_/);
    const deltas = types.filter((t) => t === 'content_block_delta').length;
    expect(deltas).toBeGreaterThan(3);
    expect(types).toEqual(['message_start', 'content_block_start', ...Array<string>(deltas).fill('content_block_delta'), 'content_block_stop', 'message_delta', 'message_stop']);
    expect(final.id).toMatch(/^gen_/);
    expect((final.content[0] as Anthropic.TextBlock).text).toBe(text);
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage.output_tokens).toBe(50);
    expect(final.usage.input_tokens).toBeGreaterThan(0);
    const [g] = await expectChargedExactly(org, 1);
    expect(g.id).toBe(final.id);
    expect(g.message.content).toBe(text);
    expect(g.usage).toEqual({ input_tokens: final.usage.input_tokens, output_tokens: 50 });
  });

  it('the stream on the wire: named events, ping included, each data naming its own type; the final usage in message_delta', async () => {
    const org = await fresh();
    const res = await fetch(`${s.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': org.live, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 8, stream: true, messages: [{ role: 'user', content: 'Go' }], simulate: { output_tokens: 20 } }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await res.text()).trim().split('\n\n').map((raw) => {
      const [eventLine, dataLine] = raw.split('\n');
      const data = JSON.parse(dataLine!.replace(/^data: /, ''));
      expect(eventLine).toBe(`event: ${data.type}`);
      return data;
    });
    expect(events.slice(0, 3).map((e) => e.type)).toEqual(['message_start', 'content_block_start', 'ping']);
    expect(events.slice(-3).map((e) => e.type)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    const [g] = await expectChargedExactly(org, 1);
    expect(events[0].message).toMatchObject({ id: g.id, content: [], stop_reason: null, stop_sequence: null });
    expect(events.filter((e) => e.type === 'content_block_delta').map((e) => e.delta.text).join('')).toBe(g.message.content);
    expect(events.at(-2)).toEqual({ type: 'message_delta', delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage: { input_tokens: g.usage.input_tokens, output_tokens: 8 } });
  });

  it('@anthropic-ai/sdk: an Idempotency-Key repeat answers the same message, charged once; a streamed cache hit replays the reply free', async () => {
    const org = await fresh();
    const claude = anthropic(org);
    const params = { model: 'claude-haiku-4-5', max_tokens: 300, messages: [{ role: 'user' as const, content: 'Once only' }] };
    const first = await claude.messages.create(params, { headers: { 'Idempotency-Key': 'msg-once-1' } });
    const again = await claude.messages.create(params, { headers: { 'Idempotency-Key': 'msg-once-1' } });
    expect(again).toEqual(first);
    // A seed makes a request cacheable (contract §4); Claude models take none, so an OpenAI model, through the same path.
    const cached = { ...params, model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'cache my stream' }], seed: 7 } as Anthropic.MessageCreateParamsNonStreaming;
    const original = await claude.messages.create(cached);
    const stream = claude.messages.stream({ ...cached, simulate: { output_tokens: 200 } } as Anthropic.MessageStreamParams);
    const replay = await stream.finalMessage();
    expect(replay.id).not.toBe(original.id);
    expect((replay.content[0] as Anthropic.TextBlock).text).toBe((original.content[0] as Anthropic.TextBlock).text);
    const hit = (await api('GET', `/v1/generations/${replay.id}`, { key: org.live })).body;
    expect(hit).toMatchObject({ cache_hit: true, charged_credits: 0, reserved_credits: 0 });
    // The cache hit is a generation too (charged 0); the charged ones are the first message and the original.
    const list = (await api('GET', '/v1/generations?limit=100', { key: org.live })).body.data as Array<{ id: string }>;
    expect(list.map((g) => g.id).sort()).toEqual([first.id, original.id, replay.id].sort());
    const charged = await Promise.all([first.id, original.id].map(async (id) => (await api('GET', `/v1/generations/${id}`, { key: org.live })).body.charged_credits as number));
    expect(charged.every((c) => c > 0)).toBe(true);
    expect((await api('GET', '/v1/wallet', { key: org.live })).body.balance_credits).toBe(CREDITS - charged[0]! - charged[1]!);
  });

  it('@anthropic-ai/sdk with the key as x-api-key (set by hand; this SDK sends apiKey as a Bearer token) and as authToken', async () => {
    const org = await fresh();
    const byHeader = new Anthropic({ baseURL: s.url, apiKey: null, authToken: null, defaultHeaders: { 'x-api-key': org.live }, maxRetries: 0 });
    const a = await byHeader.messages.create({ model: 'claude-haiku-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    const byToken = new Anthropic({ baseURL: s.url, apiKey: null, authToken: org.live, maxRetries: 0 });
    const b = await byToken.messages.create({ model: 'claude-haiku-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hello' }] });
    const gens = await expectChargedExactly(org, 2);
    expect(gens.map((g) => g.id).sort()).toEqual([a.id, b.id].sort());
    // The same request with the two headers naming different keys is refused, not answered with either.
    const other = await fresh();
    const both = anthropic(org, { defaultHeaders: { 'x-api-key': other.live } });
    const err = await both.messages.create({ model: 'claude-haiku-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((err as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({ error: { code: 'invalid_authorization' } });
  });

  it("@anthropic-ai/sdk errors: mmgen's envelope under the SDK's classes (400, 401, 402, 429 with Retry-After), and a failure mid-stream", async () => {
    const org = await fresh();
    const claude = anthropic(org);
    const msg = { model: 'claude-haiku-4-5', max_tokens: 50 } as const;

    const image = await claude.messages
      .create({ ...msg, messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }] }] })
      .catch((e: unknown) => e);
    expect(image).toBeInstanceOf(Anthropic.BadRequestError);
    expect((image as APIError).error).toMatchObject({ error: { type: 'invalid_request_error', code: 'parameter_invalid', param: 'messages[0].content[1]' } });
    expect((image as APIError).message).toContain("'image' content block");
    const tools = await claude.messages
      .create({ ...msg, messages: [{ role: 'user', content: 'x' }], tools: [{ name: 'f', input_schema: { type: 'object' } }] })
      .catch((e: unknown) => e);
    expect(tools).toBeInstanceOf(Anthropic.BadRequestError);
    expect((tools as APIError).error).toMatchObject({ error: { code: 'parameter_invalid', param: 'tools' } });
    const noMax = await claude.messages.create({ model: msg.model, messages: [{ role: 'user', content: 'x' }] } as unknown as Anthropic.MessageCreateParamsNonStreaming).catch((e: unknown) => e);
    expect((noMax as APIError).error).toMatchObject({ error: { code: 'parameter_missing', param: 'max_tokens' } });

    const bad = anthropic(org, { apiKey: 'sk_live_nope00000000000000000000000000' });
    const unauth = await bad.messages.create({ ...msg, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(unauth).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((unauth as APIError).status).toBe(401);

    const broke = await s.createOrg({ credits: 0 });
    const poor = await anthropic(broke).messages.create({ ...msg, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(poor).toBeInstanceOf(Anthropic.APIError);
    expect((poor as APIError).status).toBe(402);
    expect((poor as APIError).error).toMatchObject({ error: { type: 'billing_error', code: 'insufficient_credits' } });

    const free = await s.createOrg({ plan: 'free', credits: CREDITS });
    const limited = anthropic(free);
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push(await limited.messages.create({ ...msg, messages: [{ role: 'user', content: `n${i}` }] }).catch((e: unknown) => e));
    const over = outcomes[2] as InstanceType<typeof Anthropic.RateLimitError>;
    expect(over).toBeInstanceOf(Anthropic.RateLimitError);
    expect(Number(over.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(over.error).toMatchObject({ error: { code: 'rate_limit_exceeded' } });

    // The organization's moderation policy screens the user's text blocks (contract §11), before anything is reserved.
    expect((await api('PATCH', '/v1/organization/moderation', { key: org.live, body: { prompt_blocklist: ['forbidden word'] } })).status).toBe(200);
    const screened = await claude.messages.create({ ...msg, messages: [{ role: 'user', content: [{ type: 'text', text: 'say the Forbidden ' }, { type: 'text', text: 'Word' }] }] }).catch((e: unknown) => e);
    expect(screened).toBeInstanceOf(Anthropic.BadRequestError);
    expect((screened as APIError).error).toMatchObject({ error: { code: 'content_policy_violation', param: 'messages' } });
    expect((await api('PATCH', '/v1/organization/moderation', { key: org.live, body: { prompt_blocklist: [] } })).status).toBe(200);

    // Refused before anything was reserved: the organization's wallet never moved.
    expect((await api('GET', '/v1/wallet', { key: org.live })).body.balance_credits).toBe(CREDITS);

    // A provider failure after the stream's head: an `error` event the SDK raises; the generation is refunded.
    const stream = claude.messages.stream({ ...msg, messages: [{ role: 'user', content: 'fail' }], simulate: { outcome: 'failure' } } as Anthropic.MessageStreamParams);
    const failed = await stream.finalMessage().catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(Anthropic.APIError);
    expect((failed as APIError).error).toMatchObject({ type: 'error', error: { type: 'upstream_error', code: 'upstream_error' } });
    const [g] = await listGenerations(api, org.live);
    expect(g).toMatchObject({ status: 'failed', charged_credits: 0 });
    expect((await api('GET', '/v1/wallet', { key: org.live })).body).toMatchObject({ balance_credits: CREDITS, held_credits: 0 });
  });

  it('openai chat.completions: plain, and streamed with include_usage (the last chunk has the generation usage)', async () => {
    const org = await fresh();
    const oa = openai(org);
    const plain = await oa.chat.completions.create({ model: 'claude-haiku-4-5', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }], max_tokens: 100 });
    expect(plain.choices[0]!.message.content!.length).toBeGreaterThan(0);
    const stream = await oa.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Tell me a story' }],
      max_tokens: 300,
      stream: true,
      stream_options: { include_usage: true },
      simulate: { output_tokens: 30 },
    } as OpenAI.ChatCompletionCreateParamsStreaming);
    let text = '';
    let last: OpenAI.ChatCompletionChunk | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      last = chunk;
    }
    expect(last!.choices).toEqual([]);
    const gens = await expectChargedExactly(org, 2);
    const streamed = gens.find((g) => g.id === last!.id)!;
    expect(streamed.message.content).toBe(text);
    // With OpenRouter's usage.cost: what the completion was charged, in US dollars.
    expect(last!.usage).toEqual({ prompt_tokens: streamed.usage.input_tokens, completion_tokens: 30, total_tokens: streamed.usage.input_tokens + 30, cost: streamed.charged_credits / 1000 });
    const first = gens.find((g) => g.id === plain.id)!;
    expect(plain.usage).toMatchObject({ prompt_tokens: first.usage.input_tokens, completion_tokens: first.usage.output_tokens });

    const broke = await s.createOrg({ credits: 0 });
    const poor = await openai(broke).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(poor).toBeInstanceOf(OpenAI.APIError);
    expect(poor).toMatchObject({ status: 402, code: 'insufficient_credits' });
    const free = await s.createOrg({ plan: 'free', credits: CREDITS });
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push(await openai(free).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `n${i}` }] }).catch((e: unknown) => e));
    expect(outcomes[2]).toBeInstanceOf(OpenAI.RateLimitError);
    expect(Number((outcomes[2] as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  const aiSdkModels: Array<[string, (org: TestOrg, slug: string) => LanguageModel]> = [
    // .chat(): chat completions (the provider's default openai(slug), the Responses API, is in compat-responses.test.ts).
    ['@ai-sdk/openai', (org, slug) => createOpenAI({ baseURL: `${s.url}/v1`, apiKey: org.live }).chat(slug)],
    ['@ai-sdk/openai-compatible', (org, slug) => createOpenAICompatible({ name: 'mmgen', baseURL: `${s.url}/v1`, apiKey: org.live, includeUsage: true }).chatModel(slug)],
  ];
  for (const [name, modelFor] of aiSdkModels) {
    it(`ai with ${name}: generateText and streamText, text and usage`, async () => {
      const org = await fresh();
      const generated = await generateText({ model: modelFor(org, 'claude-haiku-4.5'), system: 'Be brief.', prompt: 'Describe the sea', maxOutputTokens: 200 });
      expect(generated.text.length).toBeGreaterThan(20);
      expect(generated.usage.outputTokens).toBeGreaterThan(0);
      const streamed = streamText({ model: modelFor(org, 'gpt-4o-mini'), prompt: 'Describe a mountain', maxOutputTokens: 200 });
      let text = '';
      for await (const piece of streamed.textStream) text += piece;
      const usage = await streamed.usage;
      expect(text.length).toBeGreaterThan(20);
      const gens = await expectChargedExactly(org, 2);
      const byText = new Map(gens.map((g) => [g.message.content, g]));
      const g1 = byText.get(generated.text)!;
      const g2 = byText.get(text)!;
      expect(g1.id).toBe(generated.response.id);
      expect(generated.usage).toMatchObject({ inputTokens: g1.usage.input_tokens, outputTokens: g1.usage.output_tokens });
      expect(usage).toMatchObject({ inputTokens: g2.usage.input_tokens, outputTokens: g2.usage.output_tokens });
      expect(g1.params.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    });
  }

  it('@langchain/openai ChatOpenAI: invoke and stream, content and usage_metadata', async () => {
    const org = await fresh();
    const chat = new ChatOpenAI({ model: 'claude-haiku-4-5', apiKey: org.live, configuration: { baseURL: `${s.url}/v1` }, maxRetries: 0, maxTokens: 200 });
    const answer = await chat.invoke([['system', 'Be brief.'], ['human', 'Describe a forest']]);
    expect(typeof answer.content === 'string' && answer.content.length > 20).toBe(true);
    let final: AIMessageChunk | undefined;
    for await (const chunk of await chat.stream('Describe a river')) final = final ? final.concat(chunk) : chunk;
    expect(typeof final!.content === 'string' && final!.content.length > 20).toBe(true);
    const gens = await expectChargedExactly(org, 2);
    const byText = new Map(gens.map((g) => [g.message.content, g]));
    const g1 = byText.get(answer.content as string)!;
    const g2 = byText.get(final!.content as string)!;
    expect(answer.usage_metadata).toMatchObject({ input_tokens: g1.usage.input_tokens, output_tokens: g1.usage.output_tokens });
    expect(final!.usage_metadata).toMatchObject({ input_tokens: g2.usage.input_tokens, output_tokens: g2.usage.output_tokens });
  });
});
