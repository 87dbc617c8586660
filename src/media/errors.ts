/** The caller asked for something out of range or sent unusable bytes (maps to a 4xx). */
export class MediaInputError extends RangeError {
  override name = 'MediaInputError';
}

/** Rendering failed on our side (encoder missing, crashed or timed out; maps to a 5xx). */
export class MediaError extends Error {
  override name = 'MediaError';
}

export function requireInt(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new MediaInputError(`${name} must be an integer from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}

export type Seed = number | string | undefined;

/**
 * Seeds are compared by their decimal text so that 7 and "7" give the same
 * output: HTTP callers may send either.
 */
export function seedKey(seed: Seed): string {
  if (seed === undefined) return '';
  if (typeof seed === 'number' && !Number.isFinite(seed)) {
    throw new MediaInputError(`seed must be a finite number, got ${seed}`);
  }
  return String(seed);
}
