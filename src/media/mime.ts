export type OutputType = 'image' | 'video' | 'audio' | 'mesh';

/**
 * Which kind of output a stored file is, from its MIME type. Parameters and
 * case are ignored ("Image/PNG; q=1" is an image). null for anything else, so
 * callers must decide explicitly what an unknown type means.
 */
export function mimeToOutputType(mime: string): OutputType | null {
  const base = mime.split(';')[0]?.trim().toLowerCase() ?? '';
  if (base === 'model/gltf-binary' || base === 'model/gltf+json') return 'mesh';
  const top = base.split('/')[0];
  if (top === 'image' || top === 'video' || top === 'audio') return top;
  return null;
}

/** Conventional file extension for the MIME types the simulator and upload paths produce. */
export function extensionForMime(mime: string): string | null {
  const base = mime.split(';')[0]?.trim().toLowerCase() ?? '';
  const map: Record<string, string> = {
    'image/png': 'png',
    'image/jpeg': 'jpg',
    'image/webp': 'webp',
    'image/gif': 'gif',
    'audio/wav': 'wav',
    'audio/mpeg': 'mp3',
    'audio/ogg': 'ogg',
    'audio/flac': 'flac',
    'audio/mp4': 'm4a',
    'video/mp4': 'mp4',
    'video/webm': 'webm',
    'model/gltf-binary': 'glb',
  };
  return map[base] ?? null;
}
