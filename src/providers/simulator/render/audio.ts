import { readFile, writeFile } from 'node:fs/promises';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { renderCache } from './cache.js';
import { formatDurationMs, parseDurationMs, speechDurationS } from '../../../media/durations.js';
import { MediaError, MediaInputError, seedKey, type Seed } from '../../../media/errors.js';
import { ffmpegCapabilities, runFfmpeg, withTempDir } from '../../../media/ffmpeg.js';
import { digestHex, rngFor, type Rng } from './hash.js';

/**
 * 24 kHz rather than 22.05 kHz: at 24 000 samples per second every whole
 * millisecond is a whole number of samples, so any duration we report (to the
 * millisecond) is exactly the length of the file. It is also the rate common
 * TTS APIs return.
 */
export const AUDIO_SAMPLE_RATE = 24_000;
export const AUDIO_MIN_MS = 100;
export const AUDIO_MAX_MS = 600_000;

export type AudioFormat = 'wav' | 'mp3';

export interface RenderedAudio {
  bytes: Buffer;
  mime: 'audio/wav' | 'audio/mpeg';
  /** Decimal seconds without trailing zeros, e.g. "5" or "12.48". */
  durationS: string;
  sampleRate: number;
}

export interface RenderAudioOptions {
  /** Text to "speak": gives a voice-like babble whose rhythm follows the words. */
  text?: string;
  /** Used when there is no text: gives a short melodic loop (music / sound effects). */
  prompt?: string;
  seed?: Seed;
  /** Seconds (number or decimal string), rounded to the millisecond. Defaults to speechDurationS(text). */
  durationS?: number | string;
  format?: AudioFormat;
}

interface Note {
  start: number;
  length: number;
  freq: number;
  /** Frequency at the end of the note, for glides (speech intonation, kick drums). */
  endFreq: number;
  amp: number;
  /** Relative amplitudes of harmonics 1..n. */
  harmonics: readonly number[];
  attack: number;
  release: number;
}

function speechNotes(rng: Rng, text: string, total: number, rate: number): Note[] {
  const words = text.split(/\s+/).filter(Boolean);
  if (words.length === 0) return [];
  // Each word gets time in proportion to its length plus a gap; sentence
  // punctuation earns a longer pause, like a speaker taking breath.
  const weights = words.map((w) => Array.from(w).length + 1 + (/[.!?;:]$/.test(w) ? 3 : /,$/.test(w) ? 1.5 : 0));
  const sum = weights.reduce((a, b) => a + b, 0);
  const base = rng.range(95, 210);
  const notes: Note[] = [];
  let pos = 0;
  words.forEach((word, i) => {
    const span = (total * (weights[i] ?? 1)) / sum;
    const letters = Array.from(word.replace(/[^\p{L}\p{N}]/gu, '')).length || 1;
    const voiced = span * (letters / (weights[i] ?? letters + 1));
    const syllables = Math.max(1, Math.round(letters / 3));
    const wr = rngFor('word', word.toLowerCase());
    for (let s = 0; s < syllables; s++) {
      const len = Math.floor(voiced / syllables);
      if (len < rate * 0.02) continue;
      const f0 = base * (1 + wr.range(-0.15, 0.25)) * (1 - 0.08 * (s / syllables));
      const vowel = wr.pick([
        [1, 0.6, 0.3, 0.15],
        [1, 0.3, 0.5, 0.2, 0.1],
        [1, 0.8, 0.2, 0.3],
        [1, 0.2, 0.15, 0.4, 0.2],
      ]);
      notes.push({
        start: Math.floor(pos + s * (voiced / syllables)),
        length: Math.floor(len * 0.9),
        freq: f0,
        endFreq: f0 * wr.range(0.85, 1.05),
        amp: 0.55,
        harmonics: vowel,
        attack: rate * 0.012,
        release: rate * 0.03,
      });
    }
    pos += span;
  });
  return notes;
}

const PENTATONIC = [0, 2, 4, 7, 9, 12, 14, 16] as const;

function musicNotes(rng: Rng, total: number, rate: number): Note[] {
  const bpm = rng.int(76, 136);
  const beat = (60 / bpm) * rate;
  const root = 196 * Math.pow(2, rng.int(-5, 6) / 12);
  const timbre = rng.pick([
    [1, 0.4, 0.2],
    [1, 0, 0.33, 0, 0.2],
    [1, 0.7, 0.5, 0.3, 0.2],
  ]);
  // A four-bar phrase repeats, as loops in generated music do; the repetition
  // also makes the pattern obviously intentional when listened to.
  const phrase: Array<{ at: number; beats: number; step: number }> = [];
  let t = 0;
  while (t < 16) {
    const beats = rng.pick([0.5, 0.5, 1, 1, 1.5, 2]);
    phrase.push({ at: t, beats: Math.min(beats, 16 - t), step: rng.pick(PENTATONIC) });
    t += beats;
  }
  const notes: Note[] = [];
  const phraseLen = 16 * beat;
  for (let p0 = 0; p0 < total; p0 += phraseLen) {
    for (const n of phrase) {
      const start = Math.floor(p0 + n.at * beat);
      if (start >= total) break;
      const freq = root * Math.pow(2, n.step / 12);
      notes.push({ start, length: Math.floor(n.beats * beat * 0.95), freq, endFreq: freq, amp: 0.35, harmonics: timbre, attack: rate * 0.01, release: rate * 0.08 });
    }
    for (let b = 0; b < 16; b++) {
      const start = Math.floor(p0 + b * beat);
      if (start >= total) break;
      if (b % 4 === 0) {
        const bass = (root / 2) * Math.pow(2, (b % 8 === 0 ? 0 : 7) / 12);
        notes.push({ start, length: Math.floor(beat * 3.8), freq: bass, endFreq: bass, amp: 0.3, harmonics: [1, 0.3], attack: rate * 0.02, release: rate * 0.2 });
      }
      notes.push({ start, length: Math.floor(rate * 0.09), freq: 130, endFreq: 45, amp: 0.5, harmonics: [1], attack: rate * 0.002, release: rate * 0.06 });
    }
  }
  return notes;
}

/**
 * Additive synthesis on the main thread. Long clips take a while (about 5 ms
 * per second of music), so it yields to the event loop every few milliseconds
 * rather than stalling every other request while a 10-minute track renders.
 */
async function synthesize(notes: Note[], total: number, rate: number): Promise<Int16Array> {
  const mix = new Float32Array(total);
  let sliceStart = performance.now();
  for (const n of notes) {
    if (performance.now() - sliceStart > 8) {
      await new Promise((r) => setImmediate(r));
      sliceStart = performance.now();
    }
    const end = Math.min(total, n.start + n.length);
    const len = end - n.start;
    if (len <= 0) continue;
    const attack = Math.max(1, Math.min(n.attack, len / 3));
    const release = Math.max(1, Math.min(n.release, len / 2));
    let phase = 0;
    for (let i = 0; i < len; i++) {
      const freq = n.freq + ((n.endFreq - n.freq) * i) / len;
      phase += (2 * Math.PI * freq) / rate;
      const env = Math.min(1, i / attack, (len - i) / release);
      let v = 0;
      for (let h = 0; h < n.harmonics.length; h++) v += (n.harmonics[h] ?? 0) * Math.sin(phase * (h + 1));
      const idx = n.start + i;
      mix[idx] = (mix[idx] ?? 0) + n.amp * env * v;
    }
  }
  const SLICE = 1 << 19;
  let peak = 0;
  for (let i = 0; i < total; i++) {
    peak = Math.max(peak, Math.abs(mix[i] ?? 0));
    if (i % SLICE === SLICE - 1) await new Promise((r) => setImmediate(r));
  }
  const gain = peak > 0 ? (0.8 * 32767) / peak : 0;
  const out = new Int16Array(total);
  for (let i = 0; i < total; i++) {
    out[i] = Math.round((mix[i] ?? 0) * gain);
    if (i % SLICE === SLICE - 1) await new Promise((r) => setImmediate(r));
  }
  return out;
}

/** A canonical 44-byte-header PCM WAV. */
export function encodeWav(samples: Int16Array, sampleRate: number): Buffer {
  const dataBytes = samples.length * 2;
  const buf = Buffer.alloc(44 + dataBytes);
  buf.write('RIFF', 0, 'latin1');
  buf.writeUInt32LE(36 + dataBytes, 4);
  buf.write('WAVE', 8, 'latin1');
  buf.write('fmt ', 12, 'latin1');
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20); // PCM
  buf.writeUInt16LE(1, 22); // mono
  buf.writeUInt32LE(sampleRate, 24);
  buf.writeUInt32LE(sampleRate * 2, 28);
  buf.writeUInt16LE(2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write('data', 36, 'latin1');
  buf.writeUInt32LE(dataBytes, 40);
  // WAV is little-endian: a straight copy on little-endian hosts (nearly all),
  // sample by sample elsewhere.
  if (endianness() === 'LE') Buffer.from(samples.buffer, samples.byteOffset, dataBytes).copy(buf, 44);
  else for (let i = 0; i < samples.length; i++) buf.writeInt16LE(samples[i] ?? 0, 44 + i * 2);
  return buf;
}

async function wavToMp3(wav: Buffer, timeoutMs: number): Promise<Buffer> {
  const caps = await ffmpegCapabilities();
  if (!caps.mp3) throw new MediaError('this ffmpeg has no MP3 encoder (libmp3lame)');
  // A file rather than a pipe so the muxer can go back and fill in the Xing
  // header, which players need to show the right duration.
  return withTempDir(async (dir) => {
    const src = join(dir, 'in.wav');
    const dst = join(dir, 'out.mp3');
    await writeFile(src, wav);
    await runFfmpeg(
      ['-i', src, '-map_metadata', '-1', '-fflags', '+bitexact', '-flags:a', '+bitexact', '-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3', dst],
      { timeoutMs },
    );
    return readFile(dst);
  });
}

/**
 * A deterministic PCM 16-bit mono WAV (or MP3) of exactly the requested
 * duration. Cached by all inputs; the returned Buffer is shared.
 */
export async function renderAudio(opts: RenderAudioOptions): Promise<RenderedAudio> {
  const format = opts.format ?? 'wav';
  if (format !== 'wav' && format !== 'mp3') throw new MediaInputError(`format must be wav or mp3, got ${String(format)}`);
  const text = opts.text;
  if (text !== undefined && typeof text !== 'string') throw new MediaInputError('text must be a string');
  const prompt = opts.prompt ?? '';
  if (typeof prompt !== 'string') throw new MediaInputError('prompt must be a string');
  const duration = opts.durationS ?? (text !== undefined ? speechDurationS(text) : undefined);
  if (duration === undefined) throw new MediaInputError('durationS is required when there is no text');
  const ms = parseDurationMs(duration, AUDIO_MIN_MS, AUDIO_MAX_MS);
  const seed = seedKey(opts.seed);
  const key = 'audio:' + digestHex(text === undefined ? 'music' : 'speech', text ?? prompt, seed, ms, format);
  return renderCache.getOrCreate(
    key,
    async () => {
      const rate = AUDIO_SAMPLE_RATE;
      const total = (ms * rate) / 1000;
      const rng = rngFor('audio', text === undefined ? 'music' : 'speech', text ?? prompt, seed);
      const notes = text !== undefined && text.trim() !== '' ? speechNotes(rng, text, total, rate) : musicNotes(rng, total, rate);
      const wav = encodeWav(await synthesize(notes, total, rate), rate);
      const durationS = formatDurationMs(ms);
      if (format === 'wav') return { bytes: wav, mime: 'audio/wav', durationS, sampleRate: rate } as RenderedAudio;
      const mp3 = await wavToMp3(wav, 20_000 + ms / 10);
      return { bytes: mp3, mime: 'audio/mpeg', durationS, sampleRate: rate } as RenderedAudio;
    },
    (v) => v.bytes.length + 256,
  );
}
