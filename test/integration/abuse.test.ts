import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/main.js';
import { client, describeOnBackend, startTestServer, type ApiResponse, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * Abuse: guessing keys (failed authentications are limited per client
 * address, and the address cannot be forged), presigned URLs (tampered,
 * expired, replayed for another file), and secrets: key and webhook secrets
 * and URL signatures never appear in logs, errors or list responses.
 */
describeOnBackend('abuse', 'pglite', (backend) => {
  describe('brute force: failed authentications are limited per client address', () => {
    let s: TestServer;
    let proxied: TestServer;
    let org: TestOrg;
    const LIMIT = 5;

    beforeAll(async () => {
      s = await startTestServer(backend, { MMGEN_AUTH_FAILURES_PER_MINUTE: String(LIMIT) });
      proxied = await startTestServer(backend, { MMGEN_AUTH_FAILURES_PER_MINUTE: String(LIMIT), MMGEN_TRUSTED_PROXIES: '127.0.0.1,::1' });
      org = await s.createOrg();
    });
    afterAll(async () => {
      await s?.close();
      await proxied?.close();
    });

    it('every kind of failure counts, and X-Forwarded-For from an untrusted peer does not reset the count', async () => {
      const api = client(s.url);
      const revoked = (await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'soon revoked' } })).body;
      await api('DELETE', `/v1/api-keys/${revoked.id}`, { key: org.live });
      const attempts: Array<Record<string, string>> = [
        {},
        { authorization: 'Basic dXNlcjpwYXNz' },
        { authorization: 'Bearer sk_live_guess000000000000000000000000' },
        { authorization: `Bearer ${revoked.key}` },
        { authorization: 'Bearer not-even-a-key' },
      ];
      const statuses: number[] = [];
      for (let i = 0; i < attempts.length; i++) {
        statuses.push((await api('GET', '/v1/organization', { headers: { ...attempts[i]!, 'x-forwarded-for': `203.0.113.${i}` } })).status);
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401]);
      // Over the limit, whatever address the request claims to come from.
      for (const forged of ['198.51.100.7', '2001:db8::1', '10.0.0.1, 192.0.2.1']) {
        const res = await api('GET', '/v1/organization', { headers: { authorization: 'Bearer sk_live_guess111111111111111111111111', 'x-forwarded-for': forged } });
        expect(res.status, forged).toBe(429);
        expect(res.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      }
      // Even the right key from the blocked address is served: the brake is on guessing, not on the client.
      expect((await api('GET', '/v1/organization', { key: org.live })).status).toBe(200);
      // Public routes neither count nor are blocked.
      expect((await api('GET', '/v1/openapi.json')).status).toBe(200);
    });

    it('behind a trusted proxy each client has its own count, and a client cannot escape by prepending addresses', async () => {
      const api = client(proxied.url);
      const o = await proxied.createOrg();
      const asClient = (xff: string, key = 'sk_test_guess000000000000000000000000') =>
        api('GET', '/v1/wallet', { headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': xff } });
      for (let i = 0; i < LIMIT; i++) expect((await asClient('198.51.100.1')).status).toBe(401);
      expect((await asClient('198.51.100.1')).status).toBe(429);
      // The proxy appends the real peer; what the client wrote before it is not believed.
      for (const spoofed of ['1.2.3.4', '5.6.7.8, 9.9.9.9']) expect((await asClient(`${spoofed}, 198.51.100.1`)).status, spoofed).toBe(429);
      // Another client behind the same proxy is unaffected.
      expect((await asClient('198.51.100.2')).status).toBe(401);
      expect((await asClient('198.51.100.1', o.test)).status).toBe(200);
    });
  });

  describe('presigned URLs', () => {
    let s: TestServer;
    let api: ReturnType<typeof client>;
    let org: TestOrg;
    let other: TestOrg;
    let a: URL;
    let b: URL;
    let foreign: URL;

    beforeAll(async () => {
      s = await startTestServer(backend, {}, { worker: false });
      api = client(s.url);
      org = await s.createOrg();
      other = await s.createOrg();
      const image = async (key: string, prompt: string) => {
        const g = await api('POST', '/v1/images', { key, body: { model: 'flux-schnell', prompt, width: 256, height: 256 } });
        expect(g.status).toBe(200);
        return new URL(g.body.outputs[0].url);
      };
      a = await image(org.test, 'a');
      b = await image(org.test, 'b');
      foreign = await image(other.test, 'c');
    });
    afterAll(async () => s?.close());

    const get = (path: string, search: string) => api('GET', `${path}${search}`);
    const forbidden = (res: ApiResponse, what: string) => {
      expect(res.status, what).toBe(403);
      expect(res.body.error, what).toMatchObject({ type: 'permission_error', code: 'signature_invalid' });
    };

    it('a signature works for its own file only: never for another file, of this organization or another', async () => {
      expect((await get(a.pathname, a.search)).status).toBe(200);
      forbidden(await get(b.pathname, a.search), "a's signature on b");
      forbidden(await get(foreign.pathname, a.search), "a's signature on another organization's file");
      forbidden(await get(a.pathname, foreign.search), "another organization's signature on a");
      forbidden(await get(a.pathname.replace(/\.png$/, '.jpg'), a.search), 'same id, other extension');
      forbidden(await get(a.pathname.replace('/files/', '/files/x'), a.search), 'a prefixed name');
    });

    it('tampering with the signature or the expiry in any way is refused', async () => {
      const sig = a.searchParams.get('signature')!;
      const expires = a.searchParams.get('expires')!;
      const variants: Array<[string, string]> = [
        ['flipped', `?expires=${expires}&signature=${(sig[0] === '0' ? '1' : '0') + sig.slice(1)}`],
        ['upper case', `?expires=${expires}&signature=${sig.toUpperCase()}`],
        ['truncated', `?expires=${expires}&signature=${sig.slice(0, 32)}`],
        ['extended', `?expires=${expires}&signature=${sig}00`],
        ['later expiry', `?expires=${Number(expires) + 86_400}&signature=${sig}`],
        ['leading zero', `?expires=0${expires}&signature=${sig}`],
        ['no expiry', `?signature=${sig}`],
        ['no signature', `?expires=${expires}`],
        ['empty', ''],
      ];
      for (const [what, search] of variants) forbidden(await get(a.pathname, search), what);
      // Several values for one parameter are not a signature at all.
      const twice = await get(a.pathname, `?expires=${expires}&signature=${'0'.repeat(64)}&signature=${sig}`);
      expect(twice.status).toBeGreaterThanOrEqual(400);
      expect(twice.status).toBeLessThan(500);
    });

    it('an expired URL is refused even with a correct signature, and says so', async () => {
      const expired = new URL(s.runtime.deps.signer.sign(a.pathname, -1));
      const res = await get(a.pathname, expired.search);
      forbidden(res, 'expired');
      expect(res.body.error.message).toMatch(/expired/);
    });
  });

  describe('secrets never appear in logs, errors or list responses', () => {
    let s: TestServer;
    let api: ReturnType<typeof client>;
    let receiver: Server;
    let receiverUrl: string;
    const logLines: string[] = [];
    /** Every response body except the one creation response that carries each secret. */
    const seen: string[] = [];

    beforeAll(async () => {
      receiver = createServer((req, res) => {
        req.resume();
        // Echoes the signature header back, as a careless receiver might: it must not end up anywhere.
        res.writeHead(500, { 'x-echo': String(req.headers['x-service-signature']) });
        res.end(`failed: ${String(req.headers['x-service-signature'])}`);
      });
      await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
      receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
      const sink = new Writable({
        write(chunk: Buffer, _enc, done) {
          logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
          done();
        },
      });
      s = await startTestServer(
        backend,
        { LOG_LEVEL: 'trace', MMGEN_ALLOW_PRIVATE_NETWORK: '1', MMGEN_WEBHOOK_RETRY_DELAYS: '0.05,0.05,0.05,0.05,0.05' },
        // The production logger (its redaction included), at its most talkative, into a buffer.
        { log: (config) => createLogger(config, sink) },
      );
      const raw = client(s.url);
      api = async (method, path, opts = {}) => {
        const res = await raw(method, path, opts);
        seen.push(`${res.status} ${JSON.stringify(res.body)} ${JSON.stringify([...res.headers])}`);
        return res;
      };
    });
    afterAll(async () => {
      await s?.close();
      receiver?.closeAllConnections();
      await new Promise((r) => receiver?.close(r));
    });

    it('after a busy session, no secret is in any log line or any later response', async () => {
      const org = await s.createOrg({ credits: 1_000_000 });
      const secrets: string[] = [org.live, org.test];
      const key = await client(s.url)('POST', '/v1/api-keys', { key: org.live, body: { name: 'ci', scopes: ['images:write'] } });
      secrets.push(key.body.key);
      const hook = await client(s.url)('POST', '/v1/webhooks', { key: org.test, body: { url: `${receiverUrl}/h`, events: ['*'] } });
      secrets.push(hook.body.secret);

      // Use every credential, rightly and wrongly.
      await api('GET', '/v1/organization', { key: key.body.key });
      await api('GET', '/v1/wallet', { key: key.body.key });
      await api('GET', '/v1/organization', { key: `${key.body.key.slice(0, -1)}x` });
      await api('GET', '/v1/organization', { headers: { authorization: `Basic ${Buffer.from(`user:${org.live}`).toString('base64')}` } });
      await api('GET', '/v1/organization', { headers: { authorization: `Bearer ${org.live} ${org.test}` } });
      // (Its response carries the output's signed URL, as it should: not recorded.)
      const img = await client(s.url)('POST', '/v1/images', { key: org.test, body: { model: 'flux-schnell', prompt: 'secrets', width: 256, height: 256 } });
      const fileUrl = new URL(img.body.outputs[0].url);
      secrets.push(fileUrl.searchParams.get('signature')!);
      await api('POST', '/v1/images', { key: org.live, body: { model: 'flux-schnell', prompt: 'live', width: 256, height: 256 } });
      await api('POST', `/v1/webhooks/${hook.body.id}/test`, { key: org.test, body: {} });
      // A 500 on a presigned URL: the error is logged, with the URL, but not its signature.
      await s.db.query("UPDATE generation_outputs SET blob_key = 'not a valid key' WHERE generation_id = $1", [img.body.id]);
      const broken = await api('GET', `${fileUrl.pathname}${fileUrl.search}`);
      expect(broken.status).toBe(500);
      expect(logLines.some((l) => l.includes(broken.body.error.request_id))).toBe(true);

      // Wait for the webhook's six attempts, each answered with the signature echoed back.
      let deliveries: any[] = [];
      for (let i = 0; i < 200; i++) {
        deliveries = (await api('GET', `/v1/webhooks/${hook.body.id}/deliveries?limit=100`, { key: org.test })).body.data;
        if (deliveries.length > 0 && deliveries.every((d) => d.status === 'exhausted' || d.status === 'succeeded')) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(deliveries.some((d) => d.status === 'exhausted')).toBe(true);
      for (const d of deliveries) await api('GET', `/v1/webhooks/${hook.body.id}/deliveries/${d.id}`, { key: org.test });
      await api('GET', '/v1/webhooks', { key: org.test });
      await api('GET', `/v1/webhooks/${hook.body.id}`, { key: org.test });
      await api('GET', '/v1/api-keys?limit=100', { key: org.live });
      await api('GET', `/v1/api-keys/${key.body.id}`, { key: org.live });
      await api('GET', '/v1/usage?group_by=api_key', { key: org.live });

      const log = logLines.join('\n');
      const responses = seen.join('\n');
      for (const secret of secrets) {
        expect(log.includes(secret), `a log line holds ${secret.slice(0, 12)}…`).toBe(false);
        expect(responses.includes(secret), `a response holds ${secret.slice(0, 12)}…`).toBe(false);
      }
      // Nor anything shaped like one.
      expect(log).not.toMatch(/sk_(live|test)_[0-9A-Za-z]{20,}|whsec_[0-9A-Za-z]{20,}|signature=[0-9a-f]{64}|v1=[0-9a-f]{64}/);
      expect(responses).not.toMatch(/whsec_[0-9A-Za-z]{20,}|v1=[0-9a-f]{64}/);
    });
  });
});
