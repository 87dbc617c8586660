import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runFfmpeg, withTempDir } from './ffmpeg.js';
import { sniffImageMime } from './image-probe.js';
import { parseMp4 } from './mp4.js';

/**
 * What a file from somewhere else (a provider's output) really is, read from
 * its bytes rather than from what the sender declared: its MIME type, and for
 * audio and video their length and picture size. Used by the real provider
 * adapters' outputs; the simulator's files carry this already.
 */

/** The MIME type from magic bytes; null when the bytes match nothing mmgen stores. */
export function sniffMime(bytes: Uint8Array): string | null {
  const image = sniffImageMime(bytes);
  if (image) return image;
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 64));
  const ascii = (from: number, to: number) => b.subarray(from, to).toString('latin1');
  if (ascii(0, 4) === 'glTF') return 'model/gltf-binary';
  if (ascii(4, 8) === 'ftyp') {
    const brand = ascii(8, 12);
    return brand === 'M4A ' || brand === 'M4B ' ? 'audio/mp4' : 'video/mp4';
  }
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return 'audio/wav';
  if (ascii(0, 3) === 'ID3' || (b.length > 1 && b[0] === 0xff && (b[1]! & 0xe0) === 0xe0 && (b[1]! & 0x06) !== 0)) return 'audio/mpeg';
  if (ascii(0, 4) === 'OggS') return 'audio/ogg';
  if (ascii(0, 4) === 'fLaC') return 'audio/flac';
  if (b.length > 3 && b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return 'video/webm';
  if (ascii(0, 4) === 'GIF8') return 'image/gif';
  return null;
}

export interface AvInfo {
  durationS: number | null;
  width: number | null;
  height: number | null;
}

const PROBE_TIMEOUT_MS = 30_000;

/** Length and picture size of an audio or video file, as ffmpeg reads its container (nothing is decoded). */
export async function probeAudioVideo(bytes: Buffer): Promise<AvInfo> {
  const mp4 = parseMp4(bytes);
  const info = await withTempDir(async (dir) => {
    const file = join(dir, 'input');
    await writeFile(file, bytes);
    // `-t 0 -f null -`: open the input, print what it is, encode nothing.
    const run = await runFfmpeg(['-loglevel', 'info', '-nostats', '-i', file, '-t', '0', '-f', 'null', '-'], { timeoutMs: PROBE_TIMEOUT_MS });
    return run.stderr;
  }).catch(() => '');
  const d = /Duration: (\d+):(\d{2}):(\d{2}(?:\.\d+)?)/.exec(info);
  const size = /Stream #[^\n]*Video:[^\n]*?, (\d{2,5})x(\d{2,5})[\s,]/.exec(info);
  const durationS = mp4?.durationS ?? (d ? Number(d[1]) * 3600 + Number(d[2]) * 60 + Number(d[3]) : null);
  return { durationS, width: size ? Number(size[1]) : null, height: size ? Number(size[2]) : null };
}

/** A JPEG still of a video's first frame, at most `maxSide` on its longer side. */
export async function videoThumbnail(bytes: Buffer, maxSide = 512): Promise<Buffer> {
  return withTempDir(async (dir) => {
    const file = join(dir, 'input');
    const out = join(dir, 'thumb.jpg');
    await writeFile(file, bytes);
    await runFfmpeg(
      ['-i', file, '-frames:v', '1', '-vf', `scale='min(${maxSide},iw)':'min(${maxSide},ih)':force_original_aspect_ratio=decrease`, '-q:v', '4', '-y', out],
      { timeoutMs: PROBE_TIMEOUT_MS },
    );
    return readFile(out);
  });
}

/**
 * `count` JPEG stills spread evenly over a video (the middle of each of `count` equal spans), at most `maxSide` on
 * the longer side: what moderation looks at, so a frame other than the first or the poster is seen too.
 */
export async function videoFrames(bytes: Buffer, count: number, durationS: number, maxSide = 512): Promise<Buffer[]> {
  if (count < 1 || !(durationS > 0)) return [];
  return withTempDir(async (dir) => {
    const file = join(dir, 'input');
    await writeFile(file, bytes);
    const frames: Buffer[] = [];
    for (let i = 0; i < count; i++) {
      const at = ((i + 0.5) * durationS) / count;
      const out = join(dir, `f${i}.jpg`);
      // Seeking before -i is fast (to the keyframe before, then decoded up to `at`).
      await runFfmpeg(
        ['-ss', at.toFixed(3), '-i', file, '-frames:v', '1', '-vf', `scale='min(${maxSide},iw)':'min(${maxSide},ih)':force_original_aspect_ratio=decrease`, '-q:v', '4', '-y', out],
        { timeoutMs: PROBE_TIMEOUT_MS },
      );
      frames.push(await readFile(out).catch(() => Buffer.alloc(0)));
    }
    return frames.filter((f) => f.length > 0);
  });
}
