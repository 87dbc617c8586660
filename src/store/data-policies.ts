import type { Queryable } from './db.js';

/** An organization's row of organization_data_policies (migration 0060), or the defaults when it has none. */
export interface DataPolicyRow {
  organization_id: string;
  capture: 'off' | 'metadata' | 'full';
  redact_fields: string[];
  redact_patterns: string[];
  request_log_days: number;
  generation_days: number | null;
  file_days: number | null;
  updated_at: Date | null;
}

const COLUMNS = 'organization_id, capture, redact_fields, redact_patterns, request_log_days, generation_days, file_days, updated_at';

export const DEFAULT_REQUEST_LOG_DAYS = 30;

export function defaultDataPolicy(organizationId: string): DataPolicyRow {
  return {
    organization_id: organizationId, capture: 'off', redact_fields: [], redact_patterns: [],
    request_log_days: DEFAULT_REQUEST_LOG_DAYS, generation_days: null, file_days: null, updated_at: null,
  };
}

/** The policies of these organizations; those without a row get the defaults. */
export async function selectDataPolicies(q: Queryable, organizationIds: readonly string[]): Promise<Map<string, DataPolicyRow>> {
  const r = await q.query<DataPolicyRow>(`SELECT ${COLUMNS} FROM organization_data_policies WHERE organization_id = ANY($1::text[])`, [organizationIds]);
  const out = new Map<string, DataPolicyRow>();
  for (const id of organizationIds) out.set(id, defaultDataPolicy(id));
  for (const row of r.rows) out.set(row.organization_id, row);
  return out;
}

/** Every organization with a generation or file retention (the retention sweep's work list). */
export async function selectRetainingPolicies(q: Queryable): Promise<DataPolicyRow[]> {
  const r = await q.query<DataPolicyRow>(
    `SELECT ${COLUMNS} FROM organization_data_policies WHERE generation_days IS NOT NULL OR file_days IS NOT NULL`,
  );
  return r.rows;
}

/** Writes the whole policy (the caller merged the change into the current one). */
export async function upsertDataPolicy(q: Queryable, p: Omit<DataPolicyRow, 'updated_at'>): Promise<DataPolicyRow> {
  const r = await q.query<DataPolicyRow>(
    `INSERT INTO organization_data_policies (organization_id, capture, redact_fields, redact_patterns, request_log_days, generation_days, file_days, updated_at)
     VALUES ($1, $2, $3::text[], $4::text[], $5, $6, $7, now())
     ON CONFLICT (organization_id) DO UPDATE SET capture = EXCLUDED.capture, redact_fields = EXCLUDED.redact_fields,
       redact_patterns = EXCLUDED.redact_patterns, request_log_days = EXCLUDED.request_log_days,
       generation_days = EXCLUDED.generation_days, file_days = EXCLUDED.file_days, updated_at = now()
     RETURNING ${COLUMNS}`,
    [p.organization_id, p.capture, p.redact_fields, p.redact_patterns, p.request_log_days, p.generation_days, p.file_days],
  );
  return r.rows[0]!;
}
