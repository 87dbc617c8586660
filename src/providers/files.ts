import type { Modality } from '../catalog/index.js';
import type { ImageInput, OutputKind, UpstreamOutput } from './types.js';

/**
 * Output and input files as job APIs (Replicate, fal) describe them: a
 * result is arbitrary JSON in which files appear as URL strings or as
 * `{url, content_type, width, height, …}` objects. mmgen downloads the URLs
 * it keeps into its own store (src/generations/outputs.ts); here they
 * are only found and sorted.
 */

export interface FoundFile {
  url: string;
  /** The JSON key the file was found under (e.g. "video", "model_mesh", "thumbnail"). */
  key: string;
  mime?: string;
  width?: number;
  height?: number;
}

const URL_RE = /^(https?:\/\/|data:)/i;

/**
 * Every file in a result, in document order (arrays in order, object keys in order). A provider's answer is not
 * bounded by our request limits, so it is walked with a stack of its own, not by recursion.
 */
export function collectFiles(value: unknown, key = ''): FoundFile[] {
  const found: FoundFile[] = [];
  const todo: Array<{ v: unknown; key: string }> = [{ v: value, key }];
  while (todo.length > 0) {
    const { v, key: at } = todo.pop()!;
    if (typeof v === 'string') {
      if (URL_RE.test(v)) found.push({ url: v, key: at });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) todo.push({ v: v[i], key: at });
    } else if (v !== null && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (typeof o.url === 'string' && URL_RE.test(o.url)) {
        const f: FoundFile = { url: o.url, key: at };
        const mime = typeof o.content_type === 'string' ? o.content_type : typeof o.contentType === 'string' ? o.contentType : undefined;
        if (mime) f.mime = mime;
        if (typeof o.width === 'number') f.width = o.width;
        if (typeof o.height === 'number') f.height = o.height;
        found.push(f);
      } else {
        const entries = Object.entries(o);
        for (let i = entries.length - 1; i >= 0; i--) todo.push({ v: entries[i]![1], key: entries[i]![0] });
      }
    }
  }
  return found;
}

const EXT_KIND: Record<string, OutputKind> = {
  png: 'image', jpg: 'image', jpeg: 'image', webp: 'image', gif: 'image',
  mp4: 'video', mov: 'video', webm: 'video',
  mp3: 'audio', wav: 'audio', ogg: 'audio', flac: 'audio', m4a: 'audio', aac: 'audio',
  glb: 'mesh', gltf: 'mesh',
};

/** What a file looks like from its declared type or its URL's extension (null: unknown until downloaded). */
export function kindOf(f: FoundFile): OutputKind | null {
  const mime = f.mime?.toLowerCase() ?? '';
  if (mime.startsWith('model/gltf')) return 'mesh';
  const top = mime.split('/')[0];
  if (top === 'image' || top === 'video' || top === 'audio') return top;
  if (f.url.startsWith('data:')) {
    const m = /^data:([^;,]+)/i.exec(f.url);
    return m ? kindOf({ ...f, url: '', mime: m[1]! }) : null;
  }
  let path: string;
  try {
    path = new URL(f.url).pathname;
  } catch {
    return null;
  }
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return ext ? (EXT_KIND[ext] ?? null) : null;
}

/** The kinds of file each modality produces: the main one first, then an optional thumbnail image. */
const MAIN_KIND: Record<Modality, OutputKind | null> = {
  image: 'image', upscale: 'image', video: 'video', avatar: 'video', voice: 'audio', music: 'audio', '3d': 'mesh', chat: null,
};

/**
 * The outputs a modality keeps from the files of a result: the files of its
 * main kind (images: up to `max`; other modalities: the first), and for
 * video, avatar and 3D the first image as the thumbnail. Files of unknown
 * kind are kept as candidates only when nothing matched, and are sniffed
 * after download.
 */
export function pickOutputs(modality: Modality, files: FoundFile[], max = 1, moderation?: (index: number) => UpstreamOutput['moderation']): UpstreamOutput[] {
  const main = MAIN_KIND[modality];
  if (!main) return [];
  const kinds = files.map(kindOf);
  let picked = files.filter((_, i) => kinds[i] === main);
  if (picked.length === 0) picked = files.filter((_, i) => kinds[i] === null);
  picked = picked.slice(0, main === 'image' ? max : 1);
  const out: UpstreamOutput[] = picked.map((f, i) => {
    const o: UpstreamOutput = { url: f.url, mime: f.mime ?? '' };
    if (f.width !== undefined) o.width = f.width;
    if (f.height !== undefined) o.height = f.height;
    const mod = moderation?.(i);
    if (mod) o.moderation = mod;
    return o;
  });
  if (main !== 'image' && out.length > 0) {
    const thumb = files.find((f, i) => kinds[i] === 'image' && !picked.includes(f));
    if (thumb) out.push({ url: thumb.url, mime: thumb.mime ?? '', type: 'thumbnail' });
  }
  return out;
}

/** An input image as a data URI: every job API here accepts one where it takes a file URL. */
export function dataUri(image: ImageInput): string {
  return `data:${image.mime};base64,${image.bytes.toString('base64')}`;
}

/** Width:height as the nearest of the aspect ratios a provider knows, e.g. "16:9". */
export function nearestAspectRatio(width: number, height: number, choices: readonly string[]): string {
  const target = Math.log(width / height);
  let best = choices[0]!;
  let bestDiff = Infinity;
  for (const c of choices) {
    const [w, h] = c.split(':').map(Number) as [number, number];
    const d = Math.abs(Math.log(w / h) - target);
    if (d < bestDiff) {
      best = c;
      bestDiff = d;
    }
  }
  return best;
}
