import { Type, type Static } from '@sinclair/typebox';
import { ApiError } from '../../errors.js';
import type { GenerationRow } from '../../generations/views.js';
import { defineRoute } from '../route.js';
import { compatChatRoute, joinedText, sendEvent, serveCompatChat, type ChatMessage, type StreamShape, type TextParts } from './compat-chat.js';
import { Simulate } from '../../generations/modalities/fields.js';

/**
 * POST /v1/messages: the chat generation in Anthropic's Messages shape, so the
 * official Anthropic SDK works against mmgen, for any chat model of the catalog
 * (OpenAI's too). Billed like POST /v1/chat; the message id is the generation
 * id. mmgen's chat takes text: blocks of any other type, tools and extended
 * thinking are refused with a 400 naming them rather than silently dropped.
 */
const TEXT_BLOCKS: TextParts = {
  types: new Set(['text']),
  keys: new Set(['type', 'text', 'cache_control', 'citations']),
  refusal: (type) => `A '${type}' content block is not served: mmgen's chat takes text blocks only.`,
};

// Any block type passes the schema so that the refusal can name what mmgen's chat does not take (an image, a tool result).
const ContentBlock = Type.Object(
  {
    type: Type.String({ maxLength: 64, description: "Only 'text' is served; any other block type is refused with 400 parameter_invalid." }),
    text: Type.Optional(Type.String({ maxLength: 200_000 })),
  },
  { additionalProperties: true },
);
const TextBlock = Type.Object(
  {
    type: Type.Literal('text'),
    text: Type.String({ maxLength: 200_000 }),
    cache_control: Type.Optional(Type.Unknown({ description: 'Accepted and ignored.' })),
    citations: Type.Optional(Type.Unknown({ description: 'Accepted and ignored.' })),
  },
  { additionalProperties: false },
);
const Message = Type.Object(
  {
    role: Type.String({ enum: ['user', 'assistant'] }),
    content: Type.Union([Type.String({ maxLength: 200_000 }), Type.Array(ContentBlock, { minItems: 1, maxItems: 100 })]),
  },
  { additionalProperties: false },
);
const NotServed = (what: string) => Type.Optional(Type.Unknown({ description: `Not served (mmgen's chat takes text): 400 parameter_invalid. ${what}` }));

const Body = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 200, description: "A chat model's slug, mdl_ id or alias (claude-haiku-4-5), whatever its provider." }),
    max_tokens: Type.Integer({ minimum: 1, maximum: 32_768 }),
    messages: Type.Array(Message, { minItems: 1, maxItems: 500 }),
    system: Type.Optional(Type.Union([Type.String({ maxLength: 200_000 }), Type.Array(TextBlock, { maxItems: 100 })])),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    top_k: Type.Optional(Type.Integer({ minimum: 0, description: "Sent to the models whose API takes it (Anthropic's); not to others." })),
    stop_sequences: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 4 })),
    metadata: Type.Optional(Type.Object({ user_id: Type.Optional(Type.Union([Type.String({ maxLength: 256 }), Type.Null()])) }, { additionalProperties: false })),
    stream: Type.Optional(Type.Boolean()),
    tools: NotServed(''),
    tool_choice: NotServed(''),
    thinking: NotServed(''),
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 4_294_967_295, description: 'mmgen: makes the reply reproducible and cacheable.' })),
    cache: Type.Optional(Type.Boolean({ description: 'mmgen: false: never answer from the cache.' })),
    simulate: Type.Optional(Simulate),
  },
  { additionalProperties: false },
);

const Usage = Type.Object({ input_tokens: Type.Integer(), output_tokens: Type.Integer() });
const StopReason = Type.Union([Type.String({ enum: ['end_turn', 'max_tokens', 'stop_sequence', 'refusal'] }), Type.Null()]);
const AnthropicMessage = Type.Object(
  {
    id: Type.String({ description: 'The generation id (gen_…).' }),
    type: Type.Literal('message'),
    role: Type.Literal('assistant'),
    content: Type.Array(Type.Object({ type: Type.Literal('text'), text: Type.String() })),
    model: Type.String(),
    stop_reason: StopReason,
    stop_sequence: Type.Union([Type.String(), Type.Null()]),
    usage: Usage,
  },
  { title: 'AnthropicMessage' },
);

/** The request as its schema admits it: one source for the validation and for this type. */
type MessagesBody = Static<typeof Body>;

function toMmgenChat(b: MessagesBody): Record<string, unknown> & { messages: ChatMessage[] } {
  for (const field of ['tools', 'tool_choice', 'thinking'] as const) {
    if (b[field] !== undefined) throw new ApiError('parameter_invalid', `${field} is not served: mmgen's chat takes and returns text only.`, field);
  }
  const { messages, system, stop_sequences, metadata, stream: _stream, ...rest } = b;
  const turns: ChatMessage[] = messages.map((m, i) => ({ role: m.role, content: joinedText(m.content, `messages[${i}].content`, TEXT_BLOCKS) }));
  const sys = system === undefined ? '' : joinedText(system, 'system', TEXT_BLOCKS);
  return {
    ...rest,
    messages: sys ? [{ role: 'system', content: sys }, ...turns] : turns,
    ...(stop_sequences?.length ? { stop: stop_sequences } : {}),
    ...(metadata?.user_id ? { user: metadata.user_id } : {}),
  };
}

function stopReason(finish: string | undefined): 'end_turn' | 'max_tokens' | 'refusal' {
  if (finish === 'length') return 'max_tokens';
  if (finish === 'content_filter') return 'refusal';
  return 'end_turn';
}

function toMessage(g: GenerationRow) {
  const usage = g.result?.usage ?? { input_tokens: 0, output_tokens: 0 };
  return {
    id: g.id,
    type: 'message' as const,
    role: 'assistant' as const,
    content: [{ type: 'text' as const, text: g.result?.message?.content ?? '' }],
    model: g.model,
    stop_reason: stopReason(g.result?.finish_reason),
    stop_sequence: null,
    usage: { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens },
  };
}

export const createMessage = defineRoute({
  ...compatChatRoute,
  path: '/v1/messages',
  operationId: 'createMessage',
  summary: "Chat message in Anthropic's Messages shape (stream: true for its server-sent events)",
  description:
    "One chat generation in Anthropic's Messages shape, for every chat model of the catalog (OpenAI's too): reserved at `max_tokens`, charged by output tokens, rate-limited, idempotent and moderated. The message's `id` is the generation's. Text blocks only; `tools`, `tool_choice` and `thinking` are 400 naming the field.",
  compatible: { api: 'anthropic', reference: 'https://docs.anthropic.com/en/api/messages' },
  schema: { body: Body, response: { 200: AnthropicMessage } },
  handler: async (ctx) => {
    const b: MessagesBody = ctx.body;
    const { reply } = ctx;
    const stream: StreamShape = {
      start: (g) => {
        // The input tokens are known once the provider has answered: message_delta carries them (the SDK takes them from there).
        sendEvent(reply, { type: 'message_start', message: { ...toMessage(g), content: [], stop_reason: null, usage: { input_tokens: 0, output_tokens: 0 } } }, 'message_start');
        sendEvent(reply, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start');
        sendEvent(reply, { type: 'ping' }, 'ping');
      },
      delta: (_g, text) => sendEvent(reply, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }, 'content_block_delta'),
      end: (_g, done) => {
        const m = toMessage(done);
        sendEvent(reply, { type: 'content_block_stop', index: 0 }, 'content_block_stop');
        sendEvent(reply, { type: 'message_delta', delta: { stop_reason: m.stop_reason, stop_sequence: null }, usage: m.usage }, 'message_delta');
        sendEvent(reply, { type: 'message_stop' }, 'message_stop');
      },
      // Anthropic's error event is {type: 'error', error: {type, message}}; mmgen's envelope already has `error`, so it only gains `type`.
      fail: (_g, err, requestId) => sendEvent(reply, { type: 'error', ...err.body(requestId) }, 'error'),
    };
    return serveCompatChat(ctx, toMmgenChat(b), { stream: b.stream ? stream : null, answer: toMessage });
  },
});
