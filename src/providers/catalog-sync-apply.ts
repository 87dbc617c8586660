import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withoutReferences, type SyncFinding, type SyncReport } from './catalog-sync.js';
import type { ProviderDeclaration } from './declaration.js';
import { PROVIDER_DECLARATIONS } from './index.js';
import type { ProviderCredentials } from './types.js';
import { recordFileName, type UpstreamModelRecord } from './upstream-record.js';

/**
 * What `mmgen catalog sync --write-records --only …` and `--drafts DIR` write: for the maintainers who ship the
 * default catalog, an approved change goes into the provider's record file in the repository (its lifecycle, its
 * input) and reaches a catalog at its next start. An operator's `--apply` changes the running catalog instead
 * (domain/catalog-sync.ts). Only what is named is written: nothing is approved by default.
 */
export class ApprovalError extends Error {}

export interface Written {
  id: string;
  file: string;
  /** What changed: the record's `lifecycle` or `input`. */
  field: 'lifecycle' | 'input';
}

/** The findings the ids name; every id must name a finding of this run that --apply can take (or, with drafts, a new model). */
export function approvedFindings(report: SyncReport, ids: readonly string[], opts: { drafts: boolean }): SyncFinding[] {
  const byId = new Map(report.findings.map((f) => [f.id, f]));
  const unknown = ids.filter((id) => !byId.has(id));
  if (unknown.length > 0) throw new ApprovalError(`not a finding of this run: ${unknown.join(', ')}`);
  const approved = ids.map((id) => byId.get(id)!);
  const unwritable = approved.filter((f) => f.kind === 'unreachable' || (f.kind === 'new' && !opts.drafts));
  if (unwritable.length > 0) {
    throw new ApprovalError(`nothing to write for ${unwritable.map((f) => f.id).join(', ')} (a new model gets a draft with --drafts DIR, or is added to the running catalog with --apply --add FILE; an unreachable one nothing)`);
  }
  return approved;
}

function declarationOf(providers: readonly ProviderDeclaration[], name: string): ProviderDeclaration {
  const found = providers.find((p) => p.name === name);
  if (!found) throw new Error(`no provider '${name}' is registered`);
  return found;
}

/** Writes each approved change (gone, deprecation, schema) into its record file; new models are left to writeDrafts. */
export function applyFindings(approved: readonly SyncFinding[], providers: readonly ProviderDeclaration[] = PROVIDER_DECLARATIONS): Written[] {
  const written: Written[] = [];
  for (const f of approved) {
    if (!f.proposed) continue;
    const file = fileURLToPath(new URL(recordFileName(f.upstream), declarationOf(providers, f.provider).records));
    // The file as it is on disk (key order kept, so the change reads as a small diff).
    const record = JSON.parse(readFileSync(file, 'utf8')) as UpstreamModelRecord;
    if (f.proposed.lifecycle) {
      record.lifecycle = f.proposed.lifecycle;
      written.push({ id: f.id, file, field: 'lifecycle' });
    }
    if (f.proposed.input) {
      record.input = f.proposed.input;
      written.push({ id: f.id, file, field: 'input' });
    }
    writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  }
  return written;
}

/**
 * A draft record for each new model, in `dir/<provider>/` (never in the catalog's folders): what the provider
 * lists of it, and its published input schema where it publishes one (fal). The operator completes its call,
 * mapping and price from the provider's documentation before moving it into src/providers/<name>/models/.
 */
export async function writeDrafts(
  findings: readonly SyncFinding[],
  dir: string,
  opts: { credentials: Record<string, ProviderCredentials>; today: string; providers?: readonly ProviderDeclaration[] },
): Promise<string[]> {
  const providers = opts.providers ?? PROVIDER_DECLARATIONS;
  const files: string[] = [];
  for (const f of findings.filter((x) => x.kind === 'new' && x.listed)) {
    const listed = f.listed!;
    const provider = declarationOf(providers, f.provider);
    const draft: UpstreamModelRecord = {
      upstream: f.upstream,
      call: {},
      sources: [`${f.source ?? f.provider} (listed on ${opts.today})`],
      lifecycle: {
        deprecated: listed.deprecated ?? (listed.status === 'active' ? null : opts.today),
        shutdown: listed.shutdown,
        replacement: null,
        source: listed.status === 'active' && !listed.shutdown ? null : `${f.source ?? f.provider} on ${opts.today} (mmgen catalog sync)`,
      },
      pricing: null,
      input: { type: 'object', properties: {} },
      map: {},
      set: {},
      notes: `DRAFT written by mmgen catalog sync on ${opts.today}: not in the catalog. Write its call, map and price from ${f.provider}'s documentation and cite it in sources; then move it into src/providers/${f.provider}/models/ and route a catalog model to it.`,
    };
    const credentials = opts.credentials[f.provider];
    if (provider.schemaSource && credentials) {
      try {
        const published = (await provider.schemaSource.published(draft, credentials)) as { properties?: unknown } | undefined;
        if (published && typeof published.properties === 'object' && published.properties !== null) {
          draft.input = { ...(withoutReferences(published) as object), type: 'object', properties: withoutReferences(published.properties) as Record<string, unknown> };
          draft.sources.push(`its published schema, read on ${opts.today}`);
        }
      } catch {
        // No schema published for it (yet): the draft says so by its empty input.
      }
    }
    const folder = join(dir, f.provider);
    mkdirSync(folder, { recursive: true });
    const file = join(folder, recordFileName(f.upstream));
    writeFileSync(file, `${JSON.stringify(draft, null, 2)}\n`);
    files.push(file);
  }
  return files;
}
