import { Type, type Static } from '@sinclair/typebox';
import type { Principal } from '../../domain/access.js';
import type { AppDeps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { generationOf } from '../../generations/reads.js';
import type { GenerationRow } from '../../generations/views.js';
import { defineRoute } from '../route.js';
import { Nullable } from '../schemas.js';
import { compatChatRoute, joinedText, sendEvent, serveCompatChat, type ChatMessage, type ContentPart, type StreamShape, type TextParts } from './compat-chat.js';
import { Simulate } from '../../generations/modalities/fields.js';

/**
 * POST /v1/responses: the chat generation in OpenAI's Responses shape, text only, for any chat model of the catalog.
 * It is what the Vercel AI SDK's default `openai(slug)` and the `openai` SDK's `responses.create` call. Billed like
 * POST /v1/chat (reserve max_output_tokens, charge the output tokens); the response id is the generation id.
 *
 * The Responses API is stateful and tool-centred at OpenAI; mmgen's chat is neither. Fields that clients send by
 * default are taken at their neutral values; fields that would change the reply (tools, a previous response,
 * reasoning effort, a structured format, images) are refused with a 400 naming them rather than silently dropped.
 */
const TEXT_PARTS: TextParts = {
  types: new Set(['input_text', 'output_text']),
  keys: new Set(['type', 'text', 'annotations', 'logprobs', 'prompt_cache_breakpoint']),
  refusal: (type) => `An '${type}' content part is not served: mmgen's chat takes input_text and output_text parts only.`,
};
const ITEM_KEYS = new Set(['type', 'role', 'content', 'id', 'status', 'phase']);
const ROLES = new Set(['user', 'assistant', 'system', 'developer']);

// Any item and part type passes the schema so that the refusal can name what mmgen's chat does not take.
const InputPart = Type.Object(
  {
    type: Type.String({ maxLength: 64, description: "'input_text' or 'output_text'; any other part type is refused with 400 parameter_invalid." }),
    text: Type.Optional(Type.String({ maxLength: 200_000 })),
  },
  { additionalProperties: true },
);
const InputItem = Type.Object(
  {
    type: Type.Optional(Type.String({ maxLength: 64, description: "'message', or 'item_reference' to an earlier response's output message (msg_gen_…); any other item type is refused with 400 parameter_invalid." })),
    role: Type.Optional(Type.String({ maxLength: 32, description: 'user, assistant, system or developer (developer is read as system).' })),
    content: Type.Optional(Type.Union([Type.String({ maxLength: 200_000 }), Type.Array(InputPart, { minItems: 1, maxItems: 100 })])),
  },
  { additionalProperties: true },
);
const NotServed = (what: string) => Type.Optional(Type.Unknown({ description: `Not served (mmgen's chat takes and returns text): 400 parameter_invalid. ${what}` }));
const Ignored = (schema: Parameters<typeof Type.Optional>[0], what = 'Accepted and ignored.') => Type.Optional({ ...schema, description: what });

const Body = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 200, description: "A chat model's slug, mdl_ id or alias, whatever its provider." }),
    input: Type.Union([Type.String({ maxLength: 200_000 }), Type.Array(InputItem, { minItems: 1, maxItems: 500 })]),
    instructions: Type.Optional(Nullable(Type.String({ maxLength: 200_000, description: 'Sent as a system message before the input.' }))),
    max_output_tokens: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 32_768, description: 'Reserved and the cap of the reply; 1024 when absent.' }))),
    temperature: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 2 }))),
    top_p: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1 }))),
    stream: Type.Optional(Nullable(Type.Boolean())),
    stream_options: Ignored(Nullable(Type.Object({ include_obfuscation: Type.Optional(Type.Boolean()) }, { additionalProperties: false }))),
    user: Type.Optional(Type.String({ maxLength: 256 })),
    metadata: Type.Optional(Nullable(Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 512 }), { maxProperties: 16, description: 'Echoed in the response.' }))),
    store: Ignored(Nullable(Type.Boolean()), 'Accepted; mmgen keeps every generation (GET /v1/generations/{id}) whatever its value.'),
    text: Type.Optional(Nullable(Type.Object({ format: Type.Optional(Type.Object({ type: Type.String({ maxLength: 64 }) }, { additionalProperties: true })), verbosity: Type.Optional(Nullable(Type.String({ maxLength: 16 }))) }, { additionalProperties: false, description: "Only format {type: 'text'} (and verbosity medium) is served." }))),
    tools: NotServed('An empty list is accepted.'),
    tool_choice: Type.Optional(Type.Unknown({ description: "Only 'none' or 'auto' (there are no tools)." })),
    parallel_tool_calls: Ignored(Nullable(Type.Boolean())),
    max_tool_calls: Ignored(Nullable(Type.Integer({ minimum: 0 }))),
    previous_response_id: NotServed('null is accepted.'),
    conversation: NotServed('null is accepted.'),
    prompt: NotServed('null is accepted.'),
    reasoning: Type.Optional(Type.Unknown({ description: 'Accepted only without an effort (or summary): 400 parameter_invalid otherwise.' })),
    include: Ignored(Nullable(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 20 })), "Accepted (mmgen's replies have none of the included items) except 'message.output_text.logprobs'."),
    top_logprobs: Ignored(Nullable(Type.Integer({ minimum: 0, maximum: 20 })), 'Only 0.'),
    truncation: Ignored(Nullable(Type.String({ enum: ['auto', 'disabled'] }))),
    service_tier: Ignored(Nullable(Type.String({ maxLength: 32 }))),
    background: Type.Optional(Nullable(Type.Boolean({ description: 'Only false.' }))),
    prompt_cache_key: Ignored(Type.String({ maxLength: 256 })),
    prompt_cache_retention: Ignored(Nullable(Type.String({ maxLength: 32 }))),
    safety_identifier: Ignored(Type.String({ maxLength: 256 })),
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 4_294_967_295, description: 'mmgen: makes the reply reproducible and cacheable.' })),
    cache: Type.Optional(Type.Boolean({ description: 'mmgen: false: never answer from the cache.' })),
    simulate: Type.Optional(Simulate),
  },
  { additionalProperties: false },
);

// OpenAI's output text part requires `logprobs`: always empty, as mmgen asks for none.
const OutputText = Type.Object({ type: Type.Literal('output_text'), text: Type.String(), annotations: Type.Array(Type.Unknown()), logprobs: Type.Array(Type.Unknown()) });
const OutputMessage = Type.Object({
  type: Type.Literal('message'),
  id: Type.String(),
  status: Type.String({ enum: ['in_progress', 'completed', 'incomplete'] }),
  role: Type.Literal('assistant'),
  content: Type.Array(OutputText),
});
const Usage = Type.Object({
  input_tokens: Type.Integer(),
  output_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
  // Both required by OpenAI's ResponseUsage; mmgen's providers report no prompt caching through it, so 0.
  input_tokens_details: Type.Object({ cached_tokens: Type.Integer(), cache_write_tokens: Type.Integer() }),
  output_tokens_details: Type.Object({ reasoning_tokens: Type.Integer() }),
});
const ResponseObject = Type.Object(
  {
    id: Type.String({ description: 'The generation id (gen_…).' }),
    object: Type.Literal('response'),
    created_at: Type.Integer(),
    status: Type.String({ enum: ['completed', 'incomplete', 'in_progress', 'failed'] }),
    model: Type.String(),
    output: Type.Array(OutputMessage),
    // Absent until the response is done (OpenAI's schema has no null usage).
    usage: Type.Optional(Usage),
    error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
    incomplete_details: Nullable(Type.Object({ reason: Type.String() })),
    instructions: Nullable(Type.String()),
    max_output_tokens: Nullable(Type.Integer()),
    temperature: Nullable(Type.Number()),
    top_p: Nullable(Type.Number()),
    metadata: Type.Record(Type.String(), Type.String()),
    parallel_tool_calls: Type.Boolean(),
    tool_choice: Type.String(),
    tools: Type.Array(Type.Unknown()),
    text: Type.Object({ format: Type.Object({ type: Type.Literal('text') }) }),
    previous_response_id: Type.Null(),
    reasoning: Type.Null(),
    store: Type.Boolean(),
    truncation: Type.String(),
    user: Type.Optional(Type.String({ description: 'Echoed when the request gave one.' })),
  },
  { title: 'Response' },
);

type Item = { type?: string; role?: string; content?: string | ContentPart[]; [k: string]: unknown };
/** The request as its schema admits it: one source for the validation and for this type. */
type ResponsesBody = Static<typeof Body>;

const invalid = (param: string, why: string) => new ApiError('parameter_invalid', why, param);

/** Refuses what would change the reply and mmgen's chat cannot do; neutral values pass. */
function refuseUnserved(b: ResponsesBody): void {
  if (b.tools !== undefined && b.tools !== null && !(Array.isArray(b.tools) && b.tools.length === 0)) {
    throw invalid('tools', "tools are not served: mmgen's chat takes and returns text only.");
  }
  if (b.tool_choice !== undefined && b.tool_choice !== null && b.tool_choice !== 'none' && b.tool_choice !== 'auto') {
    throw invalid('tool_choice', "tool_choice is not served: mmgen's chat has no tools ('none' and 'auto' are accepted).");
  }
  for (const field of ['previous_response_id', 'conversation', 'prompt'] as const) {
    if (b[field] !== undefined && b[field] !== null) {
      throw invalid(field, `${field} is not served: mmgen keeps no conversation state; send the earlier turns in input.`);
    }
  }
  if (b.reasoning !== undefined && b.reasoning !== null) {
    const r = b.reasoning as Record<string, unknown>;
    if (typeof r !== 'object' || Array.isArray(r)) throw invalid('reasoning', 'reasoning must be an object or null.');
    const set = Object.keys(r).find((k) => r[k] !== null && r[k] !== undefined);
    if (set) throw invalid(`reasoning.${set}`, `reasoning.${set} is not served: mmgen's chat returns text, without reasoning controls or items.`);
  }
  const format = b.text?.format?.type;
  if (format !== undefined && format !== 'text') {
    throw invalid('text.format', `A '${format}' text format is not served: mmgen's chat returns plain text ({type: 'text'}).`);
  }
  if (b.text?.verbosity && b.text.verbosity !== 'medium') throw invalid('text.verbosity', "Only 'medium' verbosity is served.");
  if ((b.include as string[] | null | undefined)?.includes('message.output_text.logprobs') || ((b.top_logprobs as number | null | undefined) ?? 0) > 0) {
    throw invalid(b.top_logprobs ? 'top_logprobs' : 'include', "Log probabilities are not served: mmgen's chat does not return them.");
  }
  if (b.background) throw invalid('background', 'background is not served: the response is answered in the request (or streamed).');
}


const ITEM_PREFIX = 'msg_';

/**
 * An earlier reply named by its output item's id (`msg_` + its generation id), as the AI SDK sends an assistant turn it
 * got from this API: that generation's message, if it is a finished chat of the caller's organization and mode.
 */
async function referencedReply(deps: Pick<AppDeps, 'db' | 'inflight' | 'finishes'>, principal: Principal, item: Item, at: string): Promise<ChatMessage> {
  const id = typeof item.id === 'string' ? item.id : '';
  const extra = Object.keys(item).find((k) => k !== 'type' && k !== 'id');
  if (extra) throw new ApiError('parameter_unknown', `Unknown parameter: ${at}.${extra}.`, `${at}.${extra}`);
  const unknown = () => invalid(`${at}.id`, `No such item: '${id}'. mmgen resolves only the output messages of its own responses (msg_gen_…).`);
  if (!id.startsWith(`${ITEM_PREFIX}gen_`)) throw unknown();
  const genId = id.slice(ITEM_PREFIX.length);
  // A reply handed back before its settlement is read settled (as GET /v1/generations/{id} does).
  if (deps.inflight.has(genId)) void deps.finishes.flush();
  await deps.inflight.settled(genId);
  const g = await generationOf(deps.db, principal, genId).catch((err: unknown) => {
    throw err instanceof ApiError && err.code === 'resource_not_found' ? unknown() : err;
  });
  const content = g.modality === 'chat' && g.status === 'succeeded' ? g.result?.message?.content : undefined;
  if (typeof content !== 'string') throw unknown();
  return { role: 'assistant', content };
}

async function toMessages(deps: Pick<AppDeps, 'db' | 'inflight' | 'finishes'>, principal: Principal, input: string | Item[]): Promise<ChatMessage[]> {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  const turns: ChatMessage[] = [];
  for (const [i, item] of input.entries()) turns.push(await toMessage(deps, principal, item, i));
  return turns;
}

async function toMessage(deps: Pick<AppDeps, 'db' | 'inflight' | 'finishes'>, principal: Principal, item: Item, i: number): Promise<ChatMessage> {
  const at = `input[${i}]`;
  if (item.type === 'item_reference') return referencedReply(deps, principal, item, at);
  if (item.type !== undefined && item.type !== 'message') {
    throw invalid(at, `A '${item.type}' input item is not served: mmgen's chat takes message items only.`);
  }
  const extra = Object.keys(item).find((k) => !ITEM_KEYS.has(k));
  if (extra) throw new ApiError('parameter_unknown', `Unknown parameter: ${at}.${extra}.`, `${at}.${extra}`);
  if (item.role === undefined) throw new ApiError('parameter_missing', `Missing required parameter: ${at}.role.`, `${at}.role`);
  if (!ROLES.has(item.role)) throw invalid(`${at}.role`, `${at}.role must be one of user, assistant, system, developer.`);
  if (item.content === undefined) throw new ApiError('parameter_missing', `Missing required parameter: ${at}.content.`, `${at}.content`);
  return { role: item.role === 'developer' ? 'system' : item.role, content: joinedText(item.content, `${at}.content`, TEXT_PARTS) };
}

async function toMmgenChat(deps: Pick<AppDeps, 'db' | 'inflight' | 'finishes'>, principal: Principal, b: ResponsesBody): Promise<Record<string, unknown> & { messages: ChatMessage[] }> {
  refuseUnserved(b);
  const turns = await toMessages(deps, principal, b.input);
  return {
    model: b.model,
    messages: b.instructions ? [{ role: 'system', content: b.instructions }, ...turns] : turns,
    max_tokens: b.max_output_tokens ?? 1024,
    ...(b.temperature != null ? { temperature: b.temperature } : {}),
    ...(b.top_p != null ? { top_p: b.top_p } : {}),
    ...(b.user ? { user: b.user } : {}),
    ...(b.seed !== undefined ? { seed: b.seed } : {}),
    ...(b.cache !== undefined ? { cache: b.cache } : {}),
    ...(b.simulate !== undefined ? { simulate: b.simulate } : {}),
  };
}

const itemId = (g: GenerationRow) => `${ITEM_PREFIX}${g.id}`;

/** The Response object of `g` (in progress before the reply; `done` once settled), echoing the request's settings. */
function toResponse(b: ResponsesBody, g: GenerationRow, done: boolean) {
  const finish = g.result?.finish_reason;
  const incomplete = done && (finish === 'length' || finish === 'content_filter') ? { reason: finish === 'length' ? 'max_output_tokens' : 'content_filter' } : null;
  const usage = g.result?.usage;
  return {
    id: g.id,
    object: 'response' as const,
    created_at: Math.floor(g.created_at.getTime() / 1000),
    status: !done ? 'in_progress' : incomplete ? 'incomplete' : 'completed',
    model: g.model,
    output: done ? [outputMessage(g, incomplete ? 'incomplete' : 'completed', g.result?.message?.content ?? '')] : [],
    ...(done && usage
      ? {
          usage: {
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            total_tokens: usage.input_tokens + usage.output_tokens,
            input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
            output_tokens_details: { reasoning_tokens: 0 },
          },
        }
      : {}),
    error: null,
    incomplete_details: incomplete,
    instructions: b.instructions ?? null,
    max_output_tokens: b.max_output_tokens ?? 1024,
    temperature: b.temperature ?? null,
    top_p: b.top_p ?? null,
    metadata: b.metadata ?? {},
    parallel_tool_calls: false,
    tool_choice: 'auto',
    tools: [],
    text: { format: { type: 'text' as const } },
    previous_response_id: null,
    reasoning: null,
    store: true,
    truncation: 'disabled',
    ...(b.user !== undefined ? { user: b.user } : {}),
  };
}

function outputMessage(g: GenerationRow, status: 'in_progress' | 'completed' | 'incomplete', text: string | null) {
  return {
    type: 'message' as const,
    id: itemId(g),
    status,
    role: 'assistant' as const,
    content: text === null ? [] : [{ type: 'output_text' as const, text, annotations: [], logprobs: [] }],
  };
}

export const createResponse = defineRoute({
  ...compatChatRoute,
  path: '/v1/responses',
  operationId: 'createResponse',
  summary: "Model response in OpenAI's Responses shape, text only (stream: true for its server-sent events)",
  description:
    "One chat generation in OpenAI's Responses shape, for every chat model of the catalog: reserved at `max_output_tokens`, charged by output tokens. mmgen keeps no conversation state (send earlier turns in `input`; an `item_reference` to an earlier reply is read from its generation). Tools, structured output and background runs are 400 naming the field.",
  compatible: { api: 'openai', reference: 'https://platform.openai.com/docs/api-reference/responses/create' },
  schema: { body: Body, response: { 200: ResponseObject } },
  handler: async (ctx) => {
    const b: ResponsesBody = ctx.body;
    const { reply } = ctx;
    // Every event of one stream is numbered, from 0, as OpenAI's are.
    let seq = 0;
    const send = (type: string, data: Record<string, unknown>) => sendEvent(reply, { type, sequence_number: seq++, ...data }, type);
    const at = (g: GenerationRow) => ({ item_id: itemId(g), output_index: 0, content_index: 0 });
    const stream: StreamShape = {
      start: (g) => {
        send('response.created', { response: toResponse(b, g, false) });
        send('response.in_progress', { response: toResponse(b, g, false) });
        send('response.output_item.added', { output_index: 0, item: outputMessage(g, 'in_progress', null) });
        send('response.content_part.added', { ...at(g), part: { type: 'output_text', text: '', annotations: [], logprobs: [] } });
      },
      delta: (g, piece) => send('response.output_text.delta', { ...at(g), delta: piece, logprobs: [] }),
      end: (g, done) => {
        const final = toResponse(b, done, true);
        const item = final.output[0]!;
        send('response.output_text.done', { ...at(g), text: item.content[0]!.text, logprobs: [] });
        send('response.content_part.done', { ...at(g), part: item.content[0] });
        send('response.output_item.done', { output_index: 0, item });
        send(final.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: final });
      },
      // OpenAI's error event is {type: 'error', code, message, param}; mmgen's envelope rides along under `error`
      // (the openai SDK raises an APIError from it, the AI SDK reads either form).
      fail: (_g, err, requestId) => {
        const body = err.body(requestId);
        send('error', { code: err.code, message: err.message, param: err.param ?? null, ...body });
      },
    };
    return serveCompatChat(ctx, await toMmgenChat(ctx.deps, ctx.principal, b), { stream: b.stream ? stream : null, answer: (g) => toResponse(b, g, true), paramName: (f) => (f === 'messages' ? 'input' : f) });
  },
});
