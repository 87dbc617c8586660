import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { AppDeps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { checkSignature } from '../../files/uploads.js';
import { selectOutputBlob } from '../../store/generations.js';
import { defineRoute } from '../route.js';

/** expires + signature: the only credential of a presigned URL. */
export const SignedQuery = Type.Object(
  {
    expires: Type.Optional(Type.String({ maxLength: 20, description: 'Unix time after which the URL stops working.' })),
    signature: Type.Optional(Type.String({ maxLength: 128, description: 'HMAC-SHA-256 over the path and expiry.' })),
  },
  { additionalProperties: false },
);

interface SignedContext {
  deps: AppDeps;
  query: unknown;
  reply: FastifyReply;
}

/**
 * Answers a presigned GET with a stored blob. The signature is checked before
 * anything is looked up, so an unsigned request learns nothing about which
 * files exist. `blob` is the blob key, or a function finding it (null: 404).
 */
export async function serveSignedBlob(
  ctx: SignedContext,
  path: string,
  blob: string | (() => Promise<string | null>),
  what = 'file',
): Promise<'sent'> {
  const query = (ctx.query ?? {}) as Record<string, string | undefined>;
  checkSignature(ctx.deps, path, query, what);
  const key = typeof blob === 'string' ? blob : await blob();
  const stored = key === null ? null : await ctx.deps.blobs.get(key);
  if (!stored) throw new ApiError('resource_not_found', `No such ${what}: '${path.slice(path.lastIndexOf('/') + 1)}'`);
  // The URL is a bearer credential for one reader: shared caches must not keep it, and the browser only until it expires.
  const maxAge = Math.max(0, Number(query.expires) - Math.floor(Date.now() / 1000));
  void ctx.reply
    .status(200)
    .header('Content-Type', stored.contentType)
    .header('Content-Length', String(stored.bytes.length))
    .header('Cache-Control', `private, max-age=${maxAge}`)
    .header('X-Content-Type-Options', 'nosniff')
    // The signature is the credential (no cookies), so any page may fetch the file: the dashboard's
    // 3D viewer loads meshes with fetch(), from MMGEN_PUBLIC_URL, which may be another origin.
    .header('Access-Control-Allow-Origin', '*');
  void ctx.reply.send(stored.bytes);
  return 'sent';
}

/** The answer for a file retention deleted: gone for good, unlike a 404 (never was) or a 403 (a URL to renew). */
export function fileExpired(name: string, at: Date): ApiError {
  return new ApiError('file_expired', `${name} was deleted on ${at.toISOString()} under the organization's file retention (file_days); it cannot be downloaded again.`);
}

export const getFile = defineRoute({
  method: 'GET',
  path: '/files/{name}',
  operationId: 'getFile',
  summary: 'Download a generated file (presigned URL)',
  description:
    'The `url` of a generation output. No API key: the signature in the query is the credential. A tampered or expired URL gets 403; read the generation again for a fresh URL. ' +
    'A file moderation blocked answers 451 `content_blocked`; one whose verdict is pending, 409 `moderation_pending`; ' +
    "one the organization's retention (`file_days`) deleted, 410 `file_expired`.",
  tag: 'Files',
  auth: null,
  errors: [403, 404, 409, 410, 451],
  schema: {
    params: Type.Object({ name: Type.String({ maxLength: 200, description: 'out_….ext' }) }),
    querystring: SignedQuery,
    response: { 200: Type.String({ description: 'The file, with its media type', 'x-raw': true } as never) },
  },
  handler: async (ctx) => {
    const { name } = ctx.params;
    return serveSignedBlob(ctx, `/files/${name}`, async () => {
      const id = name.split('.')[0]!;
      if (!id.startsWith('out_')) return null;
      const output = await selectOutputBlob(ctx.deps.db, id);
      if (output?.files_expired_at) throw fileExpired(name, output.files_expired_at);
      if (output?.moderation_status === 'blocked') throw new ApiError('content_blocked', `Moderation blocked ${name}; it is not served.`);
      if (output?.moderation_status === 'pending') throw new ApiError('moderation_pending', `${name} is waiting for its moderation verdict; try again shortly.`);
      return output?.blob_key ?? null;
    });
  },
});
