import type { CatalogModel } from '../catalog/index.js';
import type { ProviderDeclaration, SchemaSource } from './declaration.js';
import { PROVIDER_DECLARATIONS } from './index.js';
import type { ProviderCredentials } from './types.js';
import { recordFinder } from './upstream-models.js';
import type { PropertySchema } from './upstream-record.js';

/**
 * `mmgen providers check`: each routed model's recorded schema
 * (docs/upstream-models.md) against the schema its provider publishes today,
 * and its lifecycle dates against today. Operators learn of an upstream change
 * before their users do. Where and how a provider publishes its schemas is
 * its declaration's `schemaSource` (src/providers/<name>/provider.ts: Replicate
 * one per model version, fal one per endpoint); a provider that publishes none
 * (OpenAI, Anthropic, ElevenLabs) has its records checked for lifecycle only.
 */
export interface Finding {
  provider: string;
  upstream: string;
  slugs: string[];
  kind: 'drift' | 'shutdown_past' | 'shutdown_near' | 'unreachable';
  detail: string;
}

export interface CheckReport {
  checked: number;
  /** Routes whose provider publishes no per-model schema, or has no credentials here: lifecycle only. */
  lifecycleOnly: number;
  findings: Finding[];
}

export interface LiveSchema {
  properties: Record<string, PropertySchema>;
  required: string[];
}

/** A published (or recorded) input schema's fields and required list; throws when it has no properties. */
export function asSchema(v: unknown): LiveSchema {
  const o = (v ?? {}) as { properties?: Record<string, PropertySchema>; required?: string[] };
  if (!o.properties || typeof o.properties !== 'object') throw new Error('the published schema has no properties');
  return { properties: o.properties, required: Array.isArray(o.required) ? o.required : [] };
}

/** What differs between the recorded schema and the published one, field by field. */
export function schemaDrift(recorded: LiveSchema, live: LiveSchema): string[] {
  const out: string[] = [];
  for (const field of Object.keys(live.properties)) if (!(field in recorded.properties)) out.push(`published field ${field} is not recorded`);
  for (const field of Object.keys(recorded.properties)) if (!(field in live.properties)) out.push(`recorded field ${field} is no longer published`);
  for (const field of live.required) if (!recorded.required.includes(field)) out.push(`${field} is now required`);
  for (const field of recorded.required) if (!live.required.includes(field)) out.push(`${field} is no longer required`);
  for (const [field, l] of Object.entries(live.properties)) {
    const r = recorded.properties[field];
    if (!r) continue;
    if (l.type !== undefined && r.type !== undefined && JSON.stringify(l.type) !== JSON.stringify(r.type)) out.push(`${field}: type ${JSON.stringify(r.type)} → ${JSON.stringify(l.type)}`);
    if (Array.isArray(l.enum) || Array.isArray(r.enum)) {
      const a = JSON.stringify([...(r.enum ?? [])].map(String).sort());
      const b = JSON.stringify([...(l.enum ?? [])].map(String).sort());
      if (a !== b) out.push(`${field}: values ${JSON.stringify(r.enum ?? null)} → ${JSON.stringify(l.enum ?? null)}`);
    }
    for (const bound of ['minimum', 'maximum'] as const) {
      if (typeof l[bound] === 'number' && l[bound] !== r[bound]) out.push(`${field}: ${bound} ${String(r[bound])} → ${l[bound]}`);
    }
  }
  return out;
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

export async function checkProviders(opts: {
  models: readonly CatalogModel[];
  credentials: Record<string, ProviderCredentials>;
  today: string;
  nearDays: number;
  /** The registered providers (src/providers/index.ts); a test may name its own. */
  providers?: readonly ProviderDeclaration[];
}): Promise<CheckReport> {
  const providers = opts.providers ?? PROVIDER_DECLARATIONS;
  const upstreamModel = recordFinder(providers);
  // A provider's published schemas are read only with its credentials.
  const sources = new Map<string, { source: SchemaSource; credentials: ProviderCredentials }>();
  for (const p of providers) {
    const credentials = opts.credentials[p.name];
    if (p.schemaSource && credentials) sources.set(p.name, { source: p.schemaSource, credentials });
  }
  const routes = new Map<string, { provider: string; upstream: string; slugs: string[] }>();
  for (const m of opts.models.filter((x) => x.status === 'active')) {
    for (const r of m.routes) {
      const key = `${r.provider} ${r.upstream}`;
      const seen = routes.get(key) ?? { provider: r.provider, upstream: r.upstream, slugs: [] };
      seen.slugs.push(m.slug);
      routes.set(key, seen);
    }
  }
  const report: CheckReport = { checked: 0, lifecycleOnly: 0, findings: [] };
  for (const { provider, upstream, slugs } of routes.values()) {
    const finding = (kind: Finding['kind'], detail: string) => report.findings.push({ provider, upstream, slugs, kind, detail });
    if (!providers.some((p) => p.name === provider)) {
      finding('drift', `no provider '${provider}' is registered in mmgen`);
      continue;
    }
    const record = upstreamModel(provider, upstream);
    if (!record) {
      finding('drift', 'no record of this upstream model in mmgen');
      continue;
    }
    const shutdown = record.lifecycle.shutdown;
    if (shutdown) {
      const days = daysBetween(opts.today, shutdown);
      if (days < 0) finding('shutdown_past', `shut down upstream on ${shutdown}${record.lifecycle.replacement ? `; replacement: ${record.lifecycle.replacement}` : ''}`);
      else if (days <= opts.nearDays) finding('shutdown_near', `shuts down upstream on ${shutdown}, in ${days} days${record.lifecycle.replacement ? `; replacement: ${record.lifecycle.replacement}` : ''}`);
    }
    const published = sources.get(provider);
    if (!published) {
      report.lifecycleOnly++;
      continue;
    }
    try {
      const live = asSchema(await published.source.published(record, published.credentials));
      const recorded = asSchema(record.input);
      for (const d of schemaDrift(recorded, live)) finding('drift', d);
      report.checked++;
    } catch (err) {
      finding('unreachable', err instanceof Error ? err.message : String(err));
    }
  }
  return report;
}
