import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { runFfmpeg, withTempDir } from './ffmpeg.js';
import { PROBE_MAX_PIXELS } from './image-probe.js';

export type ImageFormat = 'png' | 'jpeg' | 'webp';
export const IMAGE_FORMAT_MIME: Record<ImageFormat, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

/**
 * An image re-encoded in another format; `quality` (0–100) applies to the lossy ones (PNG is lossless: it
 * becomes zlib effort instead). The pixels are not resized.
 */
export async function convertImage(bytes: Buffer, to: ImageFormat, quality?: number): Promise<Buffer> {
  const img = sharp(bytes, { limitInputPixels: PROBE_MAX_PIXELS });
  if (to === 'png') return img.png(quality === undefined ? {} : { compressionLevel: Math.round((100 - quality) / 100 * 9) }).toBuffer();
  if (to === 'jpeg') return img.jpeg(quality === undefined ? {} : { quality: Math.max(1, quality) }).toBuffer();
  return img.webp(quality === undefined ? {} : { quality: Math.max(1, quality) }).toBuffer();
}

export type AudioFormat = 'mp3' | 'wav' | 'opus' | 'aac' | 'flac' | 'pcm';

/** The media type each format is answered with. */
export const AUDIO_FORMAT_MIME: Record<AudioFormat, string> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  // Opus in an Ogg container, as OpenAI sends it.
  opus: 'audio/ogg',
  aac: 'audio/aac',
  flac: 'audio/flac',
  pcm: 'audio/pcm',
};

const ENCODE: Record<AudioFormat, { ext: string; args: string[] }> = {
  mp3: { ext: 'mp3', args: ['-c:a', 'libmp3lame', '-b:a', '128k', '-f', 'mp3'] },
  wav: { ext: 'wav', args: ['-c:a', 'pcm_s16le', '-f', 'wav'] },
  // libopus takes 48 kHz (and a few lower rates); resampled so any source works.
  opus: { ext: 'ogg', args: ['-ar', '48000', '-c:a', 'libopus', '-b:a', '64k', '-f', 'ogg'] },
  aac: { ext: 'aac', args: ['-c:a', 'aac', '-b:a', '128k', '-f', 'adts'] },
  flac: { ext: 'flac', args: ['-c:a', 'flac', '-f', 'flac'] },
  // Raw samples without a header, as OpenAI's pcm: 24 kHz, 16-bit little-endian, mono.
  pcm: { ext: 'pcm', args: ['-ar', '24000', '-ac', '1', '-c:a', 'pcm_s16le', '-f', 's16le'] },
};

/** Whether audio of this media type already is the format asked for (no re-encoding, no quality lost). */
export function isAudioFormat(mime: string, to: AudioFormat): boolean {
  return to !== 'pcm' && to !== 'opus' && AUDIO_FORMAT_MIME[to] === mime.split(';')[0]!.trim().toLowerCase();
}

/**
 * Audio re-encoded by ffmpeg. Through files rather than pipes: the WAV muxer writes its sizes into the header
 * only on a seekable output, and some players refuse a WAV without them.
 */
export async function convertAudio(bytes: Buffer, to: AudioFormat): Promise<Buffer> {
  return withTempDir(async (dir) => {
    const input = join(dir, 'in');
    const output = join(dir, `out.${ENCODE[to].ext}`);
    await writeFile(input, bytes);
    await runFfmpeg(['-i', input, '-vn', '-map_metadata', '-1', ...ENCODE[to].args, output], { timeoutMs: 60_000 });
    return readFile(output);
  });
}
