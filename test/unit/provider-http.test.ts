import { getEventListeners } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../src/providers/circuit.js';
import { collectFiles, nearestAspectRatio, pickOutputs } from '../../src/providers/files.js';
import { DEFAULT_HTTP_POLICY, parseSseBlock, retryAfterMs, UpstreamHttp } from '../../src/providers/http.js';

describe('circuit breaker', () => {
  it('opens after the threshold of consecutive failures, lets one trial through after the cooldown, closes on its success', () => {
    let now = 0;
    const b = new CircuitBreaker('p', { failureThreshold: 3, cooldownMs: 1000 }, () => now);
    b.onFailure();
    b.onFailure();
    b.onSuccess(); // a success resets the count
    b.onFailure();
    b.onFailure();
    expect(b.state).toBe('closed');
    b.onFailure();
    expect(b.state).toBe('open');
    expect(b.tryAcquire()).toBe(false);
    expect(b.retryInMs()).toBe(1000);
    now = 1000;
    expect(b.state).toBe('half_open');
    expect(b.tryAcquire()).toBe(true);
    expect(b.tryAcquire()).toBe(false); // one trial at a time
    b.onSuccess();
    expect(b.state).toBe('closed');
  });

  it('a failed trial opens it for another full cooldown; a neutral end frees the trial', () => {
    let now = 0;
    const b = new CircuitBreaker('p', { failureThreshold: 1, cooldownMs: 500 }, () => now);
    b.onFailure();
    now = 600;
    expect(b.tryAcquire()).toBe(true);
    b.onNeutral();
    expect(b.tryAcquire()).toBe(true);
    b.onFailure();
    expect(b.state).toBe('open');
    now = 1000;
    expect(b.state).toBe('open');
    now = 1100;
    expect(b.state).toBe('half_open');
  });
});

describe('upstream HTTP helpers', () => {
  it("waits out 429s within the bound and leaves nothing listening on the call's signal (which outlives the call)", async () => {
    let answered = 0;
    const server = createServer((_req, res) => {
      answered++;
      if (answered <= 2) res.writeHead(429, { 'content-type': 'application/json', 'retry-after-ms': '20' }).end('{"error":{"message":"slow down"}}');
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const http = new UpstreamHttp('loopback', `http://127.0.0.1:${(server.address() as AddressInfo).port}`, {}, { message: () => undefined }, DEFAULT_HTTP_POLICY);
      const job = new AbortController();
      const res = await http.json({ method: 'GET', path: '/thing', signal: job.signal });
      expect([res.status, res.body, answered]).toEqual([200, { ok: true }, 3]);
      expect(getEventListeners(job.signal, 'abort')).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('Retry-After in seconds, as a date, or OpenAI retry-after-ms', () => {
    expect(retryAfterMs({ 'retry-after': '2' })).toBe(2000);
    expect(retryAfterMs({ 'retry-after': '0.5' })).toBe(500);
    expect(retryAfterMs({ 'retry-after-ms': '150', 'retry-after': '9' })).toBe(150);
    expect(retryAfterMs({ 'retry-after': new Date(10_000).toUTCString() }, 4_000)).toBe(6000);
    expect(retryAfterMs({ 'retry-after': 'soon' })).toBeUndefined();
    expect(retryAfterMs({})).toBeUndefined();
  });

  it('server-sent events: event names, multi-line data, comments ignored', () => {
    expect(parseSseBlock('event: message_start\ndata: {"a":1}')).toEqual({ event: 'message_start', data: '{"a":1}' });
    expect(parseSseBlock('data: one\ndata: two')).toEqual({ event: undefined, data: 'one\ntwo' });
    expect(parseSseBlock(': ping')).toBeNull();
    expect(parseSseBlock('data:[DONE]')).toEqual({ event: undefined, data: '[DONE]' });
  });
});

describe('provider output files', () => {
  it('finds files as URL strings and {url, content_type} objects, in order', () => {
    const files = collectFiles({ images: [{ url: 'https://x/a.png', content_type: 'image/png', width: 8, height: 8 }, 'https://x/b.png'], seed: 4, note: 'not a url' });
    expect(files.map((f) => f.url)).toEqual(['https://x/a.png', 'https://x/b.png']);
    expect(files[0]).toMatchObject({ key: 'images', mime: 'image/png', width: 8 });
  });

  it('keeps the modality\'s main files (images up to the count asked) and an image as a video\'s or mesh\'s thumbnail', () => {
    const mesh = pickOutputs('3d', collectFiles({ model_file: 'https://x/m.glb', color_video: 'https://x/v.mp4', no_background_images: ['https://x/p.png'] }));
    expect(mesh).toEqual([{ url: 'https://x/m.glb', mime: '' }, { url: 'https://x/p.png', mime: '', type: 'thumbnail' }]);
    expect(pickOutputs('image', collectFiles(['https://x/1.png', 'https://x/2.png', 'https://x/3.png']), 2)).toHaveLength(2);
    // Unknown extensions are kept as candidates (sniffed after download) when nothing else matched.
    expect(pickOutputs('video', collectFiles('https://x/file?id=1'))).toEqual([{ url: 'https://x/file?id=1', mime: '' }]);
  });

  it('aspect ratios snap to the nearest a provider knows', () => {
    expect(nearestAspectRatio(1024, 1024, ['16:9', '1:1'])).toBe('1:1');
    expect(nearestAspectRatio(1280, 720, ['1:1', '16:9', '4:3'])).toBe('16:9');
    expect(nearestAspectRatio(720, 1280, ['1:1', '16:9', '9:16'])).toBe('9:16');
  });
});
