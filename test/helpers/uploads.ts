import { Agent, fetch as undiciFetch } from 'undici';

/**
 * A PUT to an upload's `upload_url` with the headers mmgen hands out with it (a presigned S3 URL signs Content-Length
 * too). Not Node's own fetch: it hands its request to whichever undici installed the global dispatcher first, Node's
 * or the undici package mmgen depends on (by import order, which differs between Node 20 and 22), and with the
 * package's it fails on an explicit Content-Length ("invalid content-length header"). The package's fetch and an
 * agent of its own are one version, whatever was imported first.
 */
const uploadAgent = new Agent();
export function putToUploadUrl(url: string, headers: Record<string, string>, body: Buffer): ReturnType<typeof undiciFetch> {
  return undiciFetch(url, { method: 'PUT', headers, body, dispatcher: uploadAgent });
}
