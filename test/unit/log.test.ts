import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';

function capture(): { lines: () => Array<Record<string, unknown>>; raw: () => string; stream: Writable } {
  let raw = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      raw += chunk.toString();
      cb();
    },
  });
  return { stream, raw: () => raw, lines: () => raw.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('structured logs', () => {
  const key = 'sk_live_AbCdEfGhIjKlMnOpQrStUvWxYz012345';
  const secret = 'whsec_0123456789abcdefghijABCDEFGHIJ0123456789';

  it('are JSON lines with the level, message and fields', () => {
    const c = capture();
    createLogger({ level: 'info' }, c.stream).child({ reqId: 'req_1' }).info({ generationId: 'gen_1' }, 'generation finished');
    expect(c.lines()[0]).toMatchObject({ level: 30, msg: 'generation finished', reqId: 'req_1', generationId: 'gen_1' });
  });

  it('censor secret fields and scrub keys, webhook secrets, bearer tokens and URL signatures from any string', () => {
    const c = capture();
    const log = createLogger({ level: 'info' }, c.stream);
    log.info({ req: { headers: { authorization: `Bearer ${key}` } } }, 'a request');
    log.info({ webhook: { id: 'whk_1', secret }, key }, 'a webhook');
    log.info({ url: `/files/out_1.png?expires=1700000000&signature=${'a'.repeat(64)}` }, 'request completed');
    log.info(
      { url: 'http://minio:9000/b/outputs/x?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAEXAMPLE%2F20250101%2Fus-east-1&X-Amz-Signature=deadbeef&X-Amz-SignedHeaders=host' },
      'presigned',
    );
    log.warn({ note: `the caller sent Bearer ${key} and ${secret} in a message` }, `key ${key} seen`);
    log.error({ err: new Error(`upstream refused ${key}`) }, 'failed');
    const out = c.raw();
    expect(out).not.toContain(key);
    expect(out).not.toContain(secret);
    expect(out).not.toContain('a'.repeat(64));
    expect(out).not.toContain('deadbeef');
    expect(out).not.toContain('AKIAEXAMPLE');
    const lines = c.lines();
    expect((lines[0]!.req as { headers: { authorization: string } }).headers.authorization).toBe('[redacted]');
    expect((lines[1]!.webhook as { secret: string }).secret).toBe('[redacted]');
    expect(lines[2]!.url).toBe('/files/out_1.png?expires=1700000000&signature=[redacted]');
    expect(lines[3]!.url).toContain('X-Amz-SignedHeaders=host');
    expect(lines[4]!.msg).toBe('key [redacted] seen');
    const err = lines[5]!.err as { message: string; stack: string; type: string };
    expect(err).toMatchObject({ type: 'Error', message: 'upstream refused [redacted]' });
    expect(err.stack).toContain('upstream refused [redacted]');
  });
});
