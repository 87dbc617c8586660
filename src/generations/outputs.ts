import sharp from 'sharp';
import { MODALITY_RULES } from './modalities.js';
import type { Config } from '../config.js';
import { FetchFailed, FetchRefused, safeFetch } from '../files/safe-fetch.js';
import { formatDurationMs, mimeToOutputType, probeAudioVideo, probeImage, sniffMime, videoThumbnail } from '../media/index.js';
import type { OutputKind, UpstreamOutput, UpstreamRequest } from '../providers/types.js';

/** Only the download's bounds and address guard: `upstream` (size, time) and `allowPrivateNetwork`. */
export interface OutputPorts {
  config: Pick<Config, 'allowPrivateNetwork' | 'upstream'>;
}

/**
 * Turns what a provider handed over into files mmgen keeps: output URLs are
 * downloaded at once (bounded in size and time, under the same address guard
 * as webhooks), because provider URLs expire and mmgen's own signed URLs must
 * outlive them; then every file is identified from its bytes, measured, and
 * finished the way the contract promises:
 * - the type comes from the bytes (a provider's Content-Type is a hint);
 * - images get their size, audio and video their length (billing uses it);
 * - upscales are JPEG of exactly input × scale (re-encoded if not);
 * - videos and avatars get a thumbnail (made from the first frame when the
 *   provider sent none).
 */

export class OutputError extends Error {}

export interface MaterializedOutput {
  bytes: Buffer;
  mime: string;
  type: OutputKind;
  width: number | null;
  height: number | null;
  duration_s: string | null;
  moderation: 'approved' | 'flagged' | 'blocked';
  /** The adapter made it from the request's words alone (UpstreamOutput.synthetic); a thumbnail taken from such a video is too. */
  synthetic: boolean;
}

const DATA_URI = /^data:([^;,]*)(;base64)?,(.*)$/is;

async function bytesOf(deps: OutputPorts, out: UpstreamOutput): Promise<{ bytes: Buffer; declared: string }> {
  if (out.bytes) return { bytes: out.bytes, declared: out.mime };
  if (!out.url) throw new OutputError('the provider returned an output with neither bytes nor a URL');
  const limit = deps.config.upstream.downloadMaxBytes;
  const data = DATA_URI.exec(out.url);
  if (data) {
    const bytes = data[2] ? Buffer.from(data[3]!, 'base64') : Buffer.from(decodeURIComponent(data[3]!), 'latin1');
    if (bytes.length > limit) throw new OutputError(`the provider's output is over the ${limit}-byte limit`);
    return { bytes, declared: out.mime || data[1] || '' };
  }
  try {
    const res = await safeFetch(out.url, {
      allowPrivateNetwork: deps.config.allowPrivateNetwork,
      maxBytes: limit,
      timeoutMs: deps.config.upstream.downloadTimeoutMs,
    });
    if (res.status < 200 || res.status >= 300) throw new OutputError(`downloading the provider's output answered HTTP ${res.status}`);
    const ct = res.headers['content-type'];
    return { bytes: res.body, declared: out.mime || (typeof ct === 'string' ? ct.split(';')[0]!.trim() : '') };
  } catch (err) {
    if (err instanceof FetchFailed || err instanceof FetchRefused) throw new OutputError(`downloading the provider's output failed: ${err.message}`);
    throw err;
  }
}

/** Seconds as the contract's decimal string, to the millisecond. */
function seconds(s: number): string {
  return formatDurationMs(Math.round(s * 1000));
}

async function identify(deps: OutputPorts, out: UpstreamOutput): Promise<MaterializedOutput> {
  const { bytes, declared } = await bytesOf(deps, out);
  if (bytes.length === 0) throw new OutputError('the provider returned an empty file');
  const mime = sniffMime(bytes) ?? (declared || 'application/octet-stream');
  const type = out.type ?? (mimeToOutputType(mime) as OutputKind | null);
  if (!type) throw new OutputError(`the provider returned a file of an unexpected type (${mime})`);
  let width = out.width ?? null;
  let height = out.height ?? null;
  let duration = out.duration_s ?? null;
  const top = mime.split('/')[0];
  if ((type === 'image' || type === 'thumbnail') && (width === null || height === null)) {
    const probed = await probeImage(bytes, { decode: false });
    if (probed) ({ width, height } = probed);
  } else if ((top === 'audio' || top === 'video') && (duration === null || (top === 'video' && width === null))) {
    const av = await probeAudioVideo(bytes);
    if (duration === null && av.durationS !== null) duration = seconds(av.durationS);
    if (top === 'video') {
      width ??= av.width;
      height ??= av.height;
    }
  }
  return { bytes, mime, type, width, height, duration_s: duration, moderation: out.moderation ?? 'approved', synthetic: out.synthetic === true };
}

/** An upscale's output as the contract promises it: JPEG, exactly input × scale. */
async function finishUpscale(out: MaterializedOutput, req: UpstreamRequest): Promise<MaterializedOutput> {
  if (!req.image || !req.image.width || !req.image.height) return out;
  const scale = Number(req.params.scale ?? 2);
  const width = req.image.width * scale;
  const height = req.image.height * scale;
  if (out.mime === 'image/jpeg' && out.width === width && out.height === height) return out;
  const bytes = await sharp(out.bytes, { limitInputPixels: false }).resize(width, height, { fit: 'fill', kernel: 'lanczos3' }).jpeg({ quality: 90 }).toBuffer();
  return { ...out, bytes, mime: 'image/jpeg', width, height };
}

export async function materializeOutputs(deps: OutputPorts, req: UpstreamRequest, outputs: UpstreamOutput[]): Promise<MaterializedOutput[]> {
  const files = await Promise.all(outputs.map((o) => identify(deps, o)));
  const rules = MODALITY_RULES[req.modality].outputs;
  if (rules.fitToScale) {
    for (let i = 0; i < files.length; i++) if (files[i]!.type === 'image') files[i] = await finishUpscale(files[i]!, req);
  }
  if (rules.thumbnailFromVideo && !files.some((f) => f.type === 'thumbnail')) {
    const video = files.find((f) => f.type === 'video');
    if (video) {
      const bytes = await videoThumbnail(video.bytes).catch(() => null);
      const probed = bytes ? await probeImage(bytes, { decode: false }) : null;
      if (bytes && probed) files.push({ bytes, mime: 'image/jpeg', type: 'thumbnail', width: probed.width, height: probed.height, duration_s: null, moderation: video.moderation, synthetic: video.synthetic });
    }
  }
  return files;
}
