import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

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
