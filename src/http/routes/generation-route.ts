import { noteGeneration } from '../request-log-hook.js';
import type { TObject } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MODALITIES, type Modality } from '../../catalog/index.js';
import type { Principal } from '../../domain/access.js';
import type { AppDeps } from '../../deps.js';
import type { FileLinks } from '../../files/links.js';
import type { Db } from '../../store/db.js';
import { acceptRequest, type AcceptedGeneration, type GenerationAsk } from '../../generations/accept-request.js';
import { MODALITY_RULES } from '../../generations/modalities.js';
import { toGenerationView, type GenerationRow, type OutputRow } from '../../generations/views.js';
import { finishSynchronously, resumeSynchronously } from '../../generations/run-sync.js';
import { selectOutputs } from '../../store/generations.js';
import { announceDeprecation } from '../deprecation-headers.js';
import { defineRoute, type RouteDef } from '../route.js';
import { Generation, QueuedVideo } from './generation-schema.js';

/** Reading a generation's outputs and signing their links. */
export interface GenerationViewPorts {
  db: Db;
  links: FileLinks;
}

const INFO_OR_BELOW = new Set(['trace', 'debug', 'info']);

/** Later log lines of this request (its completion line among them) name the generation it created. */
export function tagRequestLog(request: FastifyRequest, generationId: string): void {
  // A child logger per request costs a little; none is made when its lines would not be written anyway.
  if (INFO_OR_BELOW.has(request.log.level)) request.log = request.log.child({ generationId });
}

export async function generationView(deps: GenerationViewPorts, g: GenerationRow): Promise<Record<string, unknown>> {
  const outputs = (await selectOutputs(deps.db, [g.id])).get(g.id) ?? [];
  return toGenerationView(g, outputs, deps.links);
}

/**
 * A generation route's accept: acceptRequest, then what the answer says of it whatever its shape: the log names the
 * generation, and the response carries its model's deprecation headers (a resumed or cached answer too, set before
 * any stream's head is written).
 */
export async function acceptGeneration(
  ctx: { deps: AppDeps; principal: Principal; request: FastifyRequest; reply: FastifyReply },
  ask: GenerationAsk,
): Promise<AcceptedGeneration> {
  const accepted = await acceptRequest(ctx.deps, ctx.principal, ask);
  tagRequestLog(ctx.request, accepted.g.id);
  noteGeneration(ctx.request, accepted.g.id, accepted.model?.slug ?? accepted.g.model);
  announceDeprecation(ctx.reply, ctx.deps.providers.records, [accepted.model], 'generation', (name) => ctx.deps.catalog.find(name));
  return accepted;
}

/** A synchronous generation run to its end in the request (or, resumed, waited for): 502/451 when it failed. */
export function finishGenerationRequest(deps: AppDeps, principal: Principal, g: GenerationRow, resume: string | null): Promise<{ row: GenerationRow; outputs: OutputRow[] }> {
  return resume ? resumeSynchronously(deps, principal, resume) : finishSynchronously(deps, g);
}

/** The HTTP facts of a modality's endpoint; its request (fields, scope, prompt, image rule) is the modality's own. */
interface ModalityEndpoint {
  path: string;
  operationId: string;
  summary: string;
  description: string;
  /** The queued answer (202) repeats the id as `generation_id`, with this schema (contract: videos). */
  queuedWithGenerationId?: TObject;
}

const ENDPOINTS: Readonly<Record<Modality, ModalityEndpoint>> = {
  image: {
    path: '/v1/images',
    operationId: 'createImage',
    summary: 'Generate images (synchronous)',
    description: 'Text-to-image, or image-to-image with upload_id or image_url. Answers with the finished generation.',
  },
  video: {
    path: '/v1/videos',
    operationId: 'createVideo',
    summary: 'Generate a video (asynchronous)',
    description: 'Answers 202 with the queued generation and its generation_id; the MP4 and a JPEG thumbnail follow.',
    queuedWithGenerationId: QueuedVideo,
  },
  voice: {
    path: '/v1/voice',
    operationId: 'createVoice',
    summary: 'Text to speech (synchronous)',
    description: 'Answers with the finished generation: one audio output. Charged per 1,000 characters.',
  },
  music: {
    path: '/v1/music',
    operationId: 'createMusic',
    summary: 'Generate music (asynchronous)',
    description: 'Answers 202 with the queued generation; one audio output of duration_s seconds follows.',
  },
  avatar: {
    path: '/v1/avatars',
    operationId: 'createAvatar',
    summary: 'Talking avatar / lipsync (asynchronous)',
    description:
      'A portrait (upload_id or image_url) speaking `text` (with voice_id), or lip-syncing speech: `audio_url`, or an audio upload as `audio_upload_id`. ' +
      'Answers 202; a video and its thumbnail follow.',
  },
  chat: {
    path: '/v1/chat',
    operationId: 'createChat',
    summary: 'Chat completion (synchronous, generation shape)',
    description: 'Reserves max_tokens output tokens and charges the tokens produced. POST /v1/chat/completions is the same in the OpenAI shape.',
  },
  '3d': {
    path: '/v1/three-d',
    operationId: 'createThreeD',
    summary: 'Text-to-3D or image-to-3D (asynchronous)',
    description: 'Answers 202; a GLB mesh (model/gltf-binary) and a thumbnail follow.',
  },
  upscale: {
    path: '/v1/upscale',
    operationId: 'createUpscale',
    summary: 'Upscale an image 2x or 4x (asynchronous)',
    description: 'Answers 202; a JPEG of exactly the input size × scale follows.',
  },
};

/**
 * What a client needs to know of a modality to call its endpoint, read from its declaration: the OpenAPI document
 * carries it (`x-mmgen-modality`), and the dashboard, the SDK's generator and the user CLI take it from there.
 */
function modalityFacts(modality: Modality) {
  const { sync, request } = MODALITY_RULES[modality];
  return { modality, sync, prompt_field: request.prompt?.field ?? null, image: request.image ?? 'none' };
}

/**
 * A modality's endpoint: synchronous (images, voice, chat: 200 with the finished generation) or asynchronous (202
 * with the queued one), its body the modality's request schema (generations/modalities/<modality>.ts).
 */
function modalityRoute(modality: Modality): RouteDef {
  const { sync, request: { schema, scope } } = MODALITY_RULES[modality];
  const e = ENDPOINTS[modality];
  return defineRoute<{ body: TObject; response: Record<number, TObject> }>({
    method: 'POST',
    path: e.path,
    operationId: e.operationId,
    summary: e.summary,
    description: e.description,
    tag: 'Generations',
    extensions: { 'x-mmgen-modality': modalityFacts(modality) },
    // Every effect follows createGeneration's accepting statement (or its confirmed cache copy).
    auth: { role: 'developer', scope, consumesCredits: true, cacheable: true },
    errors: [402, 404, 410, ...(sync ? [502] : []), 503],
    schema: { body: schema, response: sync ? { 200: Generation } : { 202: e.queuedWithGenerationId ?? Generation } },
    handler: async ({ body, principal, deps, request, reply }) => {
      const ask = { kind: 'generation', modality, body, sent: request.sentFields, claim: request.idempotency ?? undefined } as const;
      const { g, resume } = await acceptGeneration({ deps, principal, request, reply }, ask);
      if (!sync) {
        const view = await generationView(deps, g);
        return { status: 202, body: e.queuedWithGenerationId ? { ...view, generation_id: g.id } : view };
      }
      const { row, outputs } = await finishGenerationRequest(deps, principal, g, resume);
      return { status: 200, body: await toGenerationView(row, outputs, deps.links) };
    },
  }) as RouteDef;
}

/** Each modality's endpoint. */
export const MODALITY_ROUTES: Readonly<Record<Modality, RouteDef>> = Object.fromEntries(MODALITIES.map((m) => [m, modalityRoute(m)])) as Record<Modality, RouteDef>;
