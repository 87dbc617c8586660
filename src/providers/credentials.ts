import type { ProviderDeclaration } from './declaration.js';
import { PROVIDER_DECLARATIONS } from './index.js';
import type { ProviderCredentials } from './types.js';

/**
 * The configured providers (contract §10): those whose credential is set, read from the variables each
 * registered declaration names, so that src/config.ts reads and validates every variable once, at start,
 * without naming a provider itself. A base URL must be http(s) and is kept without a trailing slash; an invalid
 * one stops the process with a message naming the variable.
 */
export function readProviderCredentials(
  env: Record<string, string | undefined>,
  fail: (message: string) => never,
  providers: readonly ProviderDeclaration[] = PROVIDER_DECLARATIONS,
): Record<string, ProviderCredentials> {
  const out: Record<string, ProviderCredentials> = {};
  for (const { name, env: vars, schemaSource, modelList } of providers) {
    const apiKey = env[vars.keyVar]?.trim();
    const rawBase = env[vars.baseUrlVar]?.trim() || vars.defaultBaseUrl;
    let base: URL;
    try {
      base = new URL(rawBase);
    } catch {
      fail(`${vars.baseUrlVar} is not a valid URL`);
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') fail(`${vars.baseUrlVar} must use http or https`);
    if (!apiKey) continue;
    const read = (v: { name: string; default: string }) => (env[v.name]?.trim() || v.default).replace(/\/+$/, '');
    out[name] = {
      apiKey,
      baseUrl: rawBase.replace(/\/+$/, ''),
      ...(schemaSource?.urlVar ? { schemaUrl: read(schemaSource.urlVar) } : {}),
      ...(modelList?.urlVar ? { listUrl: read(modelList.urlVar) } : {}),
    };
  }
  return out;
}
