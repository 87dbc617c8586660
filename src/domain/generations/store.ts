import { ApiError, notFound } from '../../errors.js';
import type { Queryable } from '../../store/db.js';
import type { Principal } from '../access.js';
import type { GenerationRow, OutputRow } from './model.js';

/** Reads of generations, always scoped to the caller's organization and mode. */
export async function loadGeneration(q: Queryable, id: string, lock = false): Promise<GenerationRow | null> {
  const r = await q.query<GenerationRow>(`SELECT * FROM generations WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return r.rows[0] ?? null;
}

export async function loadOutputs(q: Queryable, generationIds: string[]): Promise<Map<string, OutputRow[]>> {
  const map = new Map<string, OutputRow[]>(generationIds.map((id) => [id, []]));
  if (generationIds.length === 0) return map;
  const r = await q.query<OutputRow>('SELECT * FROM generation_outputs WHERE generation_id = ANY($1) ORDER BY position', [generationIds]);
  for (const o of r.rows) map.get(o.generation_id)?.push(o);
  return map;
}

export async function generationOf(q: Queryable, principal: Principal, id: string, lock = false): Promise<GenerationRow> {
  const g = await loadGeneration(q, id, lock);
  if (!g || g.organization_id !== principal.organizationId || g.mode !== principal.mode) throw notFound('generation', id);
  return g;
}

export async function listGenerations(
  q: Queryable,
  principal: Principal,
  f: { limit: number; startingAfter?: string | undefined; status?: string | undefined; modality?: string | undefined },
): Promise<{ rows: GenerationRow[]; hasMore: boolean }> {
  let cursor = Number.MAX_SAFE_INTEGER;
  if (f.startingAfter) {
    const c = await q.query<{ seq: number }>('SELECT seq FROM generations WHERE id = $1 AND organization_id = $2 AND mode = $3', [f.startingAfter, principal.organizationId, principal.mode]);
    if (!c.rows[0]) throw new ApiError('resource_not_found', `No such generation: '${f.startingAfter}'`, 'starting_after');
    cursor = c.rows[0].seq;
  }
  const r = await q.query<GenerationRow>(
    `SELECT * FROM generations WHERE organization_id = $1 AND mode = $2 AND seq < $3
       AND ($4::text IS NULL OR status = $4) AND ($5::text IS NULL OR modality = $5)
     ORDER BY seq DESC LIMIT $6`,
    [principal.organizationId, principal.mode, cursor, f.status ?? null, f.modality ?? null, f.limit + 1],
  );
  return { rows: r.rows.slice(0, f.limit), hasMore: r.rows.length > f.limit };
}
