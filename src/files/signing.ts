import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../store/db.js';
import { keepUrlSigningSecret } from '../store/settings.js';
import type { SignatureCheck, UrlSigner } from './types.js';

export const DEFAULT_URL_TTL_SECONDS = 3600;

/** HMAC-SHA-256 signed, expiring URLs under the public base URL. */
export class HmacUrlSigner implements UrlSigner {
  constructor(
    private readonly secret: string,
    private readonly publicUrl: string,
    private readonly now: () => number = Date.now,
  ) {}

  private mac(path: string, expires: string, extra: Array<[string, string]>): string {
    const material = [path, expires, ...extra.map(([k, v]) => `${k}=${v}`)].join('\n');
    return createHmac('sha256', this.secret).update(material).digest('hex');
  }

  sign(path: string, ttlSeconds = DEFAULT_URL_TTL_SECONDS, extra: Record<string, string> = {}): string {
    const expires = String(Math.floor(this.now() / 1000) + ttlSeconds);
    const pairs = Object.entries(extra).sort(([a], [b]) => a.localeCompare(b));
    const params = new URLSearchParams([...pairs, ['expires', expires], ['signature', this.mac(path, expires, pairs)]]);
    return `${this.publicUrl}${path}?${params.toString()}`;
  }

  verify(path: string, query: Record<string, string | undefined>, extraKeys: string[] = []): SignatureCheck {
    const { expires, signature } = query;
    if (!expires || !signature || !/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature)) return 'invalid';
    const pairs = [...extraKeys].sort().map((k): [string, string] => [k, query[k] ?? '']);
    const expected = Buffer.from(this.mac(path, expires, pairs), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return 'invalid';
    return Number(expires) * 1000 < this.now() ? 'expired' : 'ok';
  }
}

/** The URL-signing secret: from config, else made once and kept in the database so every node and restart agree. */
export async function loadSigningSecret(q: Queryable, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  return keepUrlSigningSecret(q, randomBytes(32).toString('hex'));
}
