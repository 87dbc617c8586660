import type { Queryable } from './db.js';

/** An organization's row of organization_data_policies (migration 0060), or the defaults when it has none. */
export interface DataPolicyRow {
  organization_id: string;
  /** organizations.seq: how the request log names the organization. */
  organization_seq: number;
  capture: 'off' | 'metadata' | 'full';
  redact_fields: string[];
  redact_patterns: string[];
  request_log_days: number;
  generation_days: number | null;
  file_days: number | null;
  updated_at: Date | null;
}

const COLUMNS = 'organization_id, (SELECT seq FROM organizations o WHERE o.id = organization_id) AS organization_seq, capture, redact_fields, redact_patterns, request_log_days, generation_days, file_days, updated_at';

export const DEFAULT_REQUEST_LOG_DAYS = 30;

export function defaultDataPolicy(organizationId: string, organizationSeq: number): DataPolicyRow {
  return {
    organization_id: organizationId, organization_seq: organizationSeq, capture: 'off', redact_fields: [], redact_patterns: [],
    request_log_days: DEFAULT_REQUEST_LOG_DAYS, generation_days: null, file_days: null, updated_at: null,
  };
}

/** The policies of these organizations; those without a row get the defaults. */
export async function selectDataPolicies(q: Queryable, organizationIds: readonly string[]): Promise<Map<string, DataPolicyRow>> {
  // Every organization named, with its policy's row when it has one (else the defaults).
  const r = await q.query<DataPolicyRow & { has_row: boolean }>(
    `SELECT o.id AS organization_id, o.seq AS organization_seq, p.organization_id IS NOT NULL AS has_row, p.capture, p.redact_fields,
            p.redact_patterns, p.request_log_days, p.generation_days, p.file_days, p.updated_at
       FROM organizations o LEFT JOIN organization_data_policies p ON p.organization_id = o.id
      WHERE o.id = ANY($1::text[])`,
    [organizationIds],
  );
  const out = new Map<string, DataPolicyRow>();
  for (const { has_row, ...row } of r.rows) out.set(row.organization_id, has_row ? row : defaultDataPolicy(row.organization_id, row.organization_seq));
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
export async function upsertDataPolicy(q: Queryable, p: Omit<DataPolicyRow, 'updated_at' | 'organization_seq'>): Promise<DataPolicyRow> {
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
