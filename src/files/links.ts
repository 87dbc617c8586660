import type { Config } from '../config.js';
import { DEFAULT_URL_TTL_SECONDS } from './signing.js';
import type { BlobPresigner, BlobStore, UrlSigner } from './types.js';

/** Where an upload's bytes go, and how. */
export interface UploadTarget {
  url: string;
  /** Headers the PUT must carry. */
  headers: { 'Content-Type': string; 'Content-Length'?: string };
  /** When the URL stops working. */
  expiresAt: Date;
  /**
   * true: the PUT goes to the blob store itself (an S3 presigned PUT), under
   * `incomingUploadKey(id)`; mmgen checks the bytes when the upload is next read.
   * false: the PUT goes to mmgen, which checks them on arrival.
   */
  direct: boolean;
}

/**
 * The URLs mmgen hands out for files: mmgen-signed URLs that mmgen serves
 * (the disk store, or S3 with MMGEN_S3_URLS=proxy), or presigned URLs straight
 * to S3 (MMGEN_S3_URLS=presigned).
 */
export interface FileLinks {
  /**
   * A fresh URL of a generation output (`fileName` is its public name, `out_….png`). A `held` file (moderation
   * blocked it, or its verdict is pending) always gets mmgen's own URL, which answers 451 or 409: never a presigned
   * URL straight to S3, which would hand out the bytes. An `expired` file (retention deleted it) gets mmgen's URL
   * too, which answers 410 `file_expired` where S3 would answer its own 404.
   */
  output(o: { fileName: string; blobKey: string; mime: string; held?: boolean; expired?: boolean }): Promise<string>;
  upload(id: string, contentType: string, sizeBytes: number, ttlSeconds: number): Promise<UploadTarget>;
}

/** Where a direct (presigned) upload lands before mmgen has checked it; the checked file is copied to `uploads/{id}`. */
export const incomingUploadKey = (id: string): string => `incoming/uploads/${id}`;

export function createFileLinks(config: Config, signer: UrlSigner, blobs: BlobStore): FileLinks {
  const presigner: BlobPresigner | undefined = config.s3?.urls === 'presigned' ? blobs.presigner : undefined;
  const signedUpload = (id: string, contentType: string, ttlSeconds: number): UploadTarget => {
    const url = signer.sign(`/uploads/${id}`, ttlSeconds);
    // The row's expiry is the signature's, to the second, so GET and the PUT never disagree.
    const expiresAt = new Date(Number(new URL(url).searchParams.get('expires')) * 1000);
    return { url, headers: { 'Content-Type': contentType }, expiresAt, direct: false };
  };
  if (!presigner) {
    return {
      output: async (o) => signer.sign(`/files/${o.fileName}`),
      upload: async (id, contentType, _size, ttlSeconds) => signedUpload(id, contentType, ttlSeconds),
    };
  }
  return {
    output: async (o) => (o.held || o.expired ? signer.sign(`/files/${o.fileName}`) : presigner.getUrl(o.blobKey, DEFAULT_URL_TTL_SECONDS, o.mime)),
    upload: async (id, contentType, sizeBytes, ttlSeconds) => {
      const url = await presigner.putUrl(incomingUploadKey(id), ttlSeconds, contentType, sizeBytes);
      return { url, headers: { 'Content-Type': contentType, 'Content-Length': String(sizeBytes) }, expiresAt: presignedExpiry(url), direct: true };
    },
  };
}

/** X-Amz-Date + X-Amz-Expires of a SigV4 presigned URL: the expiry S3 enforces, to the second. */
function presignedExpiry(url: string): Date {
  const q = new URL(url).searchParams;
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(q.get('X-Amz-Date') ?? '');
  if (!m) throw new Error('presigned URL without X-Amz-Date');
  const signedAt = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  return new Date(signedAt + Number(q.get('X-Amz-Expires')) * 1000);
}
