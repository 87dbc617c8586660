import type { CatalogOverlay, ModelAccess, ModelDefinition } from '../catalog/index.js';
import type { Queryable } from './db.js';

/**
 * The operator's changes to the catalog (migration 0018): model overlays, the upstream records of models the
 * operator added, margins, organizations' model access, and the audit of every change. Each write bumps
 * catalog_state.version in the caller's transaction; nodes poll that one row (catalogVersion) and reload the
 * overlay when it moves.
 */
export async function catalogVersion(q: Queryable): Promise<number> {
  const r = await q.query<{ version: string }>('SELECT version FROM catalog_state WHERE id = 1');
  return Number(r.rows[0]?.version ?? 0);
}

/** Marks a change: every node rebuilds its catalog at its next poll. */
export async function bumpCatalogVersion(q: Queryable): Promise<number> {
  const r = await q.query<{ version: string }>('UPDATE catalog_state SET version = version + 1 WHERE id = 1 RETURNING version');
  return Number(r.rows[0]!.version);
}

/** A record row as stored: the JSON is checked by whoever reads it (the follower, with the records' schema). */
export interface StoredRecord {
  provider: string;
  upstream: string;
  record: unknown;
}

/** The whole overlay and the records, as of one version (one transaction, so they agree). */
export async function readOverlay(q: Queryable): Promise<{ overlay: Omit<CatalogOverlay, 'models'> & { models: StoredModelRow[] }; records: StoredRecord[] }> {
  const state = await q.query<{ version: string; margin_percent: string | null }>('SELECT version, margin_percent FROM catalog_state WHERE id = 1');
  const models = await q.query<StoredModelRow>('SELECT slug, definition, disabled, margin_percent FROM catalog_models ORDER BY slug');
  const access = await q.query<{ organization_id: string; mode: ModelAccess['mode']; models: string[] }>(
    'SELECT organization_id, mode, models FROM organization_model_access',
  );
  const records = await q.query<StoredRecord>('SELECT provider, upstream, record FROM catalog_records ORDER BY provider, upstream');
  return {
    overlay: {
      version: Number(state.rows[0]?.version ?? 0),
      marginPercent: state.rows[0]?.margin_percent ?? null,
      models: models.rows,
      access: new Map(access.rows.map((a) => [a.organization_id, { mode: a.mode, models: a.models }])),
    },
    records: records.rows,
  };
}

/** A catalog_models row; `definition` is unchecked JSON until the follower validates it. */
export interface StoredModelRow {
  slug: string;
  definition: unknown;
  disabled: boolean;
  margin_percent: string | null;
}

export async function selectModelRow(q: Queryable, slug: string): Promise<StoredModelRow | undefined> {
  const r = await q.query<StoredModelRow>('SELECT slug, definition, disabled, margin_percent FROM catalog_models WHERE slug = $1 FOR UPDATE', [slug]);
  return r.rows[0];
}

export async function upsertModelRow(
  q: Queryable,
  row: { slug: string; definition: ModelDefinition | null; disabled: boolean; marginPercent: string | null },
): Promise<void> {
  await q.query(
    `INSERT INTO catalog_models (slug, definition, disabled, margin_percent) VALUES ($1, $2, $3, $4)
     ON CONFLICT (slug) DO UPDATE SET definition = $2, disabled = $3, margin_percent = $4, updated_at = now()`,
    [row.slug, row.definition === null ? null : JSON.stringify(row.definition), row.disabled, row.marginPercent],
  );
}

export async function selectRecord(q: Queryable, provider: string, upstream: string): Promise<unknown> {
  const r = await q.query<{ record: unknown }>('SELECT record FROM catalog_records WHERE provider = $1 AND upstream = $2 FOR UPDATE', [provider, upstream]);
  return r.rows[0]?.record;
}

export async function upsertRecord(q: Queryable, provider: string, upstream: string, record: unknown): Promise<void> {
  await q.query(
    `INSERT INTO catalog_records (provider, upstream, record) VALUES ($1, $2, $3)
     ON CONFLICT (provider, upstream) DO UPDATE SET record = $3, updated_at = now()`,
    [provider, upstream, JSON.stringify(record)],
  );
}

/** The global margin, locked for the transaction that changes it. */
export async function selectGlobalMargin(q: Queryable): Promise<string | null> {
  const r = await q.query<{ margin_percent: string | null }>('SELECT margin_percent FROM catalog_state WHERE id = 1 FOR UPDATE');
  return r.rows[0]?.margin_percent ?? null;
}

export async function updateGlobalMargin(q: Queryable, marginPercent: string | null): Promise<void> {
  await q.query('UPDATE catalog_state SET margin_percent = $1 WHERE id = 1', [marginPercent]);
}

export async function selectModelAccess(q: Queryable, organizationId: string): Promise<ModelAccess | null> {
  const r = await q.query<ModelAccess>('SELECT mode, models FROM organization_model_access WHERE organization_id = $1 FOR UPDATE', [organizationId]);
  return r.rows[0] ?? null;
}

/** Sets an organization's model access; null: every model again. */
export async function replaceModelAccess(q: Queryable, organizationId: string, access: ModelAccess | null): Promise<void> {
  if (access === null) {
    await q.query('DELETE FROM organization_model_access WHERE organization_id = $1', [organizationId]);
    return;
  }
  await q.query(
    `INSERT INTO organization_model_access (organization_id, mode, models) VALUES ($1, $2, $3)
     ON CONFLICT (organization_id) DO UPDATE SET mode = $2, models = $3, updated_at = now()`,
    [organizationId, access.mode, [...access.models]],
  );
}

export interface AuditEntry {
  id: number;
  at: Date;
  actor: string;
  action: string;
  target: string;
  before: unknown;
  after: unknown;
}

export async function insertAudit(q: Queryable, e: Omit<AuditEntry, 'id' | 'at'>): Promise<void> {
  await q.query('INSERT INTO catalog_audit (actor, action, target, before, after) VALUES ($1, $2, $3, $4, $5)', [
    e.actor,
    e.action,
    e.target,
    e.before === null || e.before === undefined ? null : JSON.stringify(e.before),
    e.after === null || e.after === undefined ? null : JSON.stringify(e.after),
  ]);
}

/** The newest entries first; `before` (an id) pages back. */
export async function selectAudit(q: Queryable, opts: { limit: number; before?: number | undefined; target?: string | undefined }): Promise<AuditEntry[]> {
  const r = await q.query<Omit<AuditEntry, 'id'> & { id: string }>(
    `SELECT id, at, actor, action, target, before, after FROM catalog_audit
     WHERE ($2::bigint IS NULL OR id < $2) AND ($3::text IS NULL OR target = $3)
     ORDER BY id DESC LIMIT $1`,
    [opts.limit, opts.before ?? null, opts.target ?? null],
  );
  return r.rows.map((row) => ({ ...row, id: Number(row.id) }));
}
