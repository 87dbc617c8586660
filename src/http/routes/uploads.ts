import { Type } from '@sinclair/typebox';
import { createUpload, getUpload, MAX_UPLOAD_BYTES, receiveUpload, UPLOAD_CONTENT_TYPES, type UploadContentType } from '../../files/uploads.js';
import { defineRoute } from '../route.js';
import { IdParams, Nullable, Timestamp } from '../schemas.js';
import { SignedQuery } from './files.js';

const uploadFields = {
  id: Type.String({ description: 'upl_…' }),
  object: Type.Literal('upload'),
  status: Type.String({ enum: ['pending', 'uploaded'] }),
  content_type: Type.String({ enum: [...UPLOAD_CONTENT_TYPES] }),
  size_bytes: Type.Integer({ description: 'Declared while pending; the size received once uploaded.' }),
  width: Nullable(Type.Integer({ description: 'Pixels, once an image is uploaded.' })),
  height: Nullable(Type.Integer({ description: 'Pixels, once an image is uploaded.' })),
  duration_s: Nullable(Type.String({ description: 'Seconds, once an audio file is uploaded (e.g. "4.32").' })),
  livemode: Type.Boolean(),
  expires_at: Type.String({ format: 'date-time', description: 'When upload_url stops working. An uploaded file is kept.' }),
  created_at: Timestamp,
  uploaded_at: Nullable(Timestamp),
  file_expired_at: Nullable({
    ...Timestamp,
    description: "When the organization's file retention (`file_days`) deleted the file; a generation naming the upload then answers 410 `file_expired`. null while kept.",
  } as typeof Timestamp),
};
export const Upload = Type.Object(uploadFields, { title: 'Upload' });
const CreatedUpload = Type.Object(
  {
    ...uploadFields,
    upload_url: Type.String({ description: 'PUT the file here within 15 minutes; no API key needed. Returned only at creation.' }),
    method: Type.Literal('PUT'),
    headers: Type.Object(
      {
        'Content-Type': Type.String(),
        'Content-Length': Type.Optional(Type.String({ description: 'Present when the PUT goes straight to S3, which accepts exactly this many bytes.' })),
      },
      { description: 'Headers the PUT must send.' },
    ),
  },
  { title: 'CreatedUpload' },
);

// Reading an upload back is part of uploading (polling its status), so one scope covers both.
const writeAuth = { role: 'developer', scope: 'uploads:write' } as const;
const readAuth = { role: 'viewer', scope: 'uploads:write' } as const;

export const createUploadRoute = defineRoute({
  method: 'POST',
  path: '/v1/uploads',
  operationId: 'createUpload',
  summary: 'Create an upload: a presigned URL for one input image, or an avatar\'s speech',
  description:
    'PUT the file to `upload_url` with the declared Content-Type; then pass the `id` as `upload_id` to a generation ' +
    '(an image), or as `audio_upload_id` to an avatar (audio/mpeg or audio/wav, at most 60 s). The file must be what it is declared to be.',
  tag: 'Uploads',
  auth: writeAuth,
  schema: {
    body: Type.Object(
      {
        content_type: Type.String({ enum: [...UPLOAD_CONTENT_TYPES] }),
        size_bytes: Type.Integer({ minimum: 1, maximum: MAX_UPLOAD_BYTES, description: 'The most bytes the PUT may send (up to 20 MiB).' }),
      },
      { additionalProperties: false },
    ),
    response: { 201: CreatedUpload },
  },
  handler: async ({ principal, body, deps }) => ({
    status: 201,
    body: await createUpload(deps, principal, { content_type: body.content_type as UploadContentType, size_bytes: body.size_bytes }),
  }),
});

export const getUploadRoute = defineRoute({
  method: 'GET',
  path: '/v1/uploads/{id}',
  operationId: 'getUpload',
  summary: 'Get an upload: its status, and width and height once uploaded',
  description:
    'Poll this after sending the file: an image\'s width and height are read once it has arrived, and the upload\'s id is then accepted by generation requests.',
  tag: 'Uploads',
  auth: readAuth,
  schema: { params: IdParams, response: { 200: Upload } },
  handler: async ({ principal, params, deps }) => ({ status: 200, body: await getUpload(deps, principal, params.id) }),
});

export const putUploadRoute = defineRoute({
  method: 'PUT',
  path: '/uploads/{id}',
  operationId: 'putUpload',
  summary: 'Send the file of an upload (the presigned upload_url)',
  description:
    'No API key: the signature in the query is the credential. The body is the raw file with the declared Content-Type, ' +
    'at most `size_bytes` (else 413), a complete image of that type (else 400). Repeating a successful PUT with the same ' +
    'file answers 200 again; another file answers 409 `upload_already_completed`.',
  tag: 'Uploads',
  auth: null,
  rawBody: { contentTypes: [...UPLOAD_CONTENT_TYPES], maxBytes: MAX_UPLOAD_BYTES },
  errors: [403, 404, 409, 410, 413, 415],
  schema: { params: IdParams, querystring: SignedQuery, response: { 200: Upload } },
  handler: async ({ params, query, request, deps }) => ({
    status: 200,
    body: await receiveUpload(deps, params.id, query, request.headers['content-type'], request.body as Buffer | undefined),
  }),
});
