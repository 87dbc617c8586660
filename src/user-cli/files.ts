import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import type { Generation, GenerationOutput } from '../../sdk/src/index.js';

const EXTENSIONS: Record<string, string> = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/webp': '.webp',
  'video/mp4': '.mp4',
  'audio/wav': '.wav',
  'audio/mpeg': '.mp3',
  'model/gltf-binary': '.glb',
  'model/gltf+json': '.gltf',
};

export function extensionOf(mime: string): string {
  return EXTENSIONS[mime.split(';')[0]!.trim()] ?? '.bin';
}

/** Outputs that are the result itself (a video's thumbnail is an extra). */
export function primaryOutputs(g: Generation): GenerationOutput[] {
  return g.outputs.filter((o) => o.type !== 'thumbnail');
}

/**
 * Where `--out FILE` puts each of `n` outputs: FILE itself for one output,
 * FILE-1.ext, FILE-2.ext … for several. A name without an extension gets the
 * output's.
 */
export function outPaths(file: string, outputs: GenerationOutput[]): string[] {
  const ext = extname(file);
  const stem = ext ? file.slice(0, -ext.length) : file;
  return outputs.map((o, i) => {
    const e = ext || extensionOf(o.mime);
    return outputs.length === 1 ? `${stem}${e}` : `${stem}-${i + 1}${e}`;
  });
}

/** Downloads a signed output URL to `path` (written whole, then renamed into place). */
export async function download(url: string, path: string): Promise<number> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`downloading ${url.split('?')[0]} failed: HTTP ${res.status}`);
  const bytes = Buffer.from(await res.arrayBuffer());
  mkdirSync(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.part`);
  writeFileSync(tmp, bytes);
  renameSync(tmp, path);
  return bytes.length;
}

/** The bytes of a local file, as the SDK's upload takes them. */
export function readInput(path: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(path));
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
