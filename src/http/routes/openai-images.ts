import { Type, type Static } from '@sinclair/typebox';
import type { AppDeps } from '../../deps.js';
import { confirmCachedPrincipal } from '../../domain/api-keys.js';
import type { Principal } from '../../domain/access.js';
import { ApiError } from '../../errors.js';
import { keepRequestImage, MAX_UPLOAD_BYTES, requestImage } from '../../files/uploads.js';
import { toOutputView, type GenerationRow, type OutputRow } from '../../generations/views.js';
import { newId } from '../../ids.js';
import { convertImage, IMAGE_FORMAT_MIME, type ImageFormat } from '../../media/index.js';
import { costHeaders } from '../cost-header.js';
import { parseMultipart } from '../multipart.js';
import { defineRoute, type RouteContext, type RouteSchema } from '../route.js';
import { makeAjv, validationError } from '../../validation.js';
import { acceptGeneration, finishGenerationRequest } from './generation-route.js';
import { Prompt, Simulate, StringEnum } from '../../generations/modalities/fields.js';

/**
 * POST /v1/images/generations and POST /v1/images/edits: the image generation in OpenAI's shape (contract §12;
 * the decisions are in docs/contract-addenda.md, "Compatible paths"). The request becomes mmgen's image request
 * (n → num_outputs, size → width and height, an edit's image → its input image), held to the model like
 * POST /v1/images, with errors naming OpenAI's fields. OpenAI's fields that change the picture (quality,
 * background, style, moderation) are taken only at values mmgen does anyway; others are 400, never ignored.
 */

export const GENERATION_ID_HEADER = 'X-Mmgen-Generation-Id';

// What OpenAI's fields are called in mmgen's image request, for the errors.
const OPENAI_NAME: Record<string, string> = { num_outputs: 'n', width: 'size', height: 'size', upload_id: 'image', image_url: 'image' };
const openAiName = (field: string): string => OPENAI_NAME[field] ?? field;

const imageFields = {
  model: Type.String({ minLength: 1, maxLength: 200, description: 'An mmgen slug, mdl_ id, or an alias such as a provider\'s model id.' }),
  prompt: Prompt,
  n: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, description: 'num_outputs; the model decides how many it can make (mmgen: up to 4).' })),
  size: Type.Optional(Type.String({ pattern: '^(auto|[0-9]{1,5}x[0-9]{1,5})$', description: '"WIDTHxHEIGHT" (256–2048, multiples of 8), or "auto" for the model\'s default.' })),
  quality: Type.Optional(Type.String({ enum: ['auto', 'standard', 'hd', 'low', 'medium', 'high'], description: 'Only "auto" is taken: mmgen does not choose a quality.' })),
  response_format: Type.Optional(Type.String({ enum: ['url', 'b64_json'], description: 'Default b64_json (as OpenAI\'s current image models answer); url for a signed URL of the stored image.' })),
  output_format: Type.Optional(StringEnum(['png', 'jpeg', 'webp'], { description: 'Re-encodes the image (with b64_json).' })),
  output_compression: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'Quality of a JPEG or WebP re-encoding (with b64_json).' })),
  background: Type.Optional(Type.String({ enum: ['auto', 'transparent', 'opaque'], description: 'Only "auto" is taken.' })),
  moderation: Type.Optional(Type.String({ enum: ['auto', 'low'], description: 'Only "auto": outputs are moderated by the organization\'s policy.' })),
  style: Type.Optional(Type.String({ enum: ['vivid', 'natural'], description: 'No model mmgen serves takes a style: 400.' })),
  user: Type.Optional(Type.String({ maxLength: 256, description: 'Accepted and not used.' })),
  seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 4_294_967_295 })),
  cache: Type.Optional(Type.Boolean()),
};

const GenerationsBody = Type.Object({ ...imageFields, simulate: Type.Optional(Simulate) }, { additionalProperties: false });
// A form's fields are text: numbers are read from it (coerced), `simulate` as JSON text is not offered.
const EditFields = Type.Object(imageFields, { additionalProperties: false });
type ImageAsk = Static<typeof GenerationsBody>;

const ImagesResponse = Type.Object(
  {
    created: Type.Integer(),
    data: Type.Array(
      Type.Object({
        url: Type.Optional(Type.String({ description: 'A signed URL of the output (expires after an hour).' })),
        b64_json: Type.Optional(Type.String()),
      }),
    ),
  },
  { title: 'ImagesResponse' },
);

function refuse(param: string, why: string): never {
  throw new ApiError('parameter_invalid', why, param);
}

/** OpenAI's image fields as mmgen's image request, and the fields of it the client chose. */
function toMmgenImage(b: ImageAsk): { body: Record<string, unknown>; sent: Set<string> } {
  if (b.quality !== undefined && b.quality !== 'auto') refuse('quality', `quality '${b.quality}' cannot be honored: mmgen's image models take no quality setting; send "auto" or leave it out.`);
  if (b.background !== undefined && b.background !== 'auto') refuse('background', `background '${b.background}' cannot be honored: mmgen's image models take no background setting; send "auto" or leave it out.`);
  if (b.moderation !== undefined && b.moderation !== 'auto') refuse('moderation', 'moderation is set by the organization\'s policy (GET /v1/organization/moderation); send "auto" or leave it out.');
  if (b.style !== undefined) refuse('style', 'No model mmgen serves takes a style; leave it out.');
  if (b.response_format === 'url' && (b.output_format !== undefined || b.output_compression !== undefined)) {
    refuse(b.output_format !== undefined ? 'output_format' : 'output_compression', 'output_format and output_compression re-encode the image in the answer: ask for response_format "b64_json" (the url serves the image as the model made it).');
  }
  const body: Record<string, unknown> = { model: b.model, prompt: b.prompt };
  if (b.n !== undefined) body.num_outputs = b.n;
  if (b.size !== undefined && b.size !== 'auto') {
    const [w, h] = b.size.split('x').map(Number);
    body.width = w;
    body.height = h;
  }
  for (const k of ['seed', 'cache', 'simulate'] as const) if (b[k] !== undefined) body[k] = b[k];
  return { body, sent: new Set(Object.keys(body)) };
}

/** The outputs in OpenAI's `data`: blocked ones are left out (never served); b64_json needs the verdict in. */
async function imagesAnswer(deps: Pick<AppDeps, 'blobs' | 'links'>, b: ImageAsk, row: GenerationRow, outputs: OutputRow[]) {
  const b64 = b.response_format !== 'url';
  const shown = outputs.filter((o) => o.moderation_status !== 'blocked').sort((x, y) => x.position - y.position);
  const data = await Promise.all(
    shown.map(async (o) => {
      if (!b64) return { url: (await toOutputView(o, deps.links)).url };
      if (o.moderation_status === 'pending') {
        throw new ApiError('moderation_pending', `The images of ${row.id} await their moderation verdict; ask for response_format "url", or read GET /v1/generations/${row.id} later.`);
      }
      const blob = await deps.blobs.get(o.blob_key);
      if (!blob) throw new Error(`output ${o.id} has no stored file`);
      const format: ImageFormat | undefined = b.output_format;
      const convert = (format !== undefined && IMAGE_FORMAT_MIME[format] !== o.mime) || b.output_compression !== undefined;
      const bytes = convert ? await convertImage(blob.bytes, format ?? (o.mime.split('/')[1] as ImageFormat), b.output_compression) : blob.bytes;
      return { b64_json: bytes.toString('base64') };
    }),
  );
  return { status: 200, body: { created: Math.floor(row.created_at.getTime() / 1000), data }, headers: { [GENERATION_ID_HEADER]: row.id, ...costHeaders(row) } };
}

async function generate(
  ctx: Pick<RouteContext<RouteSchema>, 'deps' | 'principal' | 'request' | 'reply'>,
  b: ImageAsk,
  input?: { id: string; keep: () => Promise<void> },
) {
  const { deps, principal } = ctx;
  const { body, sent } = toMmgenImage(b);
  if (input) {
    body.upload_id = input.id;
    sent.add('upload_id');
  }
  const { g, resume } = await acceptGeneration(ctx, {
    kind: 'generation', modality: 'image', body, sent, claim: ctx.request.idempotency ?? undefined, paramName: openAiName, beforeSubmit: input?.keep,
  });
  const { row, outputs } = await finishGenerationRequest(deps, principal, g, resume);
  return imagesAnswer(deps, b, row, outputs);
}

const auth = { role: 'developer', scope: 'images:write', consumesCredits: true, cacheable: true } as const;

export const openAiImageGenerations = defineRoute({
  method: 'POST',
  path: '/v1/images/generations',
  operationId: 'createOpenAiImage',
  summary: 'Generate images in the OpenAI shape',
  description: `The image generation of POST /v1/images in OpenAI's request and response shape. The generation id is in the ${GENERATION_ID_HEADER} header.`,
  tag: 'Compatible',
  compatible: { api: 'openai', reference: 'https://platform.openai.com/docs/api-reference/images/create' },
  auth,
  errors: [402, 404, 410, 451, 502, 503],
  schema: { body: GenerationsBody, response: { 200: ImagesResponse } },
  handler: async ({ body, deps, principal, request, reply }) => generate({ deps, principal, request, reply }, body),
});

const MAX_EDIT_FILES = 16;
const fieldsAjv = makeAjv(true);
const checkEditFields = fieldsAjv.compile(EditFields);

/** The form's parts as the handler's body: text fields, and the `image` and `mask` files. */
async function parseEditForm(bytes: Buffer, contentType: string): Promise<Record<string, unknown>> {
  const form = await parseMultipart(bytes, contentType, { maxFiles: MAX_EDIT_FILES, maxFileBytes: MAX_UPLOAD_BYTES, maxFields: 32, maxFieldBytes: 64 * 1024 });
  for (const name of Object.keys(form.files)) {
    if (name !== 'image' && name !== 'mask') throw new ApiError('parameter_unknown', `Unknown file part: ${name}. The form takes image and mask.`, name);
    if (name in form.fields) throw new ApiError('parameter_invalid', `${name} is sent both as a file and as text.`, name);
  }
  return { ...form.fields, ...form.files };
}

export const openAiImageEdits = defineRoute({
  method: 'POST',
  path: '/v1/images/edits',
  operationId: 'createOpenAiImageEdit',
  summary: 'Edit an image in the OpenAI shape (multipart)',
  description:
    'Image-to-image in OpenAI\'s multipart shape: one `image` part (PNG, JPEG or WebP, up to 20 MiB, checked like an upload) becomes the ' +
    `generation's input image (kept as an upload, named in its params); the model must take an input image. No mask. The generation id is in the ${GENERATION_ID_HEADER} header.`,
  tag: 'Compatible',
  compatible: { api: 'openai', reference: 'https://platform.openai.com/docs/api-reference/images/createEdit' },
  auth,
  rawBody: {
    contentTypes: ['multipart/form-data'],
    // One image and a mask at most are useful; the rest is refused by name, after parsing.
    maxBytes: 2 * MAX_UPLOAD_BYTES + 1024 * 1024,
    parse: parseEditForm,
    schema: Type.Object(
      {
        ...imageFields,
        image: Type.String({ contentEncoding: 'binary', description: 'The input image (one part; `image[]` is read as `image`).' }),
        mask: Type.Optional(Type.String({ contentEncoding: 'binary', description: 'Not taken: 400.' })),
      },
      { additionalProperties: false },
    ),
  },
  errors: [402, 404, 410, 451, 502, 503],
  schema: { response: { 200: ImagesResponse } },
  handler: async ({ body, deps, principal, request, reply }) => {
    const { image, mask, ...fields } = (body ?? {}) as Record<string, unknown> & { image?: Array<{ bytes: Buffer; contentType: string }>; mask?: unknown[] };
    if (!checkEditFields(fields)) throw validationError(checkEditFields.errors ?? [], 'body');
    if (mask !== undefined) refuse('mask', 'mmgen\'s image request takes no mask: the model edits the whole image. Leave mask out.');
    if (!image || image.length === 0) throw new ApiError('parameter_missing', 'Missing required parameter: image (a file part).', 'image');
    if (image.length > 1) refuse('image', `mmgen's image request takes one input image; this form has ${image.length}.`);
    const checked = await requestImage(image[0]!.bytes, image[0]!.contentType, 'image');
    const id = newId('upl');
    const keep = async () => {
      // Stored before anything is reserved: a key from the node's cache is confirmed first (AuthSpec.cacheable).
      await confirmCachedPrincipal(deps.db, principal);
      await keepRequestImage(deps, principal as Principal, id, checked);
    };
    return generate({ deps, principal, request, reply }, fields as unknown as ImageAsk, { id, keep });
  },
});
