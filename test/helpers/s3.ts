import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

/** s3rver's built-in account. */
export const S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface TestS3 {
  /** The endpoint clients use: the verifying front, on loopback. */
  endpoint: string;
  bucket: string;
  /** Requests the front refused for a bad signature, by reason. */
  refused: string[];
  /** Environment for an mmgen process (or loadConfig) using this store. */
  env(extra?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
}

/**
 * An S3-compatible store on loopback: s3rver (the only one installable here)
 * behind a small front that verifies AWS Signature Version 4, written from
 * AWS's published algorithm, on every request. s3rver itself checks presigned
 * expiry but skips V4 signature verification, so without the front a presigned
 * PUT with another Content-Type or size would be accepted where S3 refuses it.
 */
export async function startTestS3(bucket = 'mmgen-test'): Promise<TestS3> {
  const dir = mkdtempSync(join(tmpdir(), 'mmgen-s3rver-'));
  const s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: bucket }] });
  const backend = (await s3rver.run()) as AddressInfo;
  const refused: string[] = [];
  const front = createServer((req, res) => {
    void handle(req, res, backend.port, refused).catch((err: unknown) => {
      res.statusCode = 500;
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  return {
    endpoint,
    bucket,
    refused,
    env: (extra = {}) => ({
      MMGEN_S3_BUCKET: bucket,
      MMGEN_S3_ENDPOINT: endpoint,
      MMGEN_S3_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
      ...extra,
    }),
    async close() {
      await closeServer(front);
      await s3rver.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

async function handle(req: IncomingMessage, res: ServerResponse, backendPort: number, refused: string[]): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = Buffer.concat(chunks);
  const problem = verifySigV4(req, body, S3_CREDENTIALS);
  if (problem) {
    refused.push(problem);
    res.writeHead(403, { 'content-type': 'application/xml' });
    res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>SignatureDoesNotMatch</Code><Message>${problem}</Message></Error>`);
    return;
  }
  const headers = { ...req.headers };
  delete headers.expect;
  const upstream = httpRequest({ host: '127.0.0.1', port: backendPort, method: req.method, path: req.url, headers });
  upstream.on('response', (r) => {
    res.writeHead(r.statusCode ?? 502, r.headers);
    r.pipe(res);
  });
  upstream.on('error', (err) => {
    res.statusCode = 502;
    res.end(String(err));
  });
  upstream.end(body);
}

const rfc3986 = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const sha256hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data).digest();

/** null when the request carries a valid SigV4 signature (header or query), else why not. */
export function verifySigV4(req: IncomingMessage, body: Buffer, creds: { accessKeyId: string; secretAccessKey: string }): string | null {
  const url = new URL(req.url ?? '/', 'http://front');
  const query = [...url.searchParams.entries()];
  let credential: string;
  let signedHeaders: string;
  let signature: string;
  let amzDate: string;
  let payloadHash: string;
  const auth = req.headers.authorization;
  if (url.searchParams.get('X-Amz-Algorithm') === 'AWS4-HMAC-SHA256') {
    credential = url.searchParams.get('X-Amz-Credential') ?? '';
    signedHeaders = url.searchParams.get('X-Amz-SignedHeaders') ?? '';
    signature = url.searchParams.get('X-Amz-Signature') ?? '';
    amzDate = url.searchParams.get('X-Amz-Date') ?? '';
    const expires = Number(url.searchParams.get('X-Amz-Expires'));
    if (!(expires >= 1 && expires <= 604_800)) return 'bad X-Amz-Expires';
    if (Date.now() > parseAmzDate(amzDate) + expires * 1000) return 'expired';
    payloadHash = 'UNSIGNED-PAYLOAD';
  } else if (auth?.startsWith('AWS4-HMAC-SHA256 ')) {
    const parts = new Map(auth.slice(17).split(',').map((p) => p.trim().split('=') as [string, string]));
    credential = parts.get('Credential') ?? '';
    signedHeaders = parts.get('SignedHeaders') ?? '';
    signature = parts.get('Signature') ?? '';
    amzDate = String(req.headers['x-amz-date'] ?? '');
    payloadHash = String(req.headers['x-amz-content-sha256'] ?? '');
    if (/^[0-9a-f]{64}$/.test(payloadHash) && payloadHash !== sha256hex(body)) return 'payload hash mismatch';
    if (Math.abs(Date.now() - parseAmzDate(amzDate)) > 15 * 60_000) return 'request time skewed';
  } else {
    return 'unsigned request';
  }
  const [accessKeyId, day, region, service, terminator] = credential.split('/');
  if (accessKeyId !== creds.accessKeyId || terminator !== 'aws4_request' || !day || !region || !service) return 'bad credential scope';
  if (!amzDate.startsWith(day)) return 'credential date differs from X-Amz-Date';

  const path = url.pathname.split('/').map((seg) => rfc3986(decodeURIComponent(seg))).join('/');
  const canonicalQuery = query
    .filter(([k]) => k !== 'X-Amz-Signature')
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const names = signedHeaders.split(';');
  if (!names.includes('host')) return 'host is not signed';
  const canonicalHeaders = names
    .map((n) => {
      const v = req.headers[n];
      const value = Array.isArray(v) ? v.join(',') : (v ?? '');
      return `${n}:${value.trim().replace(/\s+/g, ' ')}\n`;
    })
    .join('');
  const canonicalRequest = [req.method, path, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256hex(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${creds.secretAccessKey}`, day), region), service), 'aws4_request');
  const expected = Buffer.from(hmac(key, stringToSign).toString('hex'));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return `signature mismatch (signed headers: ${signedHeaders})`;
  return null;
}

function parseAmzDate(s: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  return m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) : NaN;
}
