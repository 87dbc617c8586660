import { afterAll, beforeAll, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { startFakes, type Fakes } from '../fakes/index.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * Long-context prices (docs/contract-addenda.md, "Prices and tiers"): Claude Haiku 5.5's output costs $2.50 per 1M
 * tokens instead of $0.50 when its prompt is over 100,000 tokens (OpenAI's GPT-6 models: 1.5× over 272,000). The
 * tier is published, quoted, reserved on the most tokens the prompt can be (its UTF-8 bytes), and charged on the
 * count the provider reports: the Anthropic fake counts a word as a token, so a long prompt of few words is reserved
 * at the long-context price and charged at the short one.
 */
const SHORT = new Decimal('0.0000005');
const LONG = new Decimal('0.0000025');
const credits = (perToken: Decimal, tokens: number) => perToken.mul(tokens).div('0.001').ceil().toNumber();

/** Messages carrying `words` words of `word` (each message within the chat content's 200,000-character cap). */
function prompt(word: string, words: number): Array<{ role: 'user'; content: string }> {
  const perMessage = Math.floor(200_000 / (word.length + 1));
  const out: Array<{ role: 'user'; content: string }> = [];
  for (let left = words; left > 0; left -= perMessage) out.push({ role: 'user', content: Array(Math.min(left, perMessage)).fill(word).join(' ') });
  return out;
}

describeOnBackend('long-context prices: published, quoted, reserved and charged', 'pglite', (backend) => {
  let fakes: Fakes;
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;

  beforeAll(async () => {
    fakes = await startFakes({ jobMs: 40 });
    s = await startTestServer(backend, { ...fakes.env, MMGEN_ALLOW_PRIVATE_NETWORK: '1' });
    api = client(s.url);
    org = await s.createOrg({ credits: 1_000_000 });
  });
  afterAll(async () => {
    await s?.close();
    await fakes?.close();
  });

  it('publishes the long-context tier of Claude Haiku 5.5 and each GPT-6 model', async () => {
    const list = (await api('GET', '/v1/models?modality=chat', { key: org.live })).body.data as Array<{ slug: string; pricing: { tiers: Array<Record<string, unknown>> } }>;
    const longTier = (slug: string) => list.find((m) => m.slug === slug)!.pricing.tiers.find((t) => t.input_tokens_over !== undefined);
    expect(longTier('claude-haiku-5.5')).toMatchObject({ input_tokens_over: 100_000, unit_cost_usd: 0.0000025, units: '1024', credits: credits(LONG, 1024) });
    for (const [slug, perToken] of [['gpt-6.2-astra', '0.00006'], ['gpt-6.2-sol', '0.000015'], ['gpt-6.1-sol', '0.000015'], ['gpt-6.1-terra', '0.0000075'], ['gpt-6-luna', '0.00000075']] as const) {
      expect(longTier(slug), slug).toMatchObject({ input_tokens_over: 272_000, unit_cost_usd: Number(perToken), credits: credits(new Decimal(perToken), 1024) });
    }
    // A model without one publishes none.
    expect(longTier('claude-sonnet-5.5')).toBeUndefined();
  });

  it('quotes and reserves a prompt that may be over 100,000 tokens at the long-context price, a short one at the short price', async () => {
    const short = { model: 'claude-haiku-5.5', messages: [{ role: 'user', content: 'hello there' }], max_tokens: 2000 };
    const long = { ...short, messages: prompt('w', 100_001) };
    expect((await api('POST', '/v1/quotes', { key: org.live, body: short })).body.credits).toBe(credits(SHORT, 2000));
    expect((await api('POST', '/v1/quotes', { key: org.live, body: long })).body.credits).toBe(credits(LONG, 2000));
  });

  it('charges the tier the provider counted: over 100,000 tokens at $2.50 per 1M output tokens, a long text of few tokens at $0.50', async () => {
    // 100,001 words: the fake counts 100,006 input tokens.
    const long = await api('POST', '/v1/chat', { key: org.live, body: { model: 'claude-haiku-5.5', messages: prompt('w', 100_001), max_tokens: 2000 } });
    expect(long.status, JSON.stringify(long.body).slice(0, 500)).toBe(200);
    expect(long.body.reserved_credits).toBe(credits(LONG, 2000));
    expect(long.body.usage.input_tokens).toBeGreaterThan(100_000);
    expect(long.body.charged_credits).toBe(credits(LONG, long.body.usage.output_tokens));
    expect(long.body.charged_credits).toBeGreaterThan(credits(SHORT, long.body.usage.output_tokens));
    // 150,000 bytes in two words, then 2,000 words the fake echoes (2,000 output tokens, so the two prices differ by
    // whole credits): reserved as if it could be 150,000 tokens, charged on the few thousand counted.
    const messages = [
      { role: 'user', content: `${'a'.repeat(75_000)} ${'b'.repeat(75_000)}` },
      { role: 'assistant', content: 'go on' },
      { role: 'user', content: Array(2000).fill('x').join(' ') },
    ];
    const few = await api('POST', '/v1/chat', { key: org.live, body: { model: 'claude-haiku-5.5', messages, max_tokens: 2000 } });
    expect(few.status, JSON.stringify(few.body).slice(0, 500)).toBe(200);
    expect(few.body.reserved_credits).toBe(credits(LONG, 2000));
    expect(few.body.usage).toMatchObject({ output_tokens: 2000 });
    expect(few.body.usage.input_tokens).toBeLessThan(100_000);
    expect(few.body.charged_credits).toBe(credits(SHORT, 2000));
    expect(few.body.charged_credits).toBeLessThan(credits(LONG, 2000));
  });
});
