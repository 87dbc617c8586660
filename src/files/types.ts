/**
 * Files glossary
 * - blob: the bytes of a stored file, under a key like `outputs/gen_…/out_….png`.
 *   Files are kept as long as the organization's `file_days` says (forever by
 *   default); the URLs that point at them expire sooner.
 * - signed URL: `{public_url}/files/{name}?expires=…&signature=…`, an HMAC over
 *   the path and the expiry, made afresh every time a generation is read and
 *   served by mmgen from the blob store.
 * - presigned URL: a URL straight to the blob store (S3's own signature), so
 *   the bytes never pass through mmgen.
 */
export interface BlobStore {
  /** `disk` or `s3`, for logs and metrics. */
  readonly kind: string;
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** null when there is no such blob. */
  get(key: string): Promise<{ bytes: Buffer; contentType: string } | null>;
  /** Deleting a blob that does not exist is not an error. */
  delete(key: string): Promise<void>;
  /** Deletes up to MAX_DELETE_BATCH blobs in as few round trips as the store allows; missing ones are not an error. */
  deleteMany(keys: readonly string[]): Promise<void>;
  /** Throws when the store cannot be reached or used (readiness). */
  ping(): Promise<void>;
  /** URLs that reach the store directly, for stores that can make them (S3). */
  readonly presigner?: BlobPresigner;
}

/** S3's DeleteObjects takes at most 1000 keys a request. */
export const MAX_DELETE_BATCH = 1000;

export interface BlobPresigner {
  /** A GET of `key` valid for ttlSeconds, answered with `contentType`. */
  getUrl(key: string, ttlSeconds: number, contentType: string): Promise<string>;
  /** A PUT of `key` valid for ttlSeconds that the store accepts only with exactly this Content-Type and Content-Length. */
  putUrl(key: string, ttlSeconds: number, contentType: string, contentLength: number): Promise<string>;
}

export type SignatureCheck = 'ok' | 'expired' | 'invalid';

export interface UrlSigner {
  /** An absolute URL for `path` (starting with /) valid for ttlSeconds. */
  sign(path: string, ttlSeconds?: number, extra?: Record<string, string>): string;
  /** Checks `expires` and `signature` of a request for `path` (extra params are covered by the signature). */
  verify(path: string, query: Record<string, string | undefined>, extraKeys?: string[]): SignatureCheck;
}

/** Blob keys are plain relative paths: no `..`, no absolute paths, nothing a store could read outside its root. */
export function assertBlobKey(key: string): void {
  if (!/^[A-Za-z0-9_\-./]+$/.test(key) || key.includes('..') || key.startsWith('/')) throw new Error(`invalid blob key: ${key}`);
}
