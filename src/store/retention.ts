import type { Queryable } from './db.js';

/**
 * The SQL of generation retention (docs/contract-addenda.md, "Retention of generations"): one batch at a time, each
 * taking the organization's oldest rows not yet expired (the partial indexes of migration 0061) and stamping them.
 * A generation is only ever reduced, never deleted: usage, the ledger and the request log name it.
 */

const TERMINAL = `('succeeded', 'failed', 'canceled')`;
/** Serializes the file batches of one organization across nodes (with hashtext(organization id) as the second key). */
const FILE_SWEEP_LOCK = 7_262_061;

/**
 * Reduces up to `limit` ended generations made before `before`: the prompt, the request's free text (`textFields` of
 * params), a chat's answer and the caller's input URL are removed; what billing and usage read stays. Returns how many.
 */
export async function reduceGenerationRecords(q: Queryable, organizationId: string, before: Date, textFields: readonly string[], limit: number): Promise<number> {
  const r = await q.query(
    `UPDATE generations SET prompt = NULL, params = params - $3::text[],
            result = CASE WHEN result IS NULL THEN NULL ELSE result - ARRAY['message', 'input_url'] END,
            prompt_expired_at = now()
      WHERE id IN (SELECT id FROM generations
                    WHERE organization_id = $1 AND created_at < $2 AND prompt_expired_at IS NULL AND status IN ${TERMINAL}
                    ORDER BY created_at LIMIT $4 FOR UPDATE SKIP LOCKED)`,
    [organizationId, before, textFields, limit],
  );
  return r.rowCount;
}

/** The same for comparisons (their one prompt and params), once completed. */
export async function reduceComparisonRecords(q: Queryable, organizationId: string, before: Date, textFields: readonly string[], limit: number): Promise<number> {
  const r = await q.query(
    `UPDATE comparisons SET prompt = NULL, params = params - $3::text[], prompt_expired_at = now()
      WHERE id IN (SELECT id FROM comparisons
                    WHERE organization_id = $1 AND created_at < $2 AND prompt_expired_at IS NULL AND status = 'completed'
                    ORDER BY created_at LIMIT $4 FOR UPDATE SKIP LOCKED)`,
    [organizationId, before, textFields, limit],
  );
  return r.rowCount;
}

export interface ExpiringGeneration {
  id: string;
  cache_key: string | null;
  /** Every blob the generation names: its outputs, its stored input image and audio, an avatar's spoken text. */
  keys: string[];
}

/**
 * Locks (until q's transaction ends) up to `limit` ended generations made before `before` whose files are still
 * kept, with the blobs each names. Call inside a transaction: the organization's file batches take turns across
 * nodes, so a blob shared by a cache copy is judged once its other holders' batches have committed. A generation
 * with an output still waiting for its moderation verdict is left for a later run (the verdict reads the file).
 */
export async function lockGenerationsWithFiles(q: Queryable, organizationId: string, before: Date, limit: number): Promise<ExpiringGeneration[]> {
  await q.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [FILE_SWEEP_LOCK, organizationId]);
  const r = await q.query<ExpiringGeneration>(
    `SELECT g.id, g.cache_key,
            array_remove(ARRAY[g.result->>'input_blob', g.result->>'input_audio_blob',
                               CASE WHEN g.modality = 'avatar' THEN 'inputs/' || g.id || '-speech' END]
                         || coalesce((SELECT array_agg(o.blob_key) FROM generation_outputs o WHERE o.generation_id = g.id), '{}'), NULL) AS keys
       FROM generations g
      WHERE g.organization_id = $1 AND g.created_at < $2 AND g.files_expired_at IS NULL AND g.status IN ${TERMINAL}
        AND NOT EXISTS (SELECT 1 FROM generation_outputs p WHERE p.generation_id = g.id AND p.moderation_status = 'pending')
      ORDER BY g.created_at LIMIT $3
      FOR UPDATE OF g SKIP LOCKED`,
    [organizationId, before, limit],
  );
  return r.rows;
}

/**
 * Of `keys`, those another generation of the organization still keeps (a cache hit's copy shares its source's
 * files): found through the cache keys, the only way two generations come to name one blob.
 */
export async function blobsStillHeld(q: Queryable, organizationId: string, cacheKeys: readonly string[], exceptIds: readonly string[], keys: readonly string[]): Promise<Set<string>> {
  if (cacheKeys.length === 0 || keys.length === 0) return new Set();
  const r = await q.query<{ key: string }>(
    `SELECT DISTINCT k.key FROM generations g
       CROSS JOIN LATERAL unnest(ARRAY[g.result->>'input_blob', g.result->>'input_audio_blob']
                                 || coalesce((SELECT array_agg(o.blob_key) FROM generation_outputs o WHERE o.generation_id = g.id), '{}')) AS k(key)
      WHERE g.organization_id = $1 AND g.mode IN ('live', 'test') AND g.cache_key = ANY($2::text[]) AND g.status = 'succeeded'
        AND g.files_expired_at IS NULL AND g.id <> ALL($3::text[]) AND k.key = ANY($4::text[])`,
    [organizationId, cacheKeys, exceptIds, keys],
  );
  return new Set(r.rows.map((x) => x.key));
}

export async function markGenerationFilesExpired(q: Queryable, ids: readonly string[]): Promise<void> {
  await q.query('UPDATE generations SET files_expired_at = now() WHERE id = ANY($1::text[])', [ids]);
}

/** Locks up to `limit` uploads made before `before` whose file is still kept (received or not), with their blobs. */
export async function lockUploadsWithFiles(q: Queryable, organizationId: string, before: Date, limit: number): Promise<Array<{ id: string; blob_key: string | null }>> {
  const r = await q.query<{ id: string; blob_key: string | null }>(
    `SELECT id, blob_key FROM uploads WHERE organization_id = $1 AND created_at < $2 AND file_expired_at IS NULL
      ORDER BY created_at LIMIT $3 FOR UPDATE SKIP LOCKED`,
    [organizationId, before, limit],
  );
  return r.rows;
}

export async function markUploadsExpired(q: Queryable, ids: readonly string[]): Promise<void> {
  await q.query('UPDATE uploads SET file_expired_at = now() WHERE id = ANY($1::text[])', [ids]);
}
