import sharp from 'sharp';
import { renderCache } from './cache.js';
import { MediaInputError, requireInt, seedKey, type Seed } from '../../../media/errors.js';
import { PROBE_MAX_PIXELS, probeImage, UPSCALE_MAX_OUTPUT_PIXELS, type ImageMime } from '../../../media/image-probe.js';
import { digest, digestHex, rngFor, type Rng } from './hash.js';
import { hex, makePalette, type Rgb } from './palette.js';

export type ImageFormat = 'png' | 'jpeg';

export interface RenderedImage {
  bytes: Buffer;
  mime: ImageMime;
  width: number;
  height: number;
}

export interface RenderImageOptions {
  prompt: string;
  seed?: Seed;
  width: number;
  height: number;
  format: ImageFormat;
  /** Draw the prompt as a caption (default true); it makes test outputs self-describing. */
  caption?: boolean;
}

export const IMAGE_MIN_SIDE = 256;
export const IMAGE_MAX_SIDE = 2048;

const f = (n: number): string => n.toFixed(1);

// Characters XML 1.0 forbids: librsvg rejects the whole document if the prompt
// contains one, and prompts are user input.
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function xmlText(s: string): string {
  return s
    .replace(XML_INVALID, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

function wrapCaption(text: string, maxChars: number, maxLines: number): string[] {
  const words = text.replace(/\s+/g, ' ').trim().split(' ').filter(Boolean);
  const lines: string[] = [];
  let line = '';
  for (const raw of words) {
    const word = raw.length > maxChars ? raw.slice(0, maxChars - 1) + '…' : raw;
    if (line === '') line = word;
    else if (line.length + 1 + word.length <= maxChars) line += ' ' + word;
    else {
      lines.push(line);
      line = word;
      if (lines.length === maxLines) break;
    }
  }
  if (lines.length < maxLines && line !== '') lines.push(line);
  else if (line !== '' && lines.length === maxLines) {
    const last = lines[maxLines - 1] ?? '';
    lines[maxLines - 1] = (last.length >= maxChars ? last.slice(0, maxChars - 1) : last).replace(/[\s.,;:!?-]+$/, '') + '…';
  }
  return lines;
}

function shapeSvg(rng: Rng, w: number, h: number, color: Rgb): string {
  const cx = rng.range(0, w);
  const cy = rng.range(0, h * 0.85);
  const size = rng.range(0.06, 0.28) * Math.min(w, h);
  const opacity = rng.range(0.45, 0.9).toFixed(2);
  const rot = rng.range(0, 360);
  const fill = `fill="${hex(color)}" fill-opacity="${opacity}"`;
  switch (rng.int(0, 3)) {
    case 0:
      return `<circle cx="${f(cx)}" cy="${f(cy)}" r="${f(size)}" ${fill}/>`;
    case 1:
      return `<ellipse cx="${f(cx)}" cy="${f(cy)}" rx="${f(size * 1.4)}" ry="${f(size * 0.6)}" transform="rotate(${f(rot)} ${f(cx)} ${f(cy)})" ${fill}/>`;
    case 2:
      return `<rect x="${f(cx - size)}" y="${f(cy - size * 0.7)}" width="${f(size * 2)}" height="${f(size * 1.4)}" rx="${f(size * 0.2)}" transform="rotate(${f(rot)} ${f(cx)} ${f(cy)})" ${fill}/>`;
    default: {
      const n = rng.int(3, 7);
      const pts: string[] = [];
      for (let i = 0; i < n; i++) {
        const a = ((rot + (360 * i) / n) * Math.PI) / 180;
        pts.push(`${f(cx + size * Math.cos(a))},${f(cy + size * Math.sin(a))}`);
      }
      return `<polygon points="${pts.join(' ')}" ${fill}/>`;
    }
  }
}

/** The picture as SVG; exported so the scene can be inspected without rasterising. */
export function imageSvg(opts: { prompt: string; seed?: Seed; width: number; height: number; caption?: boolean }): string {
  const { width: w, height: h } = opts;
  const rng = rngFor('image-scene', opts.prompt, seedKey(opts.seed));
  const pal = makePalette(rng);
  const angle = rng.range(0, Math.PI * 2);
  const [gx, gy] = [Math.cos(angle) * 0.5, Math.sin(angle) * 0.5];
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">`,
    '<defs>',
    `<linearGradient id="bg" x1="${(0.5 - gx).toFixed(3)}" y1="${(0.5 - gy).toFixed(3)}" x2="${(0.5 + gx).toFixed(3)}" y2="${(0.5 + gy).toFixed(3)}">`,
    ...pal.background.map((c, i) => `<stop offset="${(i / (pal.background.length - 1)).toFixed(2)}" stop-color="${hex(c)}"/>`),
    '</linearGradient>',
    `<radialGradient id="glow"><stop offset="0" stop-color="${hex(pal.accents[0] ?? pal.shadow)}" stop-opacity="0.95"/><stop offset="1" stop-color="${hex(pal.accents[0] ?? pal.shadow)}" stop-opacity="0"/></radialGradient>`,
    '</defs>',
    `<rect width="${w}" height="${h}" fill="url(#bg)"/>`,
  );
  const sun = rng.range(0.12, 0.3) * Math.max(w, h);
  parts.push(`<circle cx="${f(rng.range(0.15, 0.85) * w)}" cy="${f(rng.range(0.1, 0.5) * h)}" r="${f(sun)}" fill="url(#glow)"/>`);
  const shapes = rng.int(4, 9);
  for (let i = 0; i < shapes; i++) parts.push(shapeSvg(rng, w, h, rng.pick(pal.accents)));
  // A ridge line across the lower part gives each picture a landscape-like
  // silhouette, which makes different seeds easy to tell apart at a glance.
  const base = rng.range(0.65, 0.85) * h;
  const amp = rng.range(0.03, 0.12) * h;
  const waves = rng.range(1, 4);
  const phase = rng.range(0, Math.PI * 2);
  const ridge: string[] = [`0,${h}`];
  const steps = 32;
  for (let i = 0; i <= steps; i++) {
    const x = (w * i) / steps;
    const y = base - amp * Math.sin(phase + (waves * Math.PI * 2 * i) / steps) - amp * 0.4 * Math.sin(phase * 3 + (7 * i) / steps);
    ridge.push(`${f(x)},${f(y)}`);
  }
  ridge.push(`${w},${h}`);
  parts.push(`<polygon points="${ridge.join(' ')}" fill="${hex(pal.shadow)}" fill-opacity="0.8"/>`);

  if (opts.caption !== false && opts.prompt.trim() !== '') {
    const fontSize = Math.max(12, Math.min(56, Math.round(Math.min(w, h) / 22)));
    const pad = Math.round(fontSize * 0.6);
    const lines = wrapCaption(opts.prompt.replace(XML_INVALID, ''), Math.max(8, Math.floor((w - 2 * pad) / (fontSize * 0.6))), 2);
    const lineH = Math.round(fontSize * 1.3);
    const bandH = lines.length * lineH + pad;
    parts.push(`<rect x="0" y="${h - bandH}" width="${w}" height="${bandH}" fill="#000" fill-opacity="0.45"/>`);
    lines.forEach((line, i) => {
      parts.push(
        `<text x="${pad}" y="${h - bandH + pad / 2 + lineH * (i + 1) - Math.round(fontSize * 0.3)}" font-family="DejaVu Sans, Arial, Helvetica, sans-serif" font-size="${fontSize}" fill="#fff">${xmlText(line)}</text>`,
      );
    });
  }
  parts.push('</svg>');
  return parts.join('');
}

/**
 * A deterministic picture whose palette and layout come from a hash of the
 * prompt and seed. Rendered once per distinct input and then served from the
 * shared cache; the returned Buffer is shared and must not be modified.
 */
export async function renderImage(opts: RenderImageOptions): Promise<RenderedImage> {
  const width = requireInt('width', opts.width, IMAGE_MIN_SIDE, IMAGE_MAX_SIDE);
  const height = requireInt('height', opts.height, IMAGE_MIN_SIDE, IMAGE_MAX_SIDE);
  if (opts.format !== 'png' && opts.format !== 'jpeg') throw new MediaInputError(`format must be png or jpeg, got ${String(opts.format)}`);
  if (typeof opts.prompt !== 'string') throw new MediaInputError('prompt must be a string');
  const caption = opts.caption !== false;
  const key = 'image:' + digestHex(opts.prompt, seedKey(opts.seed), width, height, opts.format, caption);
  return renderCache.getOrCreate(
    key,
    async () => {
      const svg = Buffer.from(imageSvg({ prompt: opts.prompt, seed: opts.seed, width, height, caption }));
      // The background is opaque, so the alpha channel is dead weight in the file.
      const img = sharp(svg).removeAlpha();
      const bytes = opts.format === 'png' ? await img.png({ compressionLevel: 6 }).toBuffer() : await img.jpeg({ quality: 86 }).toBuffer();
      return { bytes, mime: opts.format === 'png' ? 'image/png' : 'image/jpeg', width, height } as RenderedImage;
    },
    (v) => v.bytes.length + 256,
  );
}

/** Encodes raw RGB pixels as JPEG; used for video and mesh thumbnails. */
export async function rgbToJpeg(pixels: Buffer, width: number, height: number, quality = 82): Promise<RenderedImage> {
  const bytes = await sharp(pixels, { raw: { width, height, channels: 3 } }).jpeg({ quality }).toBuffer();
  return { bytes, mime: 'image/jpeg', width, height };
}

export interface UpscaleOptions {
  input: Uint8Array;
  scale: 2 | 4;
  /** Simulated by a sharpening pass, so the option changes the output as the real one would. */
  faceRestore?: boolean;
}


/**
 * Lanczos resampling to exactly scale× the displayed input size, as JPEG.
 * Throws MediaInputError for input that probeImage would reject or an output
 * over UPSCALE_MAX_OUTPUT_PIXELS.
 */
export async function upscaleImage(opts: UpscaleOptions): Promise<RenderedImage> {
  if (opts.scale !== 2 && opts.scale !== 4) throw new MediaInputError(`scale must be 2 or 4, got ${String(opts.scale)}`);
  if (!(opts.input instanceof Uint8Array)) throw new MediaInputError('input must be a Buffer');
  const faceRestore = opts.faceRestore === true;
  // Keyed by a hash of the input so a repeat costs one SHA-256, not a decode.
  const key = 'upscale:' + digestHex(digest(opts.input), opts.scale, faceRestore);
  return renderCache.getOrCreate(
    key,
    async () => {
      const probe = await probeImage(opts.input);
      if (!probe) throw new MediaInputError('input is not a valid PNG, JPEG or WebP image');
      const width = probe.width * opts.scale;
      const height = probe.height * opts.scale;
      if (width * height > UPSCALE_MAX_OUTPUT_PIXELS) {
        throw new MediaInputError(`upscaled image would be ${width}x${height}, over the ${UPSCALE_MAX_OUTPUT_PIXELS} pixel limit`);
      }
      let img = sharp(opts.input, { limitInputPixels: PROBE_MAX_PIXELS })
        .autoOrient()
        .resize(width, height, { fit: 'fill', kernel: 'lanczos3' })
        // JPEG has no alpha; white matches how viewers show transparent PNGs.
        .flatten({ background: '#ffffff' });
      if (faceRestore) img = img.sharpen({ sigma: 1.2 });
      const bytes = await img.jpeg({ quality: 90 }).toBuffer();
      return { bytes, mime: 'image/jpeg', width, height } as RenderedImage;
    },
    (v) => v.bytes.length + 256,
  );
}
