import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions, Transport } from '../core/transport.js';
import { segment } from '../core/util.js';
import { MmgenError } from '../errors.js';
import type { CreatedUpload, Upload, UploadContentType, UploadCreateParams } from '../types.js';

/** A file's bytes: a Blob or File (browsers, Node's fs.openAsBlob), an ArrayBuffer, a Uint8Array or Buffer. */
export type UploadFile = Blob | ArrayBuffer | ArrayBufferView;

const TYPES: readonly UploadContentType[] = ['image/png', 'image/jpeg', 'image/webp'];

async function headOf(file: UploadFile, n: number): Promise<Uint8Array> {
  if (file instanceof Blob) return new Uint8Array(await file.slice(0, n).arrayBuffer());
  if (file instanceof ArrayBuffer) return new Uint8Array(file, 0, Math.min(n, file.byteLength));
  return new Uint8Array(file.buffer, file.byteOffset, Math.min(n, file.byteLength));
}

function sizeOf(file: UploadFile): number {
  return file instanceof Blob ? file.size : file.byteLength;
}

/** The image type of `file`: its Blob type when that is one mmgen takes, else what its first bytes say. */
export async function detectImageType(file: UploadFile): Promise<UploadContentType | undefined> {
  if (file instanceof Blob && (TYPES as readonly string[]).includes(file.type)) return file.type as UploadContentType;
  const b = await headOf(file, 12);
  if (b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return 'image/png';
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  const ascii = (from: number, to: number) => String.fromCharCode(...b.subarray(from, to));
  if (b.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

export class Uploads {
  constructor(private readonly transport: Transport) {}

  /** POST /v1/uploads: a pending upload with its presigned `upload_url` (valid 15 minutes). */
  create(params: UploadCreateParams, options?: RequestOptions): APIPromise<CreatedUpload> {
    return this.transport.request({ method: 'POST', path: '/v1/uploads', body: params, retry: 'throttled-only' }, options);
  }

  /** GET /v1/uploads/{id}: `status: "uploaded"` with width and height once the file is in. */
  get(id: string, options?: RequestOptions): APIPromise<Upload> {
    return this.transport.request({ method: 'GET', path: `/v1/uploads/${segment(id)}`, retry: 'idempotent' }, options);
  }

  /**
   * PUTs the file to a created upload's presigned URL (no API key: the URL is
   * the credential). Repeating it with the same bytes is harmless, so it is
   * retried like a read.
   */
  put(upload: Pick<CreatedUpload, 'upload_url' | 'headers'>, file: UploadFile, options?: RequestOptions): APIPromise<Upload> {
    const contentType = upload.headers['Content-Type'];
    return this.transport.request({ method: 'PUT', path: upload.upload_url, raw: { body: file, contentType }, auth: false, retry: 'idempotent' }, options);
  }

  /**
   * Creates an upload for `file` and sends it: the returned upload's `id` is
   * the `upload_id` that image inputs take. The type comes from `contentType`,
   * else the Blob's type, else the file's first bytes.
   */
  async upload(file: UploadFile, params: { contentType?: UploadContentType } = {}, options?: RequestOptions): Promise<Upload> {
    const contentType = params.contentType ?? (await detectImageType(file));
    if (!contentType) throw new MmgenError('Cannot tell the image type of this file (mmgen takes PNG, JPEG and WebP); pass { contentType }.');
    const created = await this.create({ content_type: contentType, size_bytes: sizeOf(file) }, options);
    return this.put(created, file, options);
  }
}
