import { ApiError, notFound } from '../errors.js';
import type { Queryable } from '../store/db.js';
import { generationSeq, selectGeneration, selectGenerationPage, type GenerationRow } from '../store/generations.js';
import type { Principal } from '../domain/access.js';


/** A generation of the caller's organization and mode, else 404. */
export async function generationOf(q: Queryable, principal: Principal, id: string, lock = false): Promise<GenerationRow> {
  const g = await selectGeneration(q, id, lock);
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
    const seq = await generationSeq(q, f.startingAfter, principal.organizationId, principal.mode);
    if (seq === null) throw new ApiError('resource_not_found', `No such generation: '${f.startingAfter}'`, 'starting_after');
    cursor = seq;
  }
  const rows = await selectGenerationPage(q, {
    organizationId: principal.organizationId,
    mode: principal.mode,
    beforeSeq: cursor,
    status: f.status ?? null,
    modality: f.modality ?? null,
    limit: f.limit,
  });
  return { rows: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}
