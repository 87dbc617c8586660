import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { DEFAULT_RETRY_POLICY } from '../../src/domain/webhooks/retry-policy.js';

describe('configuration errors name the variable', () => {
  it('MMGEN_TRUSTED_PROXIES: a bare word or a bad range is a ConfigError, not a library error', () => {
    for (const value of ['garbage', '10.0.0.1, proxy.internal', '10.0.0.0/33', '::1/129']) {
      expect(() => loadConfig({ MMGEN_TRUSTED_PROXIES: value }), value).toThrow(ConfigError);
      expect(() => loadConfig({ MMGEN_TRUSTED_PROXIES: value }), value).toThrow(/MMGEN_TRUSTED_PROXIES/);
    }
    expect(loadConfig({ MMGEN_TRUSTED_PROXIES: '127.0.0.1, ::1, 10.0.0.0/8' }).trustedProxies).toEqual(['127.0.0.1/32', '::1/128', '10.0.0.0/8']);
  });

  it('MMGEN_REQUEST_TIMEOUT_MS: five minutes by default, bounded', () => {
    expect(loadConfig({}).requestTimeoutMs).toBe(300_000);
    expect(() => loadConfig({ MMGEN_REQUEST_TIMEOUT_MS: '10' })).toThrow(/MMGEN_REQUEST_TIMEOUT_MS/);
  });
});

describe('Stripe (MMGEN_STRIPE_*)', () => {
  const stripe = { MMGEN_STRIPE_SECRET_KEY: 'sk_test_abc', MMGEN_STRIPE_WEBHOOK_SECRET: 'whsec_abc' };
  it('an automatic payment left without an answer is read back after 15 minutes by default, never sooner than 5', () => {
    expect(loadConfig(stripe).stripe?.autoTopupSettleAfterMs).toBe(900_000);
    expect(loadConfig({ ...stripe, MMGEN_STRIPE_AUTO_TOPUP_SETTLE_AFTER_S: '300' }).stripe?.autoTopupSettleAfterMs).toBe(300_000);
    // Sooner, a call still on its way to Stripe (3 tries of 20 s) could be taken for lost and a second payment started.
    expect(() => loadConfig({ ...stripe, MMGEN_STRIPE_AUTO_TOPUP_SETTLE_AFTER_S: '60' })).toThrow(/MMGEN_STRIPE_AUTO_TOPUP_SETTLE_AFTER_S/);
  });
});

describe('hosted moderation (MMGEN_MODERATION_OPENAI_*)', () => {
  it('is off unless its key is set; the base URL and model default to OpenAI and omni-moderation-latest', () => {
    expect(loadConfig({}).moderation.hosted).toBeUndefined();
    expect(loadConfig({ OPENAI_API_KEY: 'sk-gen' }).moderation.hosted).toBeUndefined(); // the provider's key does not turn it on
    expect(loadConfig({ MMGEN_MODERATION_OPENAI_KEY: 'sk-mod' }).moderation.hosted).toEqual({
      provider: 'openai', apiKey: 'sk-mod', baseUrl: 'https://api.openai.com/v1', model: 'omni-moderation-latest',
    });
    const custom = loadConfig({ MMGEN_MODERATION_OPENAI_KEY: 'sk-mod', MMGEN_MODERATION_OPENAI_BASE_URL: 'http://127.0.0.1:9/v1/', MMGEN_MODERATION_OPENAI_MODEL: 'omni-moderation-2024-09-26' });
    expect(custom.moderation.hosted).toMatchObject({ baseUrl: 'http://127.0.0.1:9/v1', model: 'omni-moderation-2024-09-26' });
  });

  it('a bad URL or model, or settings without the key, name the variable', () => {
    const key = { MMGEN_MODERATION_OPENAI_KEY: 'sk-mod' };
    expect(() => loadConfig({ ...key, MMGEN_MODERATION_OPENAI_BASE_URL: 'ftp://x' })).toThrow(/MMGEN_MODERATION_OPENAI_BASE_URL/);
    expect(() => loadConfig({ ...key, MMGEN_MODERATION_OPENAI_BASE_URL: 'not a url' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...key, MMGEN_MODERATION_OPENAI_MODEL: 'omni moderation' })).toThrow(/MMGEN_MODERATION_OPENAI_MODEL/);
    expect(() => loadConfig({ ...key, MMGEN_MODERATION_OPENAI_MODEL: 'text-moderation-latest' })).toThrow(/takes text only/);
    expect(() => loadConfig({ MMGEN_MODERATION_OPENAI_MODEL: 'omni-moderation-latest' })).toThrow(/MMGEN_MODERATION_OPENAI_KEY is not/);
    expect(() => loadConfig({ MMGEN_MODERATION_OPENAI_BASE_URL: 'https://example.test/v1' })).toThrow(/MMGEN_MODERATION_OPENAI_BASE_URL is set/);
  });
});

describe("the local classifier's pool (MMGEN_MODERATION_THREADS, MMGEN_MODERATION_BACKLOG)", () => {
  it('a thread per core and 32 waiting images per thread by default; set, taken as given', () => {
    const d = loadConfig({}).moderation;
    expect(d.threads).toBe(availableParallelism());
    expect(d.backlog).toBe(32 * availableParallelism());
    expect(loadConfig({ MMGEN_MODERATION_THREADS: '3' }).moderation).toMatchObject({ threads: 3, backlog: 96 });
    expect(loadConfig({ MMGEN_MODERATION_THREADS: '3', MMGEN_MODERATION_BACKLOG: '10' }).moderation).toMatchObject({ threads: 3, backlog: 10 });
  });

  it('anything but a positive integer in range is a ConfigError that names the variable', () => {
    for (const v of ['0', '-1', '1.5', 'two', '257']) expect(() => loadConfig({ MMGEN_MODERATION_THREADS: v }), v).toThrow(/MMGEN_MODERATION_THREADS must be an integer from 1 to 256/);
    for (const v of ['0', 'many', '2.5']) expect(() => loadConfig({ MMGEN_MODERATION_BACKLOG: v }), v).toThrow(/MMGEN_MODERATION_BACKLOG must be an integer/);
  });
});

describe('MMGEN_WEBHOOK_RETRY_DELAYS', () => {
  it('unset is the default policy; set, it replaces the delays and keeps six attempts', () => {
    expect(loadConfig({}).webhookRetries).toBe(DEFAULT_RETRY_POLICY);
    expect(loadConfig({ MMGEN_WEBHOOK_RETRY_DELAYS: '1,1,1,1,1' }).webhookRetries).toEqual({ delaysS: [1, 1, 1, 1, 1], maxAttempts: 6 });
  });

  it('anything else is a ConfigError that names the variable', () => {
    for (const value of ['', '60,300', '1,2,3,4,5,6', '1,2,3,4,-1', 'a,b,c,d,e']) {
      expect(() => loadConfig({ MMGEN_WEBHOOK_RETRY_DELAYS: value }), value).toThrow(ConfigError);
      expect(() => loadConfig({ MMGEN_WEBHOOK_RETRY_DELAYS: value }), value).toThrow(/^MMGEN_WEBHOOK_RETRY_DELAYS must be 5 non-negative numbers/);
    }
  });
});
