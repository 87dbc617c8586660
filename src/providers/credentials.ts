import { ANTHROPIC_ENV } from './anthropic/config.js';
import { ELEVENLABS_ENV } from './elevenlabs/config.js';
import { FAL_ENV } from './fal/config.js';
import { OPENAI_ENV } from './openai/config.js';
import { REPLICATE_ENV } from './replicate/config.js';
import type { ProviderCredentials, ProviderEnv } from './types.js';

export type { ProviderCredentials, ProviderEnv } from './types.js';

/**
 * Where each upstream provider's credential and base URL come from (contract
 * §10). Each provider's folder declares its own variables; this module only
 * gathers them so that src/config.ts can read and validate every variable
 * once, at start, without naming a provider itself.
 */
export const PROVIDER_ENVS: readonly ProviderEnv[] = [OPENAI_ENV, ANTHROPIC_ENV, REPLICATE_ENV, FAL_ENV, ELEVENLABS_ENV];

/**
 * The configured providers: those whose credential is set. A base URL must be
 * http(s) and is kept without a trailing slash; an invalid one stops the
 * process with a message naming the variable.
 */
export function readProviderCredentials(env: Record<string, string | undefined>, fail: (message: string) => never): Record<string, ProviderCredentials> {
  const out: Record<string, ProviderCredentials> = {};
  for (const p of PROVIDER_ENVS) {
    const apiKey = env[p.keyVar]?.trim();
    const rawBase = env[p.baseUrlVar]?.trim() || p.defaultBaseUrl;
    let base: URL;
    try {
      base = new URL(rawBase);
    } catch {
      fail(`${p.baseUrlVar} is not a valid URL`);
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') fail(`${p.baseUrlVar} must use http or https`);
    if (apiKey) out[p.name] = { apiKey, baseUrl: rawBase.replace(/\/+$/, '') };
  }
  return out;
}
