import { MediaInputError } from './errors.js';

/** Durations as mmgen bills and shows them, exact to the millisecond. */
/** Speaking rate used to derive a voice clip's length from its text. */
export const SPEECH_CHARS_PER_SECOND = 15;
export const SPEECH_MIN_S = 0.5;

/** Milliseconds → "12.48" (no float noise, no trailing zeros). */
export function formatDurationMs(ms: number): string {
  const whole = Math.floor(ms / 1000);
  const frac = ms % 1000;
  return frac === 0 ? String(whole) : `${whole}.${String(frac).padStart(3, '0').replace(/0+$/, '')}`;
}

/** Parses seconds given as a number or decimal string into whole milliseconds. */
export function parseDurationMs(value: number | string, min: number, max: number, name = 'durationS'): number {
  const n = typeof value === 'number' ? value : /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : NaN;
  const ms = Math.round(n * 1000);
  if (!Number.isFinite(ms) || ms < min || ms > max) {
    throw new MediaInputError(`${name} must be from ${min / 1000} to ${max / 1000} seconds, got ${String(value)}`);
  }
  return ms;
}

/**
 * How long a voice clip of this text lasts: SPEECH_CHARS_PER_SECOND characters
 * (Unicode code points, whitespace runs counted once) per second, rounded to
 * the centisecond, never under SPEECH_MIN_S. Returned as a decimal string so it
 * can go straight into exact (decimal) billing arithmetic.
 */
export function speechDurationS(text: string): string {
  const chars = Array.from(text.replace(/\s+/g, ' ').trim()).length;
  // Integer arithmetic: centiseconds = chars * 100 / 15, rounded half up.
  const cs = Math.max(SPEECH_MIN_S * 100, Math.floor((chars * 100 * 2 + SPEECH_CHARS_PER_SECOND) / (SPEECH_CHARS_PER_SECOND * 2)));
  return formatDurationMs(cs * 10);
}
