/**
 * Files glossary
 * - blob: the bytes of a stored file, under a key like `outputs/gen_…/out_….png`.
 *   Files are kept; only the URLs that point at them expire.
 * - signed URL: `{public_url}/files/{name}?expires=…&signature=…`, an HMAC over
 *   the path and the expiry, made afresh every time a generation is read.
 */
export interface BlobStore {
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** null when there is no such blob. */
  get(key: string): Promise<{ bytes: Buffer; contentType: string } | null>;
  delete(key: string): Promise<void>;
}

export type SignatureCheck = 'ok' | 'expired' | 'invalid';

export interface UrlSigner {
  /** An absolute URL for `path` (starting with /) valid for ttlSeconds. */
  sign(path: string, ttlSeconds?: number, extra?: Record<string, string>): string;
  /** Checks `expires` and `signature` of a request for `path` (extra params are covered by the signature). */
  verify(path: string, query: Record<string, string | undefined>, extraKeys?: string[]): SignatureCheck;
}
