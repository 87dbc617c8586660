import { Type } from '@sinclair/typebox';
import { submitGeneration } from '../../generations/accept.js';
import { EarlyDispatch } from '../../generations/early-dispatch.js';
import { finishFailed } from '../../generations/finish.js';
import type { GenerationRow } from '../../generations/model.js';
import { runStreamed } from '../../generations/run-stream.js';
import { finishSynchronously, resumeSynchronously } from '../../generations/run-sync.js';
import { ApiError } from '../../errors.js';
import { defineRoute } from '../route.js';
import { Nullable } from '../schemas.js';
import { holdToModel, MODALITY_SPECS, screenRequestPrompt, tagRequestLog } from './generation-route.js';
import { Simulate } from './generation-schema.js';

/**
 * POST /v1/chat/completions: the chat generation in the OpenAI shape, so the
 * official OpenAI SDKs work against mmgen. It is billed like POST /v1/chat
 * (reserve max_tokens, charge the output tokens); the completion id is the
 * generation id, so GET /v1/generations/{id} shows what it cost.
 *
 * Accepted OpenAI parameters that mmgen does not act on (top_p, stop,
 * penalties, user) are taken and passed on in `params`, not rejected, so
 * existing OpenAI code runs unchanged.
 */
const TextPart = Type.Object({ type: Type.Literal('text'), text: Type.String({ maxLength: 200_000 }) }, { additionalProperties: false });
const OpenAiMessage = Type.Object(
  {
    role: Type.String({ enum: ['system', 'developer', 'user', 'assistant'] }),
    content: Type.Union([Type.String({ maxLength: 200_000 }), Type.Array(TextPart, { minItems: 1, maxItems: 100 })]),
    name: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

const Body = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 200 }),
    messages: Type.Array(OpenAiMessage, { minItems: 1, maxItems: 500 }),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 32_768 })),
    max_completion_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 32_768 })),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
    top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    n: Type.Optional(Type.Integer({ minimum: 1, maximum: 1, description: 'Only 1 is supported.' })),
    stream: Type.Optional(Type.Boolean()),
    stream_options: Type.Optional(Nullable(Type.Object({ include_usage: Type.Optional(Type.Boolean()) }, { additionalProperties: false }))),
    stop: Type.Optional(Nullable(Type.Union([Type.String({ maxLength: 200 }), Type.Array(Type.String({ maxLength: 200 }), { maxItems: 4 })]))),
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 4_294_967_295 })),
    presence_penalty: Type.Optional(Type.Number({ minimum: -2, maximum: 2 })),
    frequency_penalty: Type.Optional(Type.Number({ minimum: -2, maximum: 2 })),
    user: Type.Optional(Type.String({ maxLength: 256 })),
    cache: Type.Optional(Type.Boolean()),
    simulate: Type.Optional(Simulate),
  },
  { additionalProperties: false },
);

const Usage = Type.Object({ prompt_tokens: Type.Integer(), completion_tokens: Type.Integer(), total_tokens: Type.Integer() });
const Completion = Type.Object(
  {
    id: Type.String({ description: 'The generation id (gen_…).' }),
    object: Type.Literal('chat.completion'),
    created: Type.Integer(),
    model: Type.String(),
    choices: Type.Array(
      Type.Object({
        index: Type.Integer(),
        message: Type.Object({ role: Type.Literal('assistant'), content: Type.String() }),
        finish_reason: Type.String(),
        logprobs: Type.Null(),
      }),
    ),
    usage: Usage,
  },
  { title: 'ChatCompletion' },
);

type OpenAiBody = {
  model: string;
  messages: Array<{ role: string; content: string | Array<{ type: 'text'; text: string }>; name?: string }>;
  max_tokens?: number;
  max_completion_tokens?: number;
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  [k: string]: unknown;
};

function toMmgenChat(b: OpenAiBody): Record<string, unknown> {
  const { messages, max_tokens, max_completion_tokens, stream: _stream, stream_options: _so, n: _n, ...rest } = b;
  return {
    ...rest,
    messages: messages.map((m) => ({
      role: m.role === 'developer' ? 'system' : m.role,
      content: typeof m.content === 'string' ? m.content : m.content.map((p) => p.text).join(''),
    })),
    max_tokens: max_completion_tokens ?? max_tokens ?? 1024,
  };
}

function created(g: GenerationRow): number {
  return Math.floor(g.created_at.getTime() / 1000);
}

function toCompletion(g: GenerationRow) {
  const usage = g.result?.usage ?? { input_tokens: 0, output_tokens: 0 };
  return {
    id: g.id,
    object: 'chat.completion' as const,
    created: created(g),
    model: g.model,
    choices: [{ index: 0, message: g.result?.message ?? { role: 'assistant', content: '' }, finish_reason: g.result?.finish_reason ?? 'stop', logprobs: null }],
    usage: { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens, total_tokens: usage.input_tokens + usage.output_tokens },
  };
}

export const chatCompletions = defineRoute({
  method: 'POST',
  path: '/v1/chat/completions',
  operationId: 'createChatCompletion',
  summary: 'Chat completion in the OpenAI shape (stream: true for server-sent events)',
  tag: 'Compatible',
  compatible: { api: 'openai', reference: 'https://platform.openai.com/docs/api-reference/chat/create' },
  // Every effect follows createGeneration's accepting statement (or its confirmed cache copy).
  auth: { role: 'developer', scope: 'chat:write', consumesCredits: true, cacheable: true },
  errors: [402, 404, 410, 502, 503],
  schema: { body: Body, response: { 200: Completion } },
  handler: async ({ body, principal, deps, request, reply }) => {
    const b = body as OpenAiBody;
    const params = toMmgenChat(b);
    const lastUser = [...(params.messages as Array<{ role: string; content: string }>)].reverse().find((m) => m.role === 'user');
    // A plain completion may reach its provider while its credits are being reserved (early-dispatch.ts).
    const early = b.stream ? undefined : new EarlyDispatch();
    const claim = request.idempotency ?? undefined;
    // An earlier request with this Idempotency-Key accepted a generation and died: its answer, not a new one.
    const resume = claim?.resume;
    let g: GenerationRow;
    if (resume) g = (await resumeSynchronously(deps, principal, resume)).row;
    else {
      // Held to the model's parameters like /v1/chat (contract §3a), for the fields /v1/chat has; OpenAI's other fields
      // (top_p, stop, penalties, user) go to the adapter, which sends those the model's record maps.
      const known = Object.keys(MODALITY_SPECS.get('chat')!.body.properties);
      const held = Object.fromEntries(Object.entries(params).filter(([k]) => known.includes(k)));
      holdToModel(deps, principal, deps.catalog.resolve(params.model as string, 'chat'), held, new Set(Object.keys(held)));
      const said = (params.messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'user').map((m) => m.content).join('\n');
      await screenRequestPrompt(deps, principal, said, 'messages');
      g = await submitGeneration(deps, principal, 'chat', params, lastUser?.content ?? null, undefined, { early, claim });
    }
    tagRequestLog(request, g.id);
    if (!b.stream) {
      if (resume) return { status: 200, body: toCompletion(g) };
      // The reply goes back as soon as the provider answers; the charge (covered by the reservation) is written right after.
      const done = await finishSynchronously(deps, g, { replyEarly: true, early });
      const row = done.early ? { ...done.row, result: { ...done.row.result, message: done.early.message, usage: done.early.usage, finish_reason: done.early.finish_reason } } : done.row;
      return { status: 200, body: toCompletion(row) };
    }
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-request-id': request.id });
    const write = (data: unknown) => res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
      id: g.id, object: 'chat.completion.chunk', created: created(g), model: g.model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    });
    try {
      const done = await deps.inflight.track(runStreamed(deps, g, (text) => write(chunk({ content: text }, null)), () => write(chunk({ role: 'assistant', content: '' }, null))));
      write(chunk({}, done.result?.finish_reason ?? 'stop'));
      if (b.stream_options?.include_usage) {
        const u = toCompletion(done).usage;
        write({ id: g.id, object: 'chat.completion.chunk', created: created(g), model: g.model, choices: [], usage: u });
      }
      write('[DONE]');
    } catch (err) {
      let apiErr: ApiError;
      if (err instanceof ApiError) {
        apiErr = err;
      } else {
        // Unexpected (database, blob store): the client is told it failed, so it must not be charged later.
        request.log.error({ err, generationId: g.id }, 'chat stream failed');
        await finishFailed(deps, g, 'mmgen failed while streaming this generation.').catch(() => {});
        apiErr = new ApiError('internal_error', `The generation ${g.id} failed in mmgen and was refunded. Quote the request id when you report it.`);
      }
      write(apiErr.body(request.id));
    } finally {
      res.end();
    }
    return 'sent';
  },
});
