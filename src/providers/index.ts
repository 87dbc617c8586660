import { anthropic } from './anthropic/provider.js';
import type { ProviderDeclaration } from './declaration.js';
import { elevenlabs } from './elevenlabs/provider.js';
import { fal } from './fal/provider.js';
import { openai } from './openai/provider.js';
import { replicate } from './replicate/provider.js';

/**
 * The one list of upstream providers: the only place a provider is named outside its folder. Everything else
 * that lists providers derives from it (the credentials config.ts reads, the registry's adapters, the record
 * lookup, `mmgen providers check`'s sources, and the names catalog routes may give); each of those takes the
 * list as a parameter, so a test can register a provider of its own the same way (docs/architecture.md,
 * "Add a provider").
 */
export const PROVIDER_DECLARATIONS: readonly ProviderDeclaration[] = [openai, anthropic, replicate, fal, elevenlabs];

/** The names catalog routes may give, in registration order. */
export const PROVIDER_NAMES: readonly string[] = PROVIDER_DECLARATIONS.map((p) => p.name);
