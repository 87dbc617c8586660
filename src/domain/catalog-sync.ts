import { Type, type Static } from '@sinclair/typebox';
import { ApiError } from '../errors.js';
import { syncCatalog, type SyncFinding, type SyncReport } from '../providers/catalog-sync.js';
import { publishedSchemas } from '../providers/schema-import.js';
import type { ProviderCredentials } from '../providers/types.js';
import { recordProblem, type UpstreamModelRecord } from '../providers/upstream-record.js';
import { bumpCatalogVersion, selectRecord, upsertRecord } from '../store/catalog.js';
import { auditCatalog, validated, type AdminModelView, type CatalogAdminPorts } from './catalog-admin.js';
import { ImportModelBody, importModel, type CatalogImportPorts } from './catalog-import.js';

/**
 * `mmgen catalog sync` against the running catalog (issue 28): the providers' lists and schemas compared with the
 * records the catalog serves (the operator's over the shipped files), and the findings the operator approves taken
 * into the catalog's data at run time, audited, followed by every node within a second. A model gone upstream, a
 * published deprecation or a changed schema becomes the operator's record of that upstream model (its lifecycle or
 * its input, as the finding proposes); a new upstream model is added with its schema imported from the provider,
 * from the definition the operator gives for it (name, modality, price, map). Nothing is taken unless named.
 */
export interface CatalogSyncPorts extends CatalogImportPorts {
  credentials: Record<string, ProviderCredentials>;
  /** The day the findings are dated (a shutdown "as of today"): the catalog's date, pinned or the clock's. */
  today: string;
}

export const SyncBody = Type.Object(
  {
    new_since: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'Only new upstream models released on or after this date (those with no published date are kept).' })),
    apply: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 400 }), {
        maxItems: 200,
        description: 'The ids of the findings to take (`<kind>:<provider>:<upstream>`, as reported); none: report only.',
      }),
    ),
    add: Type.Optional(
      Type.Array(ImportModelBody, {
        maxItems: 50,
        description: 'For each `new` finding in `apply`, the model to add (as POST /v1/admin/models/import takes it), matched by provider and upstream.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type SyncBody = Static<typeof SyncBody>;

/** A finding taken: what changed in the catalog's data. */
export interface AppliedFinding {
  id: string;
  kind: SyncFinding['kind'];
  /** `provider:upstream` for a record, the slug of an added model. */
  target: string;
  /** What changed: the record's `lifecycle` or `input`, or a `model` added. */
  changed: Array<'lifecycle' | 'input' | 'model'>;
}

export interface SyncResult extends SyncReport {
  applied: AppliedFinding[];
  added: AdminModelView[];
}

/** Reads the providers' lists and schemas against the running catalog; takes the findings `apply` names. */
export async function syncRunningCatalog(ports: CatalogSyncPorts, actor: string, input: unknown): Promise<SyncResult> {
  const body = validated<SyncBody>(SyncBody, input ?? {});
  const ids = body.apply ?? [];
  const adds = body.add ?? [];
  if (adds.length > 0 && ids.length === 0) throw new ApiError('parameter_invalid', '`add` defines models for `new` findings named in `apply`; name them there.', 'add');
  // The installation's records: the registered providers' shipped ones under its operator's.
  const records = ports.providers.records;
  const report = await syncCatalog({
    models: ports.catalog.models,
    credentials: ports.credentials,
    today: ports.today,
    ...(body.new_since ? { newSince: body.new_since } : {}),
    providers: records.providers,
    records: (p) => records.all(p.name),
  });
  const approved = approve(report, ids, adds);
  const applied: AppliedFinding[] = [];
  // Each changed record as it would be, held to the check of every record before any is taken: a drifted schema
  // may drop a field the record's map still sends (or be no JSON Schema at all), and is then refused, not served.
  const changes = approved.flatMap(({ finding }, i) => {
    if (finding.kind === 'new' || !finding.proposed) return [];
    const current = records(finding.provider, finding.upstream);
    if (!current) return [];
    const next: UpstreamModelRecord = { ...current, ...finding.proposed };
    const problem = recordProblem(next);
    if (problem) {
      throw new ApiError('parameter_invalid', `Taking '${finding.id}' would leave the record of ${finding.provider}'s '${finding.upstream}' invalid: ${problem.message}. Edit its record (PATCH /v1/admin/models/{slug} with records) instead.`, `apply[${i}]`);
    }
    return [{ finding, current, next }];
  });
  if (changes.length > 0) {
    await ports.db.tx(async (q) => {
      for (const { finding, current, next } of changes) {
        const before = (await selectRecord(q, finding.provider, finding.upstream)) ?? current;
        await upsertRecord(q, finding.provider, finding.upstream, next);
        await auditCatalog(q, actor, { action: 'record.sync', target: `${finding.provider}:${finding.upstream}`, before, after: next });
        const changed = (['lifecycle', 'input'] as const).filter((k) => finding.proposed![k] !== undefined);
        applied.push({ id: finding.id, kind: finding.kind, target: `${finding.provider}:${finding.upstream}`, changed: [...changed] });
      }
      await bumpCatalogVersion(q);
    });
    await ports.catalogFollower.refresh();
  }
  const added: AdminModelView[] = [];
  for (const { finding, add } of approved) {
    if (finding.kind !== 'new' || !add) continue;
    const listed = finding.listed;
    // What the list published of its lifecycle, unless the operator says otherwise.
    const lifecycle =
      add.record.lifecycle ??
      (listed && (listed.status !== 'active' || listed.deprecated || listed.shutdown)
        ? { deprecated: listed.deprecated ?? ports.today, shutdown: listed.shutdown, replacement: null, source: `${finding.source ?? finding.provider} on ${ports.today} (mmgen catalog sync)` }
        : undefined);
    const view = await importModel(ports, actor, { ...add, record: { ...add.record, ...(lifecycle ? { lifecycle } : {}), sources: [...(add.record.sources ?? []), ...(finding.source ? [`listed by ${finding.source} on ${ports.today}`] : [])] } }, ports.today);
    added.push(view);
    applied.push({ id: finding.id, kind: 'new', target: view.slug, changed: ['model'] });
  }
  return { ...report, applied, added };
}

/** The findings `apply` names, each with the model `add` defines for a new one; 400 naming what does not hold. */
function approve(report: SyncReport, ids: readonly string[], adds: readonly ImportModelBody[]): Array<{ finding: SyncFinding; add?: ImportModelBody }> {
  const byId = new Map(report.findings.map((f) => [f.id, f]));
  const used = new Set<number>();
  const out = ids.map((id, i) => {
    const finding = byId.get(id);
    if (!finding) throw new ApiError('parameter_invalid', `'${id}' is not a finding of this sync (findings: ${report.findings.map((f) => f.id).join(', ') || 'none'}).`, `apply[${i}]`);
    if (finding.kind === 'unreachable') throw new ApiError('parameter_invalid', `'${id}' reports a provider that could not be read: there is nothing to take.`, `apply[${i}]`);
    if (finding.kind !== 'new') return { finding };
    const at = adds.findIndex((a) => a.provider === finding.provider && a.upstream === finding.upstream);
    if (at === -1) {
      throw new ApiError(
        'parameter_invalid',
        `'${id}' is a new upstream model: give the model to add in \`add\` ({provider: '${finding.provider}', upstream: '${finding.upstream}', model: {slug, display_name, modality, capabilities, unit_cost_usd}, record: {map}}).`,
        `apply[${i}]`,
      );
    }
    used.add(at);
    return { finding, add: adds[at]! };
  });
  adds.forEach((a, i) => {
    if (!used.has(i)) throw new ApiError('parameter_invalid', `No \`new\` finding named in \`apply\` is ${a.provider}'s '${a.upstream}'.`, `add[${i}]`);
  });
  return out;
}

/** The sync's ports from an installation's: its provider credentials, and the catalog's date (pinned, or the clock's). */
export function syncPorts(ports: CatalogAdminPorts & { config: { providers: Record<string, ProviderCredentials>; catalogDate: string | undefined } }): CatalogSyncPorts {
  return {
    db: ports.db,
    catalog: ports.catalog,
    catalogFollower: ports.catalogFollower,
    providers: ports.providers,
    schemas: publishedSchemas(ports.config.providers),
    credentials: ports.config.providers,
    today: ports.config.catalogDate ?? new Date().toISOString().slice(0, 10),
  };
}
