import type { FastifyReply } from 'fastify';
import type { CatalogModel } from '../catalog/index.js';
import { modelDeprecation, type ModelDeprecation } from '../providers/parameters.js';
import type { RecordFinder } from '../providers/upstream-models.js';

/**
 * A deprecated model announced in HTTP (docs/contract-addenda.md, "Deprecation headers"), from its `deprecation`
 * (providers/parameters.ts), the one place its end of life is computed:
 * - `Deprecation` (RFC 9745): a Structured Field Date, `@<unix seconds>` of `deprecated_on` at 00:00 UTC;
 * - `Sunset` (RFC 8594): an IMF-fixdate of `shutdown_on` at 00:00 UTC, when every route's shutdown is known (a
 *   route stops being served on its shutdown date, the date itself included, so its first instant is the sunset);
 * - `Link`: the successor (`rel="successor-version"`, `/v1/models/<slug>`) when the provider's named replacement is
 *   a model this catalog serves, and `rel="deprecation"` links (RFC 9745 §3) to what describes it: mmgen's own model
 *   (JSON, naming the replacement and dates) and the first address of each source the records cite.
 */

/** The headers, lower-cased as Node keeps them; also what an Idempotency-Key's kept answer keeps of them. */
export const DEPRECATION_HEADER_NAMES = ['deprecation', 'sunset', 'link'] as const;

/** What the headers are about: the model a generation names, the model read, or the models a comparison compares. */
export type DeprecationScope = 'generation' | 'model' | 'comparison';

function midnightUtc(date: string): Date {
  return new Date(`${date}T00:00:00Z`);
}

function earliest(dates: Array<string | null>): string | null {
  return dates.filter((d): d is string => d !== null).sort()[0] ?? null;
}

/** The first http(s) address of a cited source (a source is prose that may cite several). */
function sourceUrl(source: string): string | null {
  return /https?:\/\/[^\s<>"'(),;]+/.exec(source)?.[0] ?? null;
}

function linksOf(slug: string, d: ModelDeprecation, scope: DeprecationScope, find: (name: string) => CatalogModel | undefined): string[] {
  // A comparison's links each say which of its models they are about (RFC 8288 §3.2); a single model's need not.
  const anchor = scope === 'comparison' ? `; anchor="/v1/models/${slug}"` : '';
  const links: string[] = [];
  const successor = d.replacement ? find(d.replacement) : undefined;
  if (successor && successor.status === 'active' && successor.slug !== slug) links.push(`</v1/models/${successor.slug}>; rel="successor-version"${anchor}`);
  // GET /v1/models/{slug} is that description itself.
  if (scope !== 'model') links.push(`</v1/models/${slug}>; rel="deprecation"; type="application/json"${anchor}`);
  for (const url of new Set(d.sources.map(sourceUrl).filter((u): u is string => u !== null))) links.push(`<${url}>; rel="deprecation"${anchor}`);
  return links;
}

/**
 * The headers of an answer about these models: none when none is deprecated. With several (a comparison), the
 * earliest deprecation and the earliest sunset among them: the answer stops working as a whole at the first.
 * `records`: the installation's (its providers'), which say each model's end of life.
 */
export function deprecationHeaders(
  records: RecordFinder,
  models: ReadonlyArray<CatalogModel | null>,
  scope: DeprecationScope,
  find: (name: string) => CatalogModel | undefined,
): Readonly<Record<string, string>> {
  const only = models.length === 1 ? models[0] : null;
  const d = only ? modelDeprecation(records, only) : null;
  if (only && d) return headersOfOne(records, only, d, scope, find);
  return headersOf(records, models, scope, find);
}

/**
 * One model's headers, kept with its deprecation (itself computed once per model and records version): every answer
 * naming a deprecated model carries them, so they are not rebuilt (dates formatted, sources parsed) per answer. The
 * successor's link depends on whether the catalog serves it now, so that is part of the key.
 */
const oneModelHeaders = new WeakMap<ModelDeprecation, Map<string, Readonly<Record<string, string>>>>();

function headersOfOne(records: RecordFinder, model: CatalogModel, d: ModelDeprecation, scope: DeprecationScope, find: (name: string) => CatalogModel | undefined) {
  const successor = d.replacement ? find(d.replacement) : undefined;
  const key = `${scope}\n${model.slug}\n${successor ? `${successor.slug}:${successor.status}` : ''}`;
  let byKey = oneModelHeaders.get(d);
  if (!byKey) oneModelHeaders.set(d, (byKey = new Map()));
  let headers = byKey.get(key);
  if (!headers) byKey.set(key, (headers = Object.freeze(headersOf(records, [model], scope, find))));
  return headers;
}

function headersOf(
  records: RecordFinder,
  models: ReadonlyArray<CatalogModel | null>,
  scope: DeprecationScope,
  find: (name: string) => CatalogModel | undefined,
): Record<string, string> {
  const deprecated = models.flatMap((m) => {
    const d = m ? modelDeprecation(records, m) : null;
    return m && d ? [{ slug: m.slug, d }] : [];
  });
  if (deprecated.length === 0) return {};
  const headers: Record<string, string> = {};
  const since = earliest(deprecated.map((x) => x.d.deprecated_on));
  if (since) headers.deprecation = `@${Math.floor(midnightUtc(since).getTime() / 1000)}`;
  const sunset = earliest(deprecated.map((x) => x.d.shutdown_on));
  if (sunset) headers.sunset = midnightUtc(sunset).toUTCString();
  const links = deprecated.flatMap((x) => linksOf(x.slug, x.d, scope, find));
  if (links.length > 0) headers.link = links.join(', ');
  return headers;
}

/**
 * Sets the headers on the response. On the raw response, so that an answer a route writes itself (a stream, written
 * past Fastify after its head) carries them as a Fastify reply does.
 */
export function announceDeprecation(
  reply: FastifyReply,
  records: RecordFinder,
  models: ReadonlyArray<CatalogModel | null>,
  scope: DeprecationScope,
  find: (name: string) => CatalogModel | undefined,
): void {
  for (const [name, value] of Object.entries(deprecationHeaders(records, models, scope, find))) reply.raw.setHeader(name, value);
}
