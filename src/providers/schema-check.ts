import type { CatalogModel, ProviderName } from '../catalog/index.js';
import type { ProviderCredentials } from './types.js';
import { upstreamModel, type PropertySchema, type UpstreamModelRecord } from './upstream-models.js';

/**
 * `mmgen providers check`: each routed model's recorded schema
 * (docs/upstream-models.md) against the schema its provider publishes today,
 * and its lifecycle dates against today. Operators learn of an upstream change
 * before their users do. Replicate publishes an OpenAPI schema per model
 * version (`GET /v1/models/{owner}/{name}`, or `…/versions/{id}` for a pinned
 * community model); fal one per endpoint (`GET {FAL_OPENAPI_URL}?endpoint_id=…`).
 * OpenAI, Anthropic and ElevenLabs publish no per-model schema: their records
 * are checked for lifecycle only.
 */
export interface Finding {
  provider: ProviderName;
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

interface LiveSchema {
  properties: Record<string, PropertySchema>;
  required: string[];
}

type Fetcher = (record: UpstreamModelRecord) => Promise<LiveSchema>;

async function getJson(url: string, headers: Record<string, string>): Promise<unknown> {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(15_000) });
  if (!res.ok) throw new Error(`${url.split('?')[0]} answered ${res.status}`);
  return res.json();
}

function asSchema(v: unknown): LiveSchema {
  const o = (v ?? {}) as { properties?: Record<string, PropertySchema>; required?: string[] };
  if (!o.properties || typeof o.properties !== 'object') throw new Error('the published schema has no properties');
  return { properties: o.properties, required: Array.isArray(o.required) ? o.required : [] };
}

function replicateFetcher(creds: ProviderCredentials): Fetcher {
  const headers = { authorization: `Bearer ${creds.apiKey}` };
  return async (record) => {
    const [owner, name] = record.upstream.split('/');
    const path = record.call.version ? `/models/${owner}/${name}/versions/${record.call.version}` : `/models/${owner}/${name}`;
    const body = (await getJson(`${creds.baseUrl}${path}`, headers)) as {
      latest_version?: { openapi_schema?: unknown };
      openapi_schema?: unknown;
    };
    const openapi = (record.call.version ? body.openapi_schema : body.latest_version?.openapi_schema) as { components?: { schemas?: { Input?: unknown } } } | undefined;
    return asSchema(openapi?.components?.schemas?.Input);
  };
}

function falFetcher(creds: ProviderCredentials, openapiUrl: string): Fetcher {
  const headers = { authorization: `Key ${creds.apiKey}` };
  return async (record) => {
    const doc = (await getJson(`${openapiUrl}?endpoint_id=${encodeURIComponent(record.upstream)}`, headers)) as {
      paths?: Record<string, { post?: { requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> } } }>;
      components?: { schemas?: Record<string, unknown> };
    };
    const post = doc.paths?.[`/${record.upstream}`]?.post;
    const ref = post?.requestBody?.content?.['application/json']?.schema?.$ref;
    const name = ref?.split('/').at(-1);
    return asSchema(name ? doc.components?.schemas?.[name] : undefined);
  };
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
  falOpenapiUrl: string;
  today: string;
  nearDays: number;
}): Promise<CheckReport> {
  const fetchers: Partial<Record<ProviderName, Fetcher>> = {};
  if (opts.credentials.replicate) fetchers.replicate = replicateFetcher(opts.credentials.replicate);
  if (opts.credentials.fal) fetchers.fal = falFetcher(opts.credentials.fal, opts.falOpenapiUrl);
  const routes = new Map<string, { provider: ProviderName; upstream: string; slugs: string[] }>();
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
    const record = upstreamModel(provider, upstream);
    const finding = (kind: Finding['kind'], detail: string) => report.findings.push({ provider, upstream, slugs, kind, detail });
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
    const fetcher = fetchers[provider];
    if (!fetcher) {
      report.lifecycleOnly++;
      continue;
    }
    try {
      const live = await fetcher(record);
      const recorded = asSchema(record.input);
      for (const d of schemaDrift(recorded, live)) finding('drift', d);
      report.checked++;
    } catch (err) {
      finding('unreachable', err instanceof Error ? err.message : String(err));
    }
  }
  return report;
}
