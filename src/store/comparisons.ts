import type { Modality } from '../catalog/index.js';
import type { Mode } from '../domain/access.js';
import type { Queryable } from './db.js';

/** A comparison as the database holds it; its children are generations with its id. */
export interface ComparisonRow {
  id: string;
  organization_id: string;
  mode: string;
  modality: Modality;
  prompt: string | null;
  models: string[];
  status: 'queued' | 'running' | 'completed';
  remaining: number;
  reserved_credits: number;
  created_at: Date;
  completed_at: Date | null;
}

/** Written in the transaction that accepts its children; `remaining` counts down as they finish (store/finishing.ts). */
export async function insertComparison(
  q: Queryable,
  c: { id: string; organizationId: string; apiKeyId: string; mode: Mode; modality: Modality; prompt: string | null; models: string[]; params: unknown; reservedCredits: number },
): Promise<ComparisonRow> {
  const r = await q.query<ComparisonRow>(
    `INSERT INTO comparisons (id, organization_id, api_key_id, mode, modality, prompt, models, params, status, remaining, reserved_credits)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'queued', $9, $10) RETURNING *`,
    [c.id, c.organizationId, c.apiKeyId, c.mode, c.modality, c.prompt, c.models, JSON.stringify(c.params), c.models.length, c.reservedCredits],
  );
  return r.rows[0]!;
}

export async function selectComparison(q: Queryable, id: string, organizationId: string, mode: Mode): Promise<ComparisonRow | null> {
  const r = await q.query<ComparisonRow>('SELECT * FROM comparisons WHERE id = $1 AND organization_id = $2 AND mode = $3', [id, organizationId, mode]);
  return r.rows[0] ?? null;
}
