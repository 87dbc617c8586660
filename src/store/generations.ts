import type { Modality } from '../catalog/index.js';
import type { Mode } from '../domain/access.js';
import type { Queryable } from './db.js';
import { insertEvent } from './events.js';

/** The generations and their outputs: rows as the database holds them. */
export type GenerationStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';

export interface GenerationProgress {
  stage: 'queued' | 'running';
  percent?: number;
  queue_position?: number;
  version: number;
}

export interface GenerationRow {
  id: string;
  organization_id: string;
  api_key_id: string;
  mode: Mode;
  modality: Modality;
  model: string;
  status: GenerationStatus;
  sync: boolean;
  prompt: string | null;
  params: Record<string, unknown>;
  price_credits: number;
  /** The version of the model's prices that priced it (reserved, then charged); null before price versions were kept. */
  price_version: string | null;
  reserved_credits: number;
  charged_credits: number;
  refunded_credits: number;
  cache_hit: boolean;
  cache_key: string | null;
  attempt: number;
  provider: string | null;
  upstream_id: string | null;
  upstream_history: Array<{ attempt: number; provider: string | null; upstream_id: string | null }>;
  result: { message?: { role: 'assistant'; content: string }; usage?: { input_tokens: number; output_tokens: number }; finish_reason?: string; input_blob?: string; input_url?: string; input_audio_blob?: string; sent_fields?: string[]; input_size?: { width: number; height: number } } | null;
  error: { type: string; code: string; message: string } | null;
  comparison_id: string | null;
  runner_node: string | null;
  version: number;
  /** The provider's last reported progress of the running attempt; `version` is the generation version its write made. */
  progress: GenerationProgress | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  /** When retention removed the prompt and the request's text (migration 0061); null while kept. */
  prompt_expired_at: Date | null;
  /** When retention deleted its input and output files; null while kept. */
  files_expired_at: Date | null;
}

export interface OutputRow {
  id: string;
  generation_id: string;
  position: number;
  type: string;
  mime: string;
  width: number | null;
  height: number | null;
  duration_s: string | null;
  blob_key: string;
  size_bytes: number;
  moderation_status: string;
}

export async function selectGeneration(q: Queryable, id: string, lock = false): Promise<GenerationRow | null> {
  const r = await q.query<GenerationRow>(`SELECT * FROM generations WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return r.rows[0] ?? null;
}

/** Each generation's outputs in order, for every id asked (an empty list for one without). */
export async function selectOutputs(q: Queryable, generationIds: string[]): Promise<Map<string, OutputRow[]>> {
  const map = new Map<string, OutputRow[]>(generationIds.map((id) => [id, []]));
  if (generationIds.length === 0) return map;
  const r = await q.query<OutputRow>('SELECT * FROM generation_outputs WHERE generation_id = ANY($1) ORDER BY position', [generationIds]);
  for (const o of r.rows) map.get(o.generation_id)?.push(o);
  return map;
}

/** The list position of a generation of this organization and mode, for a cursor; null when there is none. */
export async function generationSeq(q: Queryable, id: string, organizationId: string, mode: Mode): Promise<number | null> {
  const c = await q.query<{ seq: number }>('SELECT seq FROM generations WHERE id = $1 AND organization_id = $2 AND mode = $3', [id, organizationId, mode]);
  return c.rows[0]?.seq ?? null;
}

/** Newest first, before `beforeSeq`; one row more than `limit`, so the caller knows whether more follow. */
export async function selectGenerationPage(
  q: Queryable,
  f: { organizationId: string; mode: Mode; beforeSeq: number; status: string | null; modality: string | null; limit: number },
): Promise<GenerationRow[]> {
  const r = await q.query<GenerationRow>(
    `SELECT * FROM generations WHERE organization_id = $1 AND mode = $2 AND seq < $3
       AND ($4::text IS NULL OR status = $4) AND ($5::text IS NULL OR modality = $5)
     ORDER BY seq DESC LIMIT $6`,
    [f.organizationId, f.mode, f.beforeSeq, f.status, f.modality, f.limit + 1],
  );
  return r.rows;
}

/** Moves a queued generation to running on this node; null when it was not queued any more. */
export async function markRunning(q: Queryable, id: string, nodeId: string): Promise<GenerationRow | null> {
  const moved = await q.query<GenerationRow>(
    `UPDATE generations SET status = 'running', started_at = coalesce(started_at, now()), runner_node = $2, version = version + 1
     WHERE id = $1 AND status = 'queued' RETURNING *`,
    [id, nodeId],
  );
  return moved.rows[0] ?? null;
}

export async function setRunnerNode(q: Queryable, id: string, nodeId: string): Promise<void> {
  await q.query('UPDATE generations SET runner_node = $2 WHERE id = $1', [id, nodeId]);
}

/** Records which provider serves a running attempt now. */
export async function setAttemptProvider(q: Queryable, id: string, attempt: number, provider: string): Promise<void> {
  await q.query(`UPDATE generations SET provider = $2 WHERE id = $1 AND attempt = $3 AND status = 'running'`, [id, provider, attempt]);
}

/** Records a running attempt's upstream job id, unless one is recorded already; whether this one was. */
export async function recordUpstreamId(q: Queryable, id: string, attempt: number, upstreamId: string): Promise<boolean> {
  const recorded = await q.query(
    `UPDATE generations SET upstream_id = $2 WHERE id = $1 AND status = 'running' AND attempt = $3 AND upstream_id IS NULL`,
    [id, upstreamId, attempt],
  );
  return recorded.rowCount === 1;
}

/** Queues a finished generation's next attempt (its job is enqueued by the caller, in the same transaction). */
export async function requeueForAttempt(q: Queryable, id: string, attempt: number, history: GenerationRow['upstream_history']): Promise<void> {
  await q.query(
    `UPDATE generations SET status = 'queued', attempt = $2, upstream_history = $3, upstream_id = NULL, error = NULL,
       reserved_credits = reserved_credits + price_credits, completed_at = NULL, progress = NULL, version = version + 1 WHERE id = $1`,
    [id, attempt, JSON.stringify(history)],
  );
}

/**
 * The running attempt's progress as the provider reported it. It bumps the
 * version like any visible change, so the event streams' watch sees it on
 * every node; the runner bounds how often it is written.
 */
export async function recordProgress(q: Queryable, id: string, attempt: number, progress: Omit<GenerationProgress, 'version'>): Promise<boolean> {
  const r = await q.query(
    `UPDATE generations SET progress = $3::jsonb || jsonb_build_object('version', version + 1), version = version + 1
     WHERE id = $1 AND attempt = $2 AND status = 'running'`,
    [id, attempt, JSON.stringify(progress)],
  );
  return r.rowCount === 1;
}

/** The versions of the given generations, for the event streams' change watch (one query per node per tick). */
export async function generationVersions(q: Queryable, ids: string[]): Promise<Array<{ id: string; version: number }>> {
  const r = await q.query<{ id: string; version: number }>('SELECT id, version FROM generations WHERE id = ANY($1)', [ids]);
  return r.rows;
}

/** A comparison's children in creation order. */
export async function selectComparisonChildren(q: Queryable, comparisonId: string): Promise<GenerationRow[]> {
  return (await q.query<GenerationRow>('SELECT * FROM generations WHERE comparison_id = $1 ORDER BY seq', [comparisonId])).rows;
}

/** Where an output's bytes are, for serving a signed file URL. */
export async function selectOutputBlob(
  q: Queryable,
  outputId: string,
): Promise<{ blob_key: string; mime: string; moderation_status: string; files_expired_at: Date | null } | null> {
  const r = await q.query<{ blob_key: string; mime: string; moderation_status: string; files_expired_at: Date | null }>(
    `SELECT o.blob_key, o.mime, o.moderation_status, g.files_expired_at
       FROM generation_outputs o JOIN generations g ON g.id = o.generation_id WHERE o.id = $1`,
    [outputId],
  );
  return r.rows[0] ?? null;
}

/** The newest succeeded generation with this seeded request's cache key, in this organization and mode. */
export async function selectCacheSource(q: Queryable, organizationId: string, mode: Mode, cacheKey: string): Promise<GenerationRow | null> {
  const r = await q.query<GenerationRow>(
    `SELECT * FROM generations WHERE organization_id = $1 AND mode = $2 AND cache_key = $3 AND status = 'succeeded'
       AND prompt_expired_at IS NULL AND files_expired_at IS NULL
     ORDER BY seq DESC LIMIT 1`,
    [organizationId, mode, cacheKey],
  );
  return r.rows[0] ?? null;
}

/**
 * A cache hit: a succeeded, uncharged copy of `source` whose outputs point at the same blobs, with its
 * `generation.completed` event (charged_credits 0), so a webhook-driven client hears of it like of any other
 * generation (contract §7). Call inside a transaction: the copy and its event are one fact.
 */
export async function insertCacheCopy(
  q: Queryable,
  copy: {
    id: string; organizationId: string; apiKeyId: string; mode: Mode; modality: Modality; model: string; sync: boolean;
    prompt: string | null; params: Record<string, unknown>; cacheKey: string; newOutputId: () => string; eventId: string;
  },
  source: GenerationRow,
  outputs: readonly OutputRow[],
): Promise<boolean> {
  // The source is held until the copy commits, so retention cannot delete the files the copy is about to share; one
  // whose prompt or files retention took meanwhile is no source (false: nothing written).
  const held = await q.query('SELECT 1 FROM generations WHERE id = $1 AND prompt_expired_at IS NULL AND files_expired_at IS NULL FOR SHARE', [source.id]);
  if (held.rows.length === 0) return false;
  await q.query(
    `INSERT INTO generations (id, organization_id, api_key_id, mode, modality, model, status, sync, prompt, params,
       cache_hit, cache_key, provider, result, started_at, completed_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'succeeded', $7, $8, $9, true, $10, $11, $12, now(), now())`,
    [copy.id, copy.organizationId, copy.apiKeyId, copy.mode, copy.modality, copy.model, copy.sync, copy.prompt,
      JSON.stringify(copy.params), copy.cacheKey, source.provider, source.result ? JSON.stringify(source.result) : null],
  );
  for (const o of outputs) {
    await q.query(
      `INSERT INTO generation_outputs (id, generation_id, position, type, mime, width, height, duration_s, blob_key, size_bytes, moderation_status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [copy.newOutputId(), copy.id, o.position, o.type, o.mime, o.width, o.height, o.duration_s, o.blob_key, o.size_bytes, o.moderation_status],
    );
  }
  // The same data as a finished generation's event (store/finishing.ts); a cache copy is never a comparison child.
  await insertEvent(q, {
    id: copy.eventId, organizationId: copy.organizationId, mode: copy.mode, type: 'generation.completed',
    data: { generation_id: copy.id, modality: copy.modality, status: 'succeeded', charged_credits: 0 },
  });
  return true;
}
