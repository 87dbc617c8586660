import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import { FetchFailed, FetchRefused, safeFetch } from './safe-fetch.js';

/** Whether an audio_url may name a private address is the operator's setting. */
export interface AudioInputPorts {
  config: Pick<Config, 'allowPrivateNetwork'>;
}

/** Largest audio file accepted from an audio_url (a minute of 48 kHz stereo WAV is ~11 MB). */
export const MAX_AUDIO_URL_BYTES = 20 * 1024 * 1024;
export const AUDIO_URL_TIMEOUT_MS = 15_000;

/** The audio container a file's first bytes announce, or null. */
export function probeAudio(bytes: Buffer): string | null {
  const ascii = (from: number, to: number) => bytes.subarray(from, to).toString('latin1');
  if (bytes.length < 12) return null;
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return 'audio/wav';
  if (ascii(0, 3) === 'ID3') return 'audio/mpeg';
  // An MPEG audio or ADTS AAC frame: 11 set sync bits.
  if (bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0) return 'audio/mpeg';
  if (ascii(0, 4) === 'OggS') return 'audio/ogg';
  if (ascii(0, 4) === 'fLaC') return 'audio/flac';
  if (ascii(4, 8) === 'ftyp') return 'audio/mp4';
  if (bytes.readUInt32BE(0) === 0x1a45dfa3) return 'audio/webm';
  return null;
}

/**
 * An avatar's `audio_url` is fetched once when the request is made, under the
 * same address guard, limits and rules as `image_url` (https only, public
 * addresses only, checked on the connected peer, no redirects), and must be an
 * audio file. So a URL aimed at mmgen's own network is refused before anything
 * is reserved, and a wrong URL fails at once with a 400 rather than minutes
 * later as a failed generation. The URL itself is what the provider is given.
 */
export async function verifyAudioUrl(deps: AudioInputPorts, url: string): Promise<void> {
  const fail = (why: string) => new ApiError('parameter_invalid', `audio_url could not be used: ${why}.`, 'audio_url');
  let res;
  try {
    res = await safeFetch(url, {
      allowPrivateNetwork: deps.config.allowPrivateNetwork,
      maxBytes: MAX_AUDIO_URL_BYTES,
      timeoutMs: AUDIO_URL_TIMEOUT_MS,
      headers: { accept: 'audio/*' },
    });
  } catch (err) {
    if (err instanceof FetchRefused) throw fail(err.message);
    if (err instanceof FetchFailed) {
      if (err.reason === 'too_large') throw fail(`the file is larger than ${MAX_AUDIO_URL_BYTES / (1024 * 1024)} MiB`);
      if (err.reason === 'timeout') throw fail(`no complete answer within ${AUDIO_URL_TIMEOUT_MS / 1000} seconds`);
      throw fail(err.message);
    }
    throw err;
  }
  if (res.status < 200 || res.status >= 300) throw fail(`the server answered HTTP ${res.status}`);
  // The bytes decide, not the other server's Content-Type.
  if (!probeAudio(res.body)) throw fail('the response is not an audio file (WAV, MP3, AAC, Ogg, FLAC, M4A or WebM)');
}
