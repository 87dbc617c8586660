import sharp from 'sharp';
import { renderAudio, renderImage, renderMesh, renderVideo } from '../../src/providers/simulator/render/index.js';

/**
 * Real files for the fakes to hand out, made by mmgen's own synthetic media
 * code (valid PNG, MP3, MP4 and GLB), so that what mmgen downloads, probes and
 * stores from a fake is what it would from a provider.
 */
export type FakeKind = 'image' | 'video' | 'audio' | 'speech' | 'mesh' | 'upscale';

export async function fakePng(prompt: string, width = 512, height = 512, seed: string | number = 1): Promise<Buffer> {
  return (await renderImage({ prompt, seed, width, height, format: 'png', caption: false })).bytes;
}

/** A black PNG: what a provider's safety checker returns in place of what it flagged. */
export async function blackPng(width = 512, height = 512): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#000' } }).png().toBuffer();
}

export async function fakeMp3(opts: { text?: string; prompt?: string; durationS?: number }): Promise<Buffer> {
  return (await renderAudio({ ...opts, format: 'mp3' })).bytes;
}

export async function fakeMp4(prompt: string, durationS = 1): Promise<Buffer> {
  return (await renderVideo({ prompt, durationS, width: 256, height: 144, fps: 4 })).video.bytes;
}

export async function fakeGlb(prompt: string): Promise<{ glb: Buffer; preview: Buffer }> {
  const m = await renderMesh({ prompt });
  return { glb: m.mesh.bytes, preview: m.thumbnail.bytes };
}

/** An upscale as a provider would do it: the input image, `scale` times larger, as PNG. */
export async function fakeUpscale(dataUriOrBytes: string | Buffer, scale: number): Promise<Buffer> {
  const input = typeof dataUriOrBytes === 'string' ? Buffer.from(dataUriOrBytes.replace(/^data:[^,]*,/, ''), 'base64') : dataUriOrBytes;
  const meta = await sharp(input).metadata();
  return sharp(input).resize((meta.width ?? 1) * scale, (meta.height ?? 1) * scale).png().toBuffer();
}

/** Whitespace-separated words: the fakes' "tokens". */
export function words(text: string): string[] {
  return text.split(/\s+/).filter(Boolean);
}
