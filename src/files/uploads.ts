import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Db } from '../store/db.js';
import type { FileLinks } from './links.js';
import type { BlobStore, UrlSigner } from './types.js';
import type { Principal } from '../domain/access.js';
import { ApiError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { formatDurationMs, probeAudioVideo, probeImage, sniffImageMime } from '../media/index.js';
import { probeAudio } from './audio-input.js';
import { findUpload, findUploadOf, insertUpload, lockUpload, markUploaded, type UploadRow } from '../store/uploads.js';
import { incomingUploadKey } from './links.js';
import { FetchFailed, FetchRefused, safeFetch } from './safe-fetch.js';

/** Reading an upload, or an input image by upload or URL; a direct (presigned) upload is completed on first read. */
export interface UploadPorts {
  blobs: BlobStore;
  config: Pick<Config, 's3' | 'allowPrivateNetwork'>;
  db: Db;
  log: Logger;
}
/** A new upload and the URL it is sent to. */
export interface NewUploadPorts {
  db: Db;
  links: FileLinks;
}
/** An upload's bytes, sent to mmgen's own signed URL. */
export interface ReceiveUploadPorts {
  blobs: BlobStore;
  db: Db;
  signer: UrlSigner;
}

/**
 * Uploads glossary
 * - upload: a place for one input image, created by `POST /v1/uploads` with a
 *   declared type and size, filled by one presigned `PUT /uploads/{id}`.
 * - upload URL: signed over `/uploads/{id}`, valid 15 minutes; the signature
 *   is the only credential the PUT needs, so browsers can upload directly.
 *   With S3 in presigned mode it is an S3 presigned PUT instead (see
 *   completeDirectUpload).
 * Uploaded files are kept after the URL expires: generations refer to them by id.
 */

export const IMAGE_CONTENT_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
/** Speech for an avatar (`audio_upload_id`), checked for real content as images are. */
export const AUDIO_CONTENT_TYPES = ['audio/mpeg', 'audio/wav'] as const;
export const UPLOAD_CONTENT_TYPES = [...IMAGE_CONTENT_TYPES, ...AUDIO_CONTENT_TYPES] as const;
export type UploadContentType = (typeof UPLOAD_CONTENT_TYPES)[number];
const isAudio = (type: string): type is (typeof AUDIO_CONTENT_TYPES)[number] => (AUDIO_CONTENT_TYPES as readonly string[]).includes(type);
/** Longest speech an audio upload may hold: what an audio-driven avatar is reserved for (generations/modalities.ts). */
export const MAX_AUDIO_UPLOAD_S = 60;
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;
export const UPLOAD_URL_TTL_SECONDS = 15 * 60;
/** Largest image mmgen downloads from an image_url (same as an upload). */
export const MAX_IMAGE_URL_BYTES = MAX_UPLOAD_BYTES;
export const IMAGE_URL_TIMEOUT_MS = 15_000;

export interface UploadView {
  id: string;
  object: 'upload';
  status: 'pending' | 'uploaded';
  content_type: UploadContentType;
  /** Declared while pending; the size received once uploaded. */
  size_bytes: number;
  width: number | null;
  height: number | null;
  /** An audio upload's length in seconds (e.g. "4.32"), once uploaded; null for images. */
  duration_s: string | null;
  livemode: boolean;
  /** When the upload URL stops working (the file, once uploaded, is kept). */
  expires_at: string;
  created_at: string;
  uploaded_at: string | null;
  /** When the organization's file retention deleted the file; null while kept. */
  file_expired_at: string | null;
}

export interface CreatedUploadView extends UploadView {
  upload_url: string;
  method: 'PUT';
  /** Content-Length too when the PUT goes straight to S3, which checks it exactly. */
  headers: { 'Content-Type': string; 'Content-Length'?: string };
}

function toView(r: UploadRow): UploadView {
  return {
    id: r.id,
    object: 'upload',
    status: r.status,
    content_type: r.content_type,
    size_bytes: r.size_bytes,
    width: r.width,
    height: r.height,
    duration_s: r.duration_ms === null ? null : formatDurationMs(r.duration_ms),
    livemode: r.mode === 'live',
    expires_at: r.expires_at.toISOString(),
    created_at: r.created_at.toISOString(),
    uploaded_at: r.uploaded_at ? r.uploaded_at.toISOString() : null,
    file_expired_at: r.file_expired_at?.toISOString() ?? null,
  };
}

/** 410: retention deleted this upload's file (`param` names the field that gave its id, when one did). */
function uploadExpired(row: UploadRow, param?: string): ApiError {
  return new ApiError(
    'file_expired',
    `Upload ${row.id}'s file was deleted on ${row.file_expired_at!.toISOString()} under the organization's file retention (file_days); upload it again.`,
    param,
  );
}

export const uploadPath = (id: string): string => `/uploads/${id}`;

export async function createUpload(
  deps: NewUploadPorts,
  principal: Principal,
  input: { content_type: UploadContentType; size_bytes: number },
): Promise<CreatedUploadView> {
  const id = newId('upl');
  const target = await deps.links.upload(id, input.content_type, input.size_bytes, UPLOAD_URL_TTL_SECONDS);
  const row = await insertUpload(deps.db, {
    id,
    organizationId: principal.organizationId,
    apiKeyId: principal.keyId,
    mode: principal.mode,
    contentType: input.content_type,
    sizeBytes: input.size_bytes,
    expiresAt: target.expiresAt,
  });
  return { ...toView(row), upload_url: target.url, method: 'PUT', headers: target.headers };
}

function uploadOf(deps: Pick<UploadPorts, 'db'>, principal: Principal, id: string): Promise<UploadRow | null> {
  return findUploadOf(deps.db, id, principal.organizationId, principal.mode);
}

export async function getUpload(deps: UploadPorts, principal: Principal, id: string): Promise<UploadView> {
  let row = await uploadOf(deps, principal, id);
  if (!row) throw notFound('upload', id);
  if (row.status === 'pending' && directUploads(deps) && !row.file_expired_at) {
    // A file that fails the checks leaves the upload pending; using it in a generation says why.
    row = await completeDirectUpload(deps, row).catch((err: unknown) => {
      if (err instanceof ApiError) return row!;
      throw err;
    });
  }
  return toView(row);
}

/** Whether upload PUTs go straight to the blob store (S3 presigned) rather than through mmgen. */
function directUploads(deps: Pick<UploadPorts, 'blobs' | 'config'>): boolean {
  return deps.config.s3?.urls === 'presigned' && deps.blobs.presigner !== undefined;
}

/**
 * A direct upload's bytes arrive in the blob store without mmgen seeing them:
 * S3 already held the PUT to the declared Content-Type and size, and the
 * first read after it (GET, or a generation naming it) applies mmgen's own
 * checks and copies the file to its final key, where a later PUT to the same
 * presigned URL cannot replace it. Returns the row unchanged while nothing
 * has arrived; throws 400/413 when what arrived is not acceptable.
 */
async function completeDirectUpload(deps: UploadPorts, row: UploadRow): Promise<UploadRow> {
  const incoming = await deps.blobs.get(incomingUploadKey(row.id));
  if (!incoming) return row;
  const { bytes, probe } = await checkUploadBytes(row, incoming.contentType, incoming.bytes);
  const done = await storeUpload(deps, row, bytes, probe);
  await deps.blobs.delete(incomingUploadKey(row.id)).catch((err: unknown) => deps.log.warn({ err, uploadId: row.id }, 'could not delete an incoming upload'));
  return done;
}

/** Throws 403 signature_invalid unless the query signs `path` and has not expired. */
export function checkSignature(deps: Pick<ReceiveUploadPorts, 'signer'>, path: string, query: Record<string, string | undefined>, what: string): void {
  const check = deps.signer.verify(path, query);
  if (check === 'expired') throw new ApiError('signature_invalid', `This ${what} URL has expired.`);
  if (check !== 'ok') throw new ApiError('signature_invalid', `This ${what} URL's signature is missing or invalid.`);
}

/** "image/png; charset=x" → "image/png" */
function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/**
 * The presigned PUT. Checks, in order: signature (403), the upload exists
 * (404), a repeat after success (200 when the same bytes, 409 otherwise),
 * Content-Type (400), size (413 over the declared size, 400 when empty), real
 * image content of the declared type (400).
 */
export async function receiveUpload(
  deps: ReceiveUploadPorts,
  id: string,
  query: Record<string, string | undefined>,
  contentType: string | undefined,
  body: Buffer | undefined,
): Promise<UploadView> {
  checkSignature(deps, uploadPath(id), query, 'upload');
  const bytes = Buffer.isBuffer(body) ? body : Buffer.alloc(0);
  const row = await findUpload(deps.db, id);
  if (!row) throw notFound('upload', id);
  if (row.file_expired_at) throw uploadExpired(row);
  if (row.status === 'uploaded') return repeatedPut(row, bytes);
  const checked = await checkUploadBytes(row, contentType, bytes);
  const done = await storeUpload(deps, row, checked.bytes, checked.probe);
  if (done.sha256 !== sha256(bytes)) return repeatedPut(done, bytes);
  return toView(done);
}

/** What was found in an upload's bytes: an image's size, or an audio file's length. */
interface FileProbe {
  width: number | null;
  height: number | null;
  durationMs: number | null;
}

/** Content-Type (400), size (413 over the declared size, 400 when empty), real content of the declared type (400). */
async function checkUploadBytes(row: Pick<UploadRow, 'content_type' | 'size_bytes'>, contentType: string | undefined, bytes: Buffer): Promise<{ bytes: Buffer; probe: FileProbe }> {
  const type = mediaType(contentType);
  if (type !== row.content_type) {
    throw new ApiError(
      'parameter_invalid',
      `This upload was declared as ${row.content_type}; send the file with Content-Type: ${row.content_type}${type ? `, not ${type}` : ''}.`,
      'Content-Type',
    );
  }
  if (bytes.length > row.size_bytes) {
    throw new ApiError('payload_too_large', `The file is ${bytes.length} bytes, more than the ${row.size_bytes} declared for this upload.`);
  }
  if (bytes.length === 0) throw new ApiError('parameter_invalid', 'The upload body is empty.');
  if (isAudio(row.content_type)) return { bytes, probe: await checkAudio(row.content_type, bytes) };
  const probe = await probeImage(bytes);
  if (!probe) throw new ApiError('parameter_invalid', `The file is not a valid, complete ${row.content_type} image.`);
  if (probe.mime !== row.content_type) {
    throw new ApiError('parameter_invalid', `The file is ${probe.mime}, but this upload was declared as ${row.content_type}.`);
  }
  return { bytes, probe: { width: probe.width, height: probe.height, durationMs: null } };
}

/**
 * An audio upload is what it is declared to be by its first bytes, and real: ffmpeg reads a length from it (a
 * header with nothing playable after it has none), at most MAX_AUDIO_UPLOAD_S.
 */
async function checkAudio(declared: (typeof AUDIO_CONTENT_TYPES)[number], bytes: Buffer): Promise<FileProbe> {
  const found = probeAudio(bytes);
  if (found !== declared) {
    throw new ApiError('parameter_invalid', found ? `The file is ${found}, but this upload was declared as ${declared}.` : `The file is not ${declared} audio.`);
  }
  const { durationS } = await probeAudioVideo(bytes);
  if (!durationS || durationS <= 0) throw new ApiError('parameter_invalid', `The file is not a valid, playable ${declared} file.`);
  if (durationS > MAX_AUDIO_UPLOAD_S) throw new ApiError('parameter_invalid', `The audio lasts ${durationS.toFixed(1)} s; an avatar takes at most ${MAX_AUDIO_UPLOAD_S} s.`);
  return { width: null, height: null, durationMs: Math.round(durationS * 1000) };
}

/** Stores checked bytes as the upload's file and marks it uploaded; a racing store that came first wins (its row is returned). */
async function storeUpload(deps: Pick<ReceiveUploadPorts, 'blobs' | 'db'>, row: Pick<UploadRow, 'id' | 'content_type'>, bytes: Buffer, probe: FileProbe): Promise<UploadRow> {
  const id = row.id;
  const digest = sha256(bytes);
  const blobKey = `uploads/${id}`;
  // The row lock makes two racing PUTs take turns, so the blob always holds the bytes the row describes.
  return deps.db.tx(async (q) => {
    const locked = (await lockUpload(q, id))!;
    // Retention took it while the bytes were being checked: nothing is stored for a row that says it is gone.
    if (locked.file_expired_at) throw uploadExpired(locked);
    if (locked.status === 'uploaded') return locked;
    await deps.blobs.put(blobKey, bytes, row.content_type);
    return markUploaded(q, id, { sizeBytes: bytes.length, width: probe.width, height: probe.height, durationMs: probe.durationMs, blobKey, sha256: digest });
  });
}

/** An image sent inside a request, checked (requestImage) and ready to be kept as an upload (keepRequestImage). */
export interface RequestImage {
  bytes: Buffer;
  contentType: (typeof IMAGE_CONTENT_TYPES)[number];
  width: number;
  height: number;
}

/**
 * An image sent inside a request (a multipart part, POST /v1/images/edits) held to the checks of an upload PUT:
 * at most MAX_UPLOAD_BYTES (413), a complete PNG, JPEG or WebP by its content (400 naming `param`), and, when the
 * part declares an image type, that type. A part declared as application/octet-stream is judged by its content.
 */
export async function requestImage(bytes: Buffer, declared: string | undefined, param: string): Promise<RequestImage> {
  if (bytes.length > MAX_UPLOAD_BYTES) throw new ApiError('payload_too_large', `The ${param} file is larger than ${MAX_UPLOAD_BYTES / (1024 * 1024)} MiB.`);
  const type = mediaType(declared);
  const found = sniffImageMime(bytes);
  const claimed = (IMAGE_CONTENT_TYPES as readonly string[]).includes(type) ? type : found;
  if (!claimed || !(IMAGE_CONTENT_TYPES as readonly string[]).includes(claimed)) {
    throw new ApiError('parameter_invalid', `The ${param} file must be a PNG, JPEG or WebP image.`, param);
  }
  try {
    const checked = await checkUploadBytes({ content_type: claimed as UploadContentType, size_bytes: MAX_UPLOAD_BYTES }, claimed, bytes);
    return { bytes, contentType: claimed as RequestImage['contentType'], width: checked.probe.width!, height: checked.probe.height! };
  } catch (err) {
    if (err instanceof ApiError && err.code === 'parameter_invalid') throw new ApiError('parameter_invalid', `The ${param} file: ${err.message}`, param);
    throw err;
  }
}

/** A checked request image kept as an upload of the caller (`id` chosen by the caller), so a generation takes it by upload_id. */
export async function keepRequestImage(deps: Pick<ReceiveUploadPorts, 'blobs' | 'db'>, principal: Principal, id: string, image: RequestImage): Promise<void> {
  const row = await insertUpload(deps.db, {
    id,
    organizationId: principal.organizationId,
    apiKeyId: principal.keyId,
    mode: principal.mode,
    contentType: image.contentType,
    sizeBytes: image.bytes.length,
    // Never PUT to: it arrives with the request.
    expiresAt: new Date(),
  });
  await storeUpload(deps, row, image.bytes, { width: image.width, height: image.height, durationMs: null });
}

/** A PUT is idempotent: resending the file that is already there (e.g. after a lost response) succeeds. */
function repeatedPut(row: UploadRow, bytes: Buffer): UploadView {
  if (row.sha256 === sha256(bytes)) return toView(row);
  throw new ApiError('upload_already_completed', `Upload ${row.id} already holds a file; create a new upload for another file.`);
}

export interface ResolvedImage {
  bytes: Buffer;
  mime: string;
  width: number;
  height: number;
  /** The caller's `image_url`, when the image came from one. */
  url?: string | undefined;
}

/**
 * The input image of a generation: an upload of the caller's organization and
 * mode, or an image_url fetched under the address guard. Every problem is a
 * 4xx naming the field, so a user can tell a bad id from a bad URL.
 */
export async function resolveImageInput(
  deps: UploadPorts,
  principal: Principal,
  input: { upload_id?: string | undefined; image_url?: string | undefined },
): Promise<ResolvedImage> {
  if (input.upload_id !== undefined && input.image_url !== undefined) {
    throw new ApiError('parameter_invalid', 'Give either upload_id or image_url, not both.', 'image_url');
  }
  if (input.upload_id !== undefined) return imageFromUpload(deps, principal, input.upload_id);
  if (input.image_url !== undefined) return imageFromUrl(deps, input.image_url);
  throw new ApiError('parameter_missing', 'An input image is needed: upload_id or image_url.', 'upload_id');
}

async function imageFromUpload(deps: UploadPorts, principal: Principal, id: string): Promise<ResolvedImage> {
  const { row, blob } = await uploadedFile(deps, principal, id, 'upload_id');
  if (isAudio(row.content_type)) throw new ApiError('parameter_invalid', `Upload ${id} holds ${row.content_type}, not an image; an avatar's speech goes in audio_upload_id.`, 'upload_id');
  return { bytes: blob.bytes, mime: row.content_type, width: row.width!, height: row.height! };
}

/** An avatar's speech given as an upload (`audio_upload_id`): an audio upload of the caller's organization and mode. */
export async function audioFromUpload(deps: UploadPorts, principal: Principal, id: string): Promise<{ bytes: Buffer; mime: string }> {
  const { row, blob } = await uploadedFile(deps, principal, id, 'audio_upload_id');
  if (!isAudio(row.content_type)) throw new ApiError('parameter_invalid', `Upload ${id} holds ${row.content_type}, not audio (audio/mpeg or audio/wav).`, 'audio_upload_id');
  return { bytes: blob.bytes, mime: row.content_type };
}

/** An upload's row and file, once it has received one (a direct upload is completed on this first read). */
async function uploadedFile(deps: UploadPorts, principal: Principal, id: string, param: string): Promise<{ row: UploadRow; blob: { bytes: Buffer } }> {
  let row = await uploadOf(deps, principal, id);
  if (!row) throw new ApiError('resource_not_found', `No such upload: '${id}'`, param);
  if (row.file_expired_at) throw uploadExpired(row, param);
  if (row.status === 'pending' && directUploads(deps)) {
    const pending = row;
    row = await completeDirectUpload(deps, pending).catch((err: unknown) => {
      if (err instanceof ApiError) throw new ApiError('parameter_invalid', `Upload ${id} received a file that cannot be used: ${err.message}`, param);
      throw err;
    });
  }
  if (row.status !== 'uploaded') {
    const expired = row.expires_at.getTime() < Date.now();
    throw new ApiError(
      'parameter_invalid',
      expired
        ? `Upload ${id} never received its file and its URL has expired; create a new upload.`
        : `Upload ${id} has not received its file yet; PUT the file to its upload_url first.`,
      param,
    );
  }
  const blob = await deps.blobs.get(row.blob_key!);
  if (!blob) throw new Error(`upload ${id} is marked uploaded but its blob ${row.blob_key} is missing`);
  return { row, blob };
}

async function imageFromUrl(deps: UploadPorts, url: string): Promise<ResolvedImage> {
  const fail = (why: string) => new ApiError('parameter_invalid', `image_url could not be used: ${why}.`, 'image_url');
  let res;
  try {
    res = await safeFetch(url, {
      allowPrivateNetwork: deps.config.allowPrivateNetwork,
      maxBytes: MAX_IMAGE_URL_BYTES,
      timeoutMs: IMAGE_URL_TIMEOUT_MS,
      headers: { accept: IMAGE_CONTENT_TYPES.join(', ') },
    });
  } catch (err) {
    if (err instanceof FetchRefused) throw fail(err.message);
    if (err instanceof FetchFailed) {
      if (err.reason === 'too_large') throw fail(`the image is larger than ${MAX_IMAGE_URL_BYTES / (1024 * 1024)} MiB`);
      if (err.reason === 'timeout') throw fail(`no complete answer within ${IMAGE_URL_TIMEOUT_MS / 1000} seconds`);
      throw fail(err.message);
    }
    throw err;
  }
  if (res.status < 200 || res.status >= 300) throw fail(`the server answered HTTP ${res.status}`);
  // The bytes decide the type; a Content-Type header from the other server proves nothing.
  const probe = await probeImage(res.body);
  if (!probe) throw fail('the response is not a valid PNG, JPEG or WebP image');
  return { bytes: res.body, mime: probe.mime, width: probe.width, height: probe.height, url };
}
