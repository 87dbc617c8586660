import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectChatsChargedExactly, generationsOf as listGenerations } from '../helpers/generations.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * POST /v1/responses (OpenAI's Responses API, contract §12) through the clients that call it: the Vercel AI SDK's
 * default `openai(slug)` and the `openai` SDK's `responses`. Live keys on simulated providers, so every call is
 * charged: each test runs in an organization of its own and checks that its wallet moved by exactly the sum of its
 * generations' charged_credits.
 */
const CREDITS = 1_000_000;
type APIError = InstanceType<typeof OpenAI.APIError>;

describeOnBackend('POST /v1/responses', 'pglite', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_RATE_LIMIT_FREE: '2' });
    api = client(s.url);
  });
  afterAll(async () => s?.close());

  const fresh = () => s.createOrg({ credits: CREDITS });
  const openai = (org: TestOrg) => new OpenAI({ apiKey: org.live, baseURL: `${s.url}/v1`, maxRetries: 0 });
  const aiSdk = (org: TestOrg) => createOpenAI({ baseURL: `${s.url}/v1`, apiKey: org.live });

  /** The wallet moved by exactly what the organization's generations were charged; returns them by id. */
  const expectChargedExactly = async (org: TestOrg, count: number): Promise<Map<string, any>> =>
    new Map((await expectChatsChargedExactly(api, org.live, CREDITS, count)).map((g) => [g.id, g]));

  it("ai with @ai-sdk/openai's default model (the Responses API): generateText with and without system, on an Anthropic model too", async () => {
    const org = await fresh();
    const mmgen = aiSdk(org);
    const plain = await generateText({ model: mmgen('gpt-4o-mini'), prompt: 'Describe the sea', maxOutputTokens: 200 });
    const withSystem = await generateText({ model: mmgen('gpt-4o-mini'), system: 'Be brief.', prompt: 'Describe a hill', maxOutputTokens: 200 });
    const claude = await generateText({ model: mmgen.responses('claude-haiku-4.5'), system: 'Be kind.', prompt: 'Describe a cat' });
    const gens = await expectChargedExactly(org, 3);
    for (const r of [plain, withSystem, claude]) {
      expect(r.text.length).toBeGreaterThan(20);
      expect(r.finishReason).toBe('stop');
      const g = gens.get(r.response.id)!;
      expect(g.message.content).toBe(r.text);
      expect(r.usage).toMatchObject({ inputTokens: g.usage.input_tokens, outputTokens: g.usage.output_tokens });
      expect(r.usage.inputTokens).toBeGreaterThan(0);
      expect(r.usage.outputTokens).toBeGreaterThan(0);
    }
    expect(gens.get(plain.response.id)!.params.messages).toEqual([{ role: 'user', content: 'Describe the sea' }]);
    expect(gens.get(withSystem.response.id)!.params.messages).toEqual([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Describe a hill' }]);
    expect(gens.get(claude.response.id)!).toMatchObject({ model: 'claude-haiku-4.5', params: { max_tokens: 1024 } });
  });

  it("ai multi-turn: the SDK sends its earlier reply back as an item_reference, which mmgen reads from that generation", async () => {
    const org = await fresh();
    const model = aiSdk(org)('gpt-4o-mini');
    const first = await generateText({ model, prompt: 'Name a colour' });
    const messages = [{ role: 'user' as const, content: 'Name a colour' }, ...first.response.messages, { role: 'user' as const, content: 'Why that one?' }];
    const second = await generateText({ model, messages });
    expect(second.request.body).toMatchObject({ input: [{ role: 'user' }, { type: 'item_reference', id: `msg_${first.response.id}` }, { role: 'user' }] });
    const gens = await expectChargedExactly(org, 2);
    expect(gens.get(second.response.id)!.params.messages).toEqual([
      { role: 'user', content: 'Name a colour' },
      { role: 'assistant', content: first.text },
      { role: 'user', content: 'Why that one?' },
    ]);
    // Another organization's reply, or an id mmgen never made, is no item of the caller's.
    const other = await fresh();
    for (const id of [`msg_${first.response.id}`, 'msg_abc123']) {
      const err = (await openai(other).responses.create({ model: 'gpt-4o-mini', input: [{ type: 'item_reference', id }, { role: 'user', content: 'x' }] }).catch((e: unknown) => e)) as APIError;
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect(err).toMatchObject({ code: 'parameter_invalid', param: 'input[0].id' });
    }
  });

  it('openai responses.create: output_text and usage; instructions first; a max_output_tokens cut is incomplete', async () => {
    const org = await fresh();
    const oa = openai(org);
    const r = await oa.responses.create({ model: 'claude-haiku-4-5', input: 'Tell me about tides', instructions: 'You are terse.', max_output_tokens: 300, metadata: { run: 'a' }, store: false });
    expect(r.id).toMatch(/^gen_/);
    expect(r).toMatchObject({ object: 'response', status: 'completed', model: 'claude-haiku-4.5', error: null, incomplete_details: null, instructions: 'You are terse.', max_output_tokens: 300, metadata: { run: 'a' }, tools: [], parallel_tool_calls: false });
    expect(r.output_text.length).toBeGreaterThan(20);
    expect(r.output).toEqual([{ type: 'message', id: expect.any(String), status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: r.output_text, annotations: [], logprobs: [] }] }]);
    const items = await oa.responses.create({
      model: 'gpt-4o-mini',
      input: [
        { role: 'developer', content: 'Answer in English.' },
        { role: 'user', content: [{ type: 'input_text', text: 'Count ' }, { type: 'input_text', text: 'to fifty' }] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'One, two', annotations: [] }] } as unknown as OpenAI.Responses.ResponseInputItem,
        { role: 'user', content: 'Go on' },
      ],
      max_output_tokens: 5,
      simulate: { output_tokens: 40 },
    } as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    expect(items).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage: { output_tokens: 5 } });
    const gens = await expectChargedExactly(org, 2);
    const g = gens.get(r.id)!;
    expect(g.message.content).toBe(r.output_text);
    expect(r.usage).toEqual({
      input_tokens: g.usage.input_tokens,
      output_tokens: g.usage.output_tokens,
      total_tokens: g.usage.input_tokens + g.usage.output_tokens,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    });
    expect(g.params.messages).toEqual([{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Tell me about tides' }]);
    expect(gens.get(items.id)!.params.messages).toEqual([
      { role: 'system', content: 'Answer in English.' },
      { role: 'user', content: 'Count to fifty' },
      { role: 'assistant', content: 'One, two' },
      { role: 'user', content: 'Go on' },
    ]);
    expect(gens.get(items.id)!.prompt).toBe('Go on');
  });

  it('ai streamText on the default model: the text and usage of the generation', async () => {
    const org = await fresh();
    const streamed = streamText({ model: aiSdk(org)('claude-haiku-4.5'), system: 'Be brief.', prompt: 'Describe a mountain', maxOutputTokens: 200 });
    let text = '';
    for await (const piece of streamed.textStream) text += piece;
    const usage = await streamed.usage;
    expect(text.length).toBeGreaterThan(20);
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeGreaterThan(0);
    expect(await streamed.finishReason).toBe('stop');
    const [g] = [...(await expectChargedExactly(org, 1)).values()];
    expect((await streamed.response).id).toBe(g.id);
    expect(g.message.content).toBe(text);
    expect(usage).toMatchObject({ inputTokens: g.usage.input_tokens, outputTokens: g.usage.output_tokens });
    expect(g.params.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
  });

  it('openai responses.stream and create({stream: true}): the documented event order, a final response with the usage of the generation', async () => {
    const org = await fresh();
    const oa = openai(org);
    const stream = oa.responses.stream({ model: 'gpt-4o-mini', input: 'Tell me a story', instructions: 'Be vivid.', max_output_tokens: 400, simulate: { output_tokens: 50 } } as Parameters<OpenAI['responses']['stream']>[0]);
    const types: string[] = [];
    const sequence: number[] = [];
    let text = '';
    stream.on('event', (e) => {
      types.push(e.type);
      sequence.push(e.sequence_number);
    });
    stream.on('response.output_text.delta', (e) => (text += e.delta));
    const final = await stream.finalResponse();
    const deltas = types.filter((t) => t === 'response.output_text.delta').length;
    expect(deltas).toBeGreaterThan(3);
    expect(types).toEqual([
      'response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added',
      ...Array<string>(deltas).fill('response.output_text.delta'),
      'response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed',
    ]);
    expect(sequence).toEqual(types.map((_, i) => i));
    expect(final).toMatchObject({ status: 'completed', output_text: text, instructions: 'Be vivid.', usage: { output_tokens: 50 } });

    const raw = await oa.responses.create({ model: 'claude-haiku-4-5', input: 'Count to fifty', max_output_tokens: 6, stream: true, simulate: { output_tokens: 30 } } as OpenAI.Responses.ResponseCreateParamsStreaming);
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const e of raw) events.push(e);
    const cut = events.at(-1)!;
    expect(cut.type).toBe('response.incomplete');
    const incomplete = (cut as OpenAI.Responses.ResponseIncompleteEvent).response;
    expect(incomplete).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage: { output_tokens: 6 } });

    const gens = await expectChargedExactly(org, 2);
    const g = gens.get(final.id)!;
    expect(g.message.content).toBe(text);
    expect(final.usage).toEqual({
      input_tokens: g.usage.input_tokens,
      output_tokens: 50,
      total_tokens: g.usage.input_tokens + 50,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    });
    const g2 = gens.get(incomplete.id)!;
    expect(incomplete.usage).toMatchObject({ input_tokens: g2.usage.input_tokens, output_tokens: g2.usage.output_tokens });
    expect(events.filter((e) => e.type === 'response.output_text.delta').map((e) => (e as OpenAI.Responses.ResponseTextDeltaEvent).delta).join('')).toBe(g2.message.content);
  });

  it('the stream on the wire: each event named by its type, item ids agreeing, no [DONE]', async () => {
    const org = await fresh();
    const res = await fetch(`${s.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.live}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', input: 'Go', stream: true, simulate: { output_tokens: 12 } }),
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await res.text()).trim().split('\n\n').map((raw) => {
      const [eventLine, dataLine] = raw.split('\n');
      const data = JSON.parse(dataLine!.replace(/^data: /, ''));
      expect(eventLine).toBe(`event: ${data.type}`);
      return data;
    });
    const [g] = [...(await expectChargedExactly(org, 1)).values()];
    expect(events[0].response).toMatchObject({ id: g.id, status: 'in_progress', output: [] });
    // No usage until the response is done: OpenAI's schema has none that is null.
    expect(events[0].response).not.toHaveProperty('usage');
    const item = events.find((e) => e.type === 'response.output_item.added').item;
    expect(item).toMatchObject({ type: 'message', status: 'in_progress', role: 'assistant', content: [] });
    for (const e of events.filter((e) => e.type.startsWith('response.output_text') || e.type.startsWith('response.content_part'))) {
      expect(e).toMatchObject({ item_id: item.id, output_index: 0, content_index: 0 });
    }
    expect(events.at(-1).response.output).toEqual([{ type: 'message', id: item.id, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: g.message.content, annotations: [], logprobs: [] }] }]);
    expect(events.at(-1).response.usage).toMatchObject({ input_tokens: g.usage.input_tokens, output_tokens: 12 });
  });

  it('402 and 429 under the SDK classes; a failure mid-stream is an error event the SDKs raise, refunded', async () => {
    const broke = await s.createOrg({ credits: 0 });
    const poor = await openai(broke).responses.create({ model: 'gpt-4o-mini', input: 'x' }).catch((e: unknown) => e);
    expect(poor).toBeInstanceOf(OpenAI.APIError);
    expect(poor).toMatchObject({ status: 402, code: 'insufficient_credits' });
    const free = await s.createOrg({ plan: 'free', credits: CREDITS });
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push(await openai(free).responses.create({ model: 'gpt-4o-mini', input: `n${i}` }).catch((e: unknown) => e));
    expect(outcomes[2]).toBeInstanceOf(OpenAI.RateLimitError);
    expect(Number((outcomes[2] as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const aiPoor = await generateText({ model: aiSdk(broke)('gpt-4o-mini'), prompt: 'x', maxRetries: 0 }).catch((e: unknown) => e);
    expect(aiPoor).toMatchObject({ statusCode: 402 });

    const org = await fresh();
    const stream = openai(org).responses.stream({ model: 'gpt-4o-mini', input: 'fail', simulate: { outcome: 'failure' } } as Parameters<OpenAI['responses']['stream']>[0]);
    const failed = await stream.finalResponse().catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(OpenAI.APIError);
    expect((failed as APIError).error).toMatchObject({ type: 'upstream_error', code: 'upstream_error' });
    const gens = await listGenerations(api, org.live);
    expect(gens).toHaveLength(1);
    expect(gens[0]).toMatchObject({ status: 'failed', charged_credits: 0 });
    expect((await api('GET', '/v1/wallet', { key: org.live })).body).toMatchObject({ balance_credits: CREDITS, held_credits: 0 });
  });

  it('400s name the field: tools, previous_response_id, an input_image part, a json format; nothing is reserved', async () => {
    const org = await fresh();
    const oa = openai(org);
    const refused = async (body: Record<string, unknown>) => {
      const err = (await oa.responses.create({ model: 'gpt-4o-mini', input: 'x', ...body } as OpenAI.Responses.ResponseCreateParamsNonStreaming).catch((e: unknown) => e)) as APIError;
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      return err;
    };
    expect(await refused({ tools: [{ type: 'function', name: 'f', parameters: { type: 'object' } }] })).toMatchObject({ code: 'parameter_invalid', param: 'tools' });
    expect(await refused({ previous_response_id: 'resp_1' })).toMatchObject({ code: 'parameter_invalid', param: 'previous_response_id' });
    const image = await refused({ input: [{ role: 'user', content: [{ type: 'input_text', text: 'What is this?' }, { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'auto' }] }] });
    expect(image).toMatchObject({ code: 'parameter_invalid', param: 'input[0].content[1]' });
    expect(image.message).toContain("'input_image'");
    expect(await refused({ input: [{ type: 'function_call_output', call_id: 'c', output: '1' }] })).toMatchObject({ param: 'input[0]' });
    expect(await refused({ text: { format: { type: 'json_object' } } })).toMatchObject({ param: 'text.format' });
    expect(await refused({ reasoning: { effort: 'high' } })).toMatchObject({ param: 'reasoning.effort' });
    expect(await refused({ tool_choice: 'required' })).toMatchObject({ param: 'tool_choice' });
    expect(await refused({ frequency_penalty: 1 })).toMatchObject({ code: 'parameter_unknown' });
    // Neutral values of those fields are taken.
    const ok = await oa.responses.create({ model: 'gpt-4o-mini', input: 'y', tools: [], tool_choice: 'auto', previous_response_id: null, reasoning: {}, text: { format: { type: 'text' } }, parallel_tool_calls: true, truncation: 'disabled', include: ['reasoning.encrypted_content'], store: true, service_tier: 'auto' });
    expect(ok.status).toBe('completed');
    await expectChargedExactly(org, 1);
  });
});
