import { createHash } from 'node:crypto';

/** Anything that can take part in a cache key or a seed. */
export type KeyPart = string | number | boolean | null | undefined | Uint8Array;

/**
 * SHA-256 over an unambiguous encoding of the parts. JSON alone would not do:
 * Buffers must be hashed by content, and ["ab","c"] must differ from ["a","bc"]
 * (each part is length-prefixed for that reason).
 */
export function digest(...parts: KeyPart[]): Buffer {
  const h = createHash('sha256');
  for (const p of parts) {
    let bytes: Uint8Array;
    let tag: string;
    if (p instanceof Uint8Array) {
      tag = 'b';
      bytes = p;
    } else {
      tag = p === null ? 'n' : p === undefined ? 'u' : (typeof p).charAt(0);
      bytes = Buffer.from(p === null || p === undefined ? '' : String(p), 'utf8');
    }
    const head = Buffer.alloc(5);
    head.write(tag, 0, 1, 'latin1');
    head.writeUInt32BE(bytes.length, 1);
    h.update(head);
    h.update(bytes);
  }
  return h.digest();
}

export function digestHex(...parts: KeyPart[]): string {
  return digest(...parts).toString('hex');
}

/**
 * sfc32: small, fast and, unlike Math.random, reproducible from a seed; the
 * statistical quality is far beyond what picking colours and notes needs.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: Uint8Array) {
    const buf = Buffer.from(seed.buffer, seed.byteOffset, seed.byteLength);
    if (buf.length < 16) throw new RangeError('Rng seed needs at least 16 bytes');
    this.a = buf.readUInt32LE(0);
    this.b = buf.readUInt32LE(4);
    this.c = buf.readUInt32LE(8);
    this.d = buf.readUInt32LE(12);
    // Discard the first outputs: they are correlated with the raw seed words.
    for (let i = 0; i < 12; i++) this.nextU32();
  }

  nextU32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextU32() / 4294967296;
  }

  /** Uniform in [min, max). */
  range(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Uniform integer in [min, max] (inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
}

export function rngFor(...parts: KeyPart[]): Rng {
  return new Rng(digest(...parts));
}
