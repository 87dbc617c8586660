import { DAY_MS, utcDay, type Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import { upsertDataPolicy, type DataPolicyRow } from '../store/data-policies.js';
import { recordAudit, type AuditOrigin } from '../domain/audit.js';
import type { Db } from '../store/db.js';
import { deleteRequestLogBefore } from '../store/request-log.js';
import type { DataPolicyCache } from './policies.js';
import { MAX_RULES, ruleProblem } from './redaction.js';

export interface DataPolicyPorts {
  db: Db;
  clock: Clock;
  dataPolicies: DataPolicyCache;
}

export interface DataPolicyChange {
  capture?: 'off' | 'metadata' | 'full';
  redact_fields?: string[];
  redact_patterns?: string[];
  request_log_days?: number;
  /** null: kept forever (the default). */
  generation_days?: number | null;
  file_days?: number | null;
}

/** When what was kept `days` days expires: the oldest time still kept, and the day something made now goes. */
function horizon(now: number, days: number | null) {
  return {
    oldest_kept_at: days === null ? null : new Date(now - days * DAY_MS).toISOString(),
    written_today_expires_on: days === null ? null : utcDay(now + days * DAY_MS),
  };
}

/** The policy as the organization sees it, with when what is kept now expires. */
export function toDataPolicyView(p: DataPolicyRow, now: number) {
  return {
    object: 'data_policy' as const,
    capture: p.capture,
    redact_fields: p.redact_fields,
    redact_patterns: p.redact_patterns,
    request_log_days: p.request_log_days,
    generation_days: p.generation_days,
    file_days: p.file_days,
    updated_at: p.updated_at?.toISOString() ?? null,
    expiry: {
      // A row expires on its day plus the retention; its partition is dropped the day after.
      request_log: horizon(now, p.request_log_days) as { oldest_kept_at: string; written_today_expires_on: string },
      // Prompts and files go at the first retention run (hourly) after their generation's time plus the days.
      generation_records: horizon(now, p.generation_days),
      files: horizon(now, p.file_days),
    },
  };
}

function auditedPolicy(p: DataPolicyRow) {
  const { organization_id: _id, organization_seq: _seq, updated_at: _at, ...kept } = p;
  return kept;
}

function check(kind: 'field' | 'pattern', rules: string[] | undefined, param: string): void {
  if (rules === undefined) return;
  if (rules.length > MAX_RULES) throw new ApiError('parameter_invalid', `At most ${MAX_RULES} ${param}.`, param);
  rules.forEach((rule, i) => {
    const problem = ruleProblem(kind, rule);
    if (problem) throw new ApiError('parameter_invalid', `${param}[${i}] ${problem}.`, `${param}[${i}]`);
  });
}

/**
 * Changes the organization's data policy. A shorter request log retention also removes the rows already kept
 * longer than it (their partitions give the disk back when their own day comes); shorter generation and file
 * retentions take effect at the next retention run.
 */
export async function setDataPolicy(deps: DataPolicyPorts, organizationId: string, change: DataPolicyChange, origin: AuditOrigin): Promise<DataPolicyRow> {
  check('field', change.redact_fields, 'redact_fields');
  check('pattern', change.redact_patterns, 'redact_patterns');
  const current = await deps.dataPolicies.get(organizationId);
  // The change and its audit entry (`data_policy.updated`) are one transaction.
  const next = await deps.db.tx(async (q) => {
    const written = await upsertDataPolicy(q, {
    organization_id: organizationId,
    capture: change.capture ?? current.capture,
    redact_fields: change.redact_fields ?? current.redact_fields,
    redact_patterns: change.redact_patterns ?? current.redact_patterns,
    request_log_days: change.request_log_days ?? current.request_log_days,
    generation_days: change.generation_days !== undefined ? change.generation_days : current.generation_days,
    file_days: change.file_days !== undefined ? change.file_days : current.file_days,
    });
    await recordAudit(q, {
      ...origin, organizationId, action: 'data_policy.updated', target: { type: 'data_policy', id: organizationId },
      before: auditedPolicy(current), after: auditedPolicy(written),
    });
    return written;
  });
  if (next.request_log_days < current.request_log_days) {
    await deleteRequestLogBefore(deps.db, next.organization_seq, new Date(deps.clock.now() - next.request_log_days * DAY_MS));
  }
  deps.dataPolicies.forget(organizationId);
  return next;
}
