import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * Every answer of the compatible paths says what it cost (issue 28 item 4; docs/contract-addenda.md, "The cost of a
 * compatible answer"): the X-Mmgen-Cost-Credits header, read here through the official SDKs' raw responses, equals
 * the generation's charged_credits as GET /v1/generations/{id} reports it once settled, and is never 0 for a live
 * key; a chat completion also carries it as OpenRouter's usage.cost (US dollars), plain and in a stream's usage chunk,
 * and the official SDK still parses it.
 */
describeOnBackend('the cost of a compatible answer', 'pglite', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;
  let openai: OpenAI;

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1' });
    api = client(s.url);
    org = await s.createOrg({ credits: 1_000_000 });
    openai = new OpenAI({ apiKey: org.live, baseURL: `${s.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => s?.close());

  /** The generation's charge as the API reports it, once settled. */
  const charged = async (id: string) => {
    for (let i = 0; ; i++) {
      const g = await api('GET', `/v1/generations/${id}`, { key: org.live });
      if (g.body.status === 'succeeded' || i > 100) return g.body.charged_credits as number;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const costOf = (headers: Headers) => {
    const v = headers.get('x-mmgen-cost-credits');
    expect(v, 'the cost header').toMatch(/^\d+$/);
    return Number(v);
  };

  it('chat completions: the header and usage.cost (USD) are the charge, through the openai SDK', async () => {
    const { data, response } = await openai.chat.completions
      .create({ model: 'gpt-4o-mini', max_tokens: 300, messages: [{ role: 'user', content: 'Tell me about tides' }] })
      .withResponse();
    const cost = costOf(response.headers);
    expect(cost).toBeGreaterThan(0);
    expect(cost).toBe(await charged(data.id));
    expect((data.usage as unknown as { cost: number }).cost).toBeCloseTo(cost / 1000, 9);
  });

  it('a streamed completion carries the cost in its usage chunk', async () => {
    const stream = await openai.chat.completions.create({
      model: 'gpt-4o-mini', max_tokens: 200, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Hello' }],
    });
    let id = '';
    let cost: number | undefined;
    for await (const chunk of stream) {
      id = chunk.id;
      if (chunk.usage) cost = (chunk.usage as unknown as { cost: number }).cost;
    }
    expect(cost).toBeGreaterThan(0);
    expect(cost).toBeCloseTo((await charged(id)) / 1000, 9);
  });

  it('messages (the anthropic SDK) and responses: the header is the charge', async () => {
    const claude = new Anthropic({ baseURL: s.url, apiKey: org.live, maxRetries: 0 });
    const m = await claude.messages.create({ model: 'claude-haiku-4-5', max_tokens: 200, messages: [{ role: 'user', content: 'Hello there' }] }).withResponse();
    expect(costOf(m.response.headers)).toBeGreaterThan(0);
    expect(costOf(m.response.headers)).toBe(await charged(m.data.id));
    const r = await openai.responses.create({ model: 'gpt-4o-mini', input: 'Hello there', max_output_tokens: 200 }).withResponse();
    expect(costOf(r.response.headers)).toBeGreaterThan(0);
    expect(costOf(r.response.headers)).toBe(await charged(r.data.id));
  });

  it('images and speech: the header is the charge (a size tier included)', async () => {
    const img = await openai.images.generate({ model: 'gpt-image-1-mini', prompt: 'a wide harbour', size: '1536x1024' }).withResponse();
    const imageId = img.response.headers.get('x-mmgen-generation-id')!;
    const quote = await api('POST', '/v1/quotes', { key: org.live, body: { model: 'gpt-image-1-mini', prompt: 'a wide harbour', width: 1536, height: 1024 } });
    expect(costOf(img.response.headers)).toBe(await charged(imageId));
    // The tier's price, not the base price: the same number the quote gives.
    expect(costOf(img.response.headers)).toBe(quote.body.credits);
    const speech = await openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello there, this is the cost of speech.' });
    expect(costOf(speech.headers)).toBeGreaterThan(0);
    expect(costOf(speech.headers)).toBe(await charged(speech.headers.get('x-mmgen-generation-id')!));
  });

  it('a test key: the header says 0', async () => {
    const test = new OpenAI({ apiKey: org.test, baseURL: `${s.url}/v1`, maxRetries: 0 });
    const { response } = await test.chat.completions.create({ model: 'gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
    expect(costOf(response.headers)).toBe(0);
  });
});
