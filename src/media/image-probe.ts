import sharp from 'sharp';

/** What production checks of images need: their type by magic bytes, and a safe, complete decode. */
export type ImageMime = 'image/png' | 'image/jpeg' | 'image/webp';

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function sniffImageMime(bytes: Uint8Array): ImageMime | null {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length >= 8 && b.subarray(0, 8).equals(PNG_MAGIC)) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  return null;
}

/**
 * Container-level completeness, which decoders forgive: a PNG must be a clean
 * chain of chunks ending in IEND, a JPEG must contain its end-of-image marker
 * and a WebP must be as long as its RIFF header says. Bytes after the end are
 * tolerated because cameras and editors append trailers.
 */
function containerComplete(b: Buffer, mime: ImageMime): boolean {
  if (mime === 'image/png') {
    let pos = 8;
    while (pos + 12 <= b.length) {
      const len = b.readUInt32BE(pos);
      const type = b.toString('latin1', pos + 4, pos + 8);
      pos += 12 + len;
      if (pos > b.length) return false;
      if (type === 'IEND') return true;
    }
    return false;
  }
  if (mime === 'image/jpeg') return b.lastIndexOf(Buffer.from([0xff, 0xd9])) > 2;
  return b.length >= 12 && b.readUInt32LE(4) + 8 <= b.length;
}

const SHARP_FORMAT: Record<ImageMime, string> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/webp': 'webp' };

/** Above this the upload is refused rather than decoded (a decompression bomb guard). */
export const PROBE_MAX_PIXELS = 100_000_000;

export interface ProbeOptions {
  /**
   * Decode the whole image (default true). Headers alone accept truncated or
   * corrupt files; the decode is streamed at reduced size so memory stays small.
   */
  decode?: boolean;
}

/**
 * Identifies a PNG, JPEG or WebP upload and its displayed size (EXIF rotation
 * applied), or null when the bytes are not a complete, decodable image of one
 * of those types. Never throws for bad input.
 */
export async function probeImage(bytes: Uint8Array, opts: ProbeOptions = {}): Promise<{ mime: ImageMime; width: number; height: number } | null> {
  const mime = sniffImageMime(bytes);
  if (mime === null) return null;
  if (!containerComplete(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), mime)) return null;
  try {
    const input = sharp(bytes, { failOn: 'error', limitInputPixels: PROBE_MAX_PIXELS });
    const meta = await input.metadata();
    // The magic bytes and the decoder must agree, or the file is a polyglot.
    if (meta.format !== SHARP_FORMAT[mime] || !meta.width || !meta.height) return null;
    if (meta.pages !== undefined && meta.pages > 1) return null;
    if (opts.decode !== false) {
      await input.resize(64, 64, { fit: 'inside' }).raw().toBuffer();
    }
    const oriented = meta.autoOrient ?? { width: meta.width, height: meta.height };
    return { mime, width: oriented.width, height: oriented.height };
  } catch {
    return null;
  }
}

/** The largest upscale output mmgen accepts (width × height, pixels). */
export const UPSCALE_MAX_OUTPUT_PIXELS = 8192 * 8192;
