import { Type, type Static } from '@sinclair/typebox';
import type { GenerationRow } from '../../generations/views.js';
import { defineRoute } from '../route.js';
import { costUsd } from '../cost-header.js';
import { Nullable } from '../schemas.js';
import { compatChatRoute, sendEvent, serveCompatChat, type ChatMessage, type StreamShape } from './compat-chat.js';
import { Simulate } from '../../generations/modalities/fields.js';

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

const Usage = Type.Object({
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
  cost: Type.Number({ description: "What this completion was charged, in US dollars (charged credits × 0.001), as OpenRouter's usage.cost. Also in the X-Mmgen-Cost-Credits header, in credits." }),
});
const Completion = Type.Object(
  {
    id: Type.String({ description: 'The generation id (gen_…).' }),
    object: Type.Literal('chat.completion'),
    created: Type.Integer(),
    model: Type.String(),
    choices: Type.Array(
      Type.Object({
        index: Type.Integer(),
        // OpenAI's schema requires `refusal`, null when the model did not refuse: mmgen's chat never reports one.
        message: Type.Object({ role: Type.Literal('assistant'), content: Type.String(), refusal: Type.Null() }),
        finish_reason: Type.String(),
        logprobs: Type.Null(),
      }),
    ),
    usage: Usage,
  },
  { title: 'ChatCompletion' },
);

/** The request as its schema admits it: one source for the validation and for this type. */
type OpenAiBody = Static<typeof Body>;

function toMmgenChat(b: OpenAiBody): Record<string, unknown> & { messages: ChatMessage[] } {
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
    choices: [{ index: 0, message: { role: 'assistant' as const, content: g.result?.message?.content ?? '', refusal: null }, finish_reason: g.result?.finish_reason ?? 'stop', logprobs: null }],
    usage: { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens, total_tokens: usage.input_tokens + usage.output_tokens, cost: costUsd(g) },
  };
}

export const chatCompletions = defineRoute({
  ...compatChatRoute,
  path: '/v1/chat/completions',
  operationId: 'createChatCompletion',
  summary: 'Chat completion in the OpenAI shape (stream: true for server-sent events)',
  description:
    "One chat generation in OpenAI's Chat Completions shape, for every chat model of the catalog: reserved at `max_tokens`, charged by output tokens, rate-limited, idempotent, prompt-screened and listed in GET /v1/generations. The completion's `id` is the generation's. Text only: fields that would change the reply and that mmgen does not honor are 400 naming them.",
  compatible: { api: 'openai', reference: 'https://platform.openai.com/docs/api-reference/chat/create' },
  schema: { body: Body, response: { 200: Completion } },
  handler: async (ctx) => {
    const b: OpenAiBody = ctx.body;
    const { reply } = ctx;
    const chunk = (g: GenerationRow, delta: Record<string, unknown>, finish: string | null) => ({
      id: g.id, object: 'chat.completion.chunk', created: created(g), model: g.model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    });
    const stream: StreamShape = {
      start: (g) => sendEvent(reply, chunk(g, { role: 'assistant', content: '', refusal: null }, null)),
      delta: (g, text) => sendEvent(reply, chunk(g, { content: text }, null)),
      end: (g, done) => {
        sendEvent(reply, chunk(g, {}, done.result?.finish_reason ?? 'stop'));
        if (b.stream_options?.include_usage) {
          sendEvent(reply, { id: g.id, object: 'chat.completion.chunk', created: created(g), model: g.model, choices: [], usage: toCompletion(done).usage });
        }
        sendEvent(reply, '[DONE]');
      },
      fail: (_g, err, requestId) => sendEvent(reply, err.body(requestId)),
    };
    return serveCompatChat(ctx, toMmgenChat(b), { stream: b.stream ? stream : null, answer: toCompletion });
  },
});
