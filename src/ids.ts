import { randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Bytes from the CSPRNG, drawn 4 KiB at a time: a request makes several ids, and
// one system call per id showed in profiles (Node's randomUUID pools the same way). The process's: random bytes
// belong to no installation.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

/** Uniform random base62 string (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const b = randomByte();
    if (b < 248) out += BASE62[b % 62];
  }
  return out;
}

export type IdPrefix =
  | 'org' | 'usr' | 'key' | 'gen' | 'out' | 'cmp' | 'whk' | 'whd' | 'evt' | 'upl' | 'mdl' | 'req' | 'pay' | 'adj' | 'aud' | 'acc' | 'ses' | 'inv' | 'pky' | 'sgu';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(24)}`;
}
