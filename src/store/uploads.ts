import type { Mode } from '../domain/access.js';
import type { Queryable } from './db.js';

export interface UploadRow {
  id: string;
  organization_id: string;
  mode: Mode;
  content_type: 'image/png' | 'image/jpeg' | 'image/webp' | 'audio/mpeg' | 'audio/wav';
  size_bytes: number;
  status: 'pending' | 'uploaded';
  width: number | null;
  height: number | null;
  /** An audio upload's length. */
  duration_ms: number | null;
  blob_key: string | null;
  sha256: string | null;
  expires_at: Date;
  created_at: Date;
  uploaded_at: Date | null;
  /** When retention deleted the file (migration 0061); null while kept. */
  file_expired_at: Date | null;
}

export interface NewUpload {
  id: string;
  organizationId: string;
  apiKeyId: string;
  mode: UploadRow['mode'];
  contentType: UploadRow['content_type'];
  sizeBytes: number;
  expiresAt: Date;
}

export interface ReceivedFile {
  sizeBytes: number;
  /** An image's size, or null for audio. */
  width: number | null;
  height: number | null;
  /** An audio file's length, or null for an image. */
  durationMs: number | null;
  blobKey: string;
  sha256: string;
}

const COLUMNS = 'id, organization_id, mode, content_type, size_bytes, status, width, height, duration_ms, blob_key, sha256, expires_at, created_at, uploaded_at, file_expired_at';

export async function insertUpload(q: Queryable, u: NewUpload): Promise<UploadRow> {
  const r = await q.query<UploadRow>(
    `INSERT INTO uploads (id, organization_id, api_key_id, mode, content_type, size_bytes, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
    [u.id, u.organizationId, u.apiKeyId, u.mode, u.contentType, u.sizeBytes, u.expiresAt],
  );
  return r.rows[0]!;
}

/** The upload, when it belongs to this organization and mode. */
export async function findUploadOf(q: Queryable, id: string, organizationId: string, mode: UploadRow['mode']): Promise<UploadRow | null> {
  const r = await q.query<UploadRow>(`SELECT ${COLUMNS} FROM uploads WHERE id = $1 AND organization_id = $2 AND mode = $3`, [
    id,
    organizationId,
    mode,
  ]);
  return r.rows[0] ?? null;
}

/** Whoever it belongs to: for the presigned PUT, whose signature is its only credential. */
export async function findUpload(q: Queryable, id: string): Promise<UploadRow | null> {
  const r = await q.query<UploadRow>(`SELECT ${COLUMNS} FROM uploads WHERE id = $1`, [id]);
  return r.rows[0] ?? null;
}

/** The row, locked until q's transaction ends. */
export async function lockUpload(q: Queryable, id: string): Promise<UploadRow | null> {
  const r = await q.query<UploadRow>(`SELECT ${COLUMNS} FROM uploads WHERE id = $1 FOR UPDATE`, [id]);
  return r.rows[0] ?? null;
}

export async function markUploaded(q: Queryable, id: string, file: ReceivedFile): Promise<UploadRow> {
  const r = await q.query<UploadRow>(
    `UPDATE uploads SET status = 'uploaded', size_bytes = $2, width = $3, height = $4, duration_ms = $7, blob_key = $5, sha256 = $6, uploaded_at = now()
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, file.sizeBytes, file.width, file.height, file.blobKey, file.sha256, file.durationMs],
  );
  return r.rows[0]!;
}
