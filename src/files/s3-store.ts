import { DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadBucketCommand, PutObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Config } from '../config.js';
import { assertBlobKey, MAX_DELETE_BATCH, type BlobPresigner, type BlobStore } from './types.js';

type Credentials = S3ClientConfig['credentials'];

/**
 * Blobs in an S3 bucket (AWS S3, MinIO, or any S3-compatible server), through
 * @aws-sdk/client-s3. Credentials come from the standard AWS chain unless
 * given (tests). Every node of an installation sees the same files.
 */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3';
  readonly presigner: BlobPresigner;
  private readonly client: S3Client;
  /** Signs URLs for the endpoint clients reach (MMGEN_S3_PUBLIC_ENDPOINT); the same client when there is only one. */
  private readonly publicClient: S3Client;

  constructor(
    private readonly config: S3Config,
    opts: { credentials?: Credentials } = {},
  ) {
    const base: S3ClientConfig = {
      region: config.region,
      forcePathStyle: config.forcePathStyle,
      ...(opts.credentials ? { credentials: opts.credentials } : {}),
      // S3-compatible servers do not all understand the SDK's default CRC32
      // checksums (nor do presigned PUTs, whose body is unknown when signing).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { connectionTimeout: 3_000, requestTimeout: 30_000 },
      maxAttempts: 3,
    };
    this.client = new S3Client({ ...base, ...(config.endpoint ? { endpoint: config.endpoint } : {}) });
    this.publicClient = config.publicEndpoint ? new S3Client({ ...base, endpoint: config.publicEndpoint }) : this.client;
    this.presigner = {
      getUrl: (key, ttlSeconds, contentType) =>
        getSignedUrl(
          this.publicClient,
          new GetObjectCommand({
            Bucket: config.bucket,
            Key: this.objectKey(key),
            ResponseContentType: contentType,
            // The URL is a bearer credential for one reader (as mmgen's own signed URLs).
            ResponseCacheControl: `private, max-age=${ttlSeconds}`,
          }),
          { expiresIn: ttlSeconds },
        ),
      putUrl: (key, ttlSeconds, contentType, contentLength) =>
        getSignedUrl(
          this.publicClient,
          new PutObjectCommand({ Bucket: config.bucket, Key: this.objectKey(key), ContentType: contentType, ContentLength: contentLength }),
          // Signed headers are conditions: S3 refuses a PUT whose Content-Type or Content-Length differ.
          { expiresIn: ttlSeconds, signableHeaders: new Set(['content-type', 'content-length']) },
        ),
    };
  }

  private objectKey(key: string): string {
    assertBlobKey(key);
    return `${this.config.prefix}${key}`;
  }

  async put(key: string, bytes: Buffer, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key), Body: bytes, ContentType: contentType, ContentLength: bytes.length }),
    );
  }

  async get(key: string): Promise<{ bytes: Buffer; contentType: string } | null> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }));
      const bytes = Buffer.from(await r.Body!.transformToByteArray());
      return { bytes, contentType: r.ContentType ?? 'application/octet-stream' };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }));
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /** One DeleteObjects request (S3 answers a missing key as deleted); a key S3 could not delete fails the call. */
  async deleteMany(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    if (keys.length > MAX_DELETE_BATCH) throw new Error(`at most ${MAX_DELETE_BATCH} keys a call`);
    const r = await this.client.send(
      new DeleteObjectsCommand({ Bucket: this.config.bucket, Delete: { Objects: keys.map((k) => ({ Key: this.objectKey(k) })), Quiet: true } }),
    );
    const failed = (r.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
    if (failed.length > 0) throw new Error(`S3 could not delete ${failed.length} of ${keys.length} objects: ${failed[0]!.Key} (${failed[0]!.Code})`);
  }

  async ping(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.config.bucket }));
  }

  close(): void {
    this.client.destroy();
    if (this.publicClient !== this.client) this.publicClient.destroy();
  }
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}
