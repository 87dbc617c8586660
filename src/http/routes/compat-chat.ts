import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../../domain/access.js';
import type { AppDeps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import { EarlyDispatch } from '../../generations/early-dispatch.js';
import { finishFailed } from '../../generations/finish.js';
import type { GenerationRow } from '../../generations/views.js';
import { runStreamed } from '../../generations/run-stream.js';
import { finishSynchronously, resumeSynchronously } from '../../generations/run-sync.js';
import type { RouteDef } from '../route.js';
import { costHeaders } from '../cost-header.js';
import { MODALITY_RULES } from '../../generations/modalities.js';
import type { ParamName } from '../../generations/hold-to-model.js';
import { acceptGeneration } from './generation-route.js';

/**
 * The chat generation behind the compatible chat paths (POST /v1/chat/completions
 * in OpenAI's shape, POST /v1/messages in Anthropic's, contract §12): each route
 * translates its body to mmgen's chat params and the finished generation back to
 * its shape; the steps between are the same for both and live here.
 */
export interface ChatMessage {
  role: string;
  content: string;
}

/** A content part as Anthropic's and OpenAI's shapes send one: a type, its text when it is text, other keys by type. */
export type ContentPart = { type: string; text?: string; [k: string]: unknown };

/** Which parts an API's text is made of, the keys such a part may carry, and how a refused part type is named. */
export interface TextParts {
  types: ReadonlySet<string>;
  keys: ReadonlySet<string>;
  refusal: (type: string) => string;
}

/**
 * A message's text: a string, or its text parts joined. mmgen's chat takes text, so any other part (an image, a tool
 * result) is refused by name (its place in the request, `at[j]`) rather than silently dropped, as is a key a text part
 * does not have.
 */
export function joinedText(content: string | readonly ContentPart[], at: string, parts: TextParts): string {
  if (typeof content === 'string') return content;
  return content
    .map((part, j) => {
      const where = `${at}[${j}]`;
      if (!parts.types.has(part.type)) throw new ApiError('parameter_invalid', parts.refusal(part.type), where);
      if (typeof part.text !== 'string') throw new ApiError('parameter_missing', `Missing required parameter: ${where}.text.`, `${where}.text`);
      const extra = Object.keys(part).find((k) => !parts.keys.has(k));
      if (extra) throw new ApiError('parameter_unknown', `Unknown parameter: ${where}.${extra}.`, `${where}.${extra}`);
      return part.text;
    })
    .join('');
}

/** What the compatible chat routes declare alike. */
export const compatChatRoute: Pick<RouteDef, 'method' | 'tag' | 'auth' | 'errors'> = {
  method: 'POST',
  tag: 'Compatible',
  // Every effect follows createGeneration's accepting statement (or its confirmed cache copy).
  auth: { role: 'developer', scope: 'chat:write', consumesCredits: true, cacheable: true },
  errors: [402, 404, 410, 502, 503],
};

/** How one API speaks a streamed reply: the route writes its own events through `write`. */
export interface StreamShape {
  /** Before the first piece of text (the provider may not have answered yet). */
  start(g: GenerationRow): void;
  delta(g: GenerationRow, text: string): void;
  /** The generation succeeded and is settled. */
  end(g: GenerationRow, done: GenerationRow): void;
  /** The stream failed after its head was sent: the error as this API sends one mid-stream. */
  fail(g: GenerationRow, err: ApiError, requestId: string): void;
}

interface CompatChatContext {
  deps: AppDeps;
  principal: Principal;
  request: FastifyRequest;
  reply: FastifyReply;
}

/** mmgen's chat fields, which are held to the model; the others (top_p, stop, user, …) go to the adapter as sent. */
const CHAT_FIELDS = new Set(Object.keys(MODALITY_RULES.chat.request.schema.properties));

/**
 * Accepts (or resumes, for a repeated Idempotency-Key) one chat generation from `params` (mmgen's /v1/chat fields plus
 * the provider-mapped extras such as top_p, stop, user) and answers it: plain with `answer(row)`, or streamed as
 * server-sent events written by `stream`. `paramName` names the request's fields in refusals, where its shape differs.
 */
export async function serveCompatChat(
  { deps, principal, request, reply }: CompatChatContext,
  params: Record<string, unknown> & { messages: ChatMessage[] },
  how: { stream: StreamShape | null; answer: (g: GenerationRow) => unknown; paramName?: ParamName },
): Promise<{ status: 200; body: unknown; headers: Record<string, string> } | 'sent'> {
  // A plain completion may reach its provider while its credits are being reserved (early-dispatch.ts).
  const early = how.stream ? undefined : new EarlyDispatch();
  const fields = Object.entries(params);
  const accepted = await acceptGeneration({ deps, principal, request, reply }, {
    kind: 'generation',
    modality: 'chat',
    body: Object.fromEntries(fields.filter(([k]) => CHAT_FIELDS.has(k))),
    sent: new Set(fields.filter(([k]) => CHAT_FIELDS.has(k)).map(([k]) => k)),
    extra: Object.fromEntries(fields.filter(([k]) => !CHAT_FIELDS.has(k))),
    claim: request.idempotency ?? undefined,
    paramName: how.paramName,
    early,
  });
  // An earlier request with this Idempotency-Key accepted a generation and died: its answer, once it is finished.
  const resume = accepted.resume;
  const g = resume ? (await resumeSynchronously(deps, principal, resume)).row : accepted.g;
  const shape = how.stream;
  if (!shape) {
    if (resume) return { status: 200, body: how.answer(g), headers: costHeaders(g) };
    // The reply goes back as soon as the provider answers; the charge (covered by the reservation) is written right after.
    const done = await finishSynchronously(deps, g, { replyEarly: true, early });
    const row = done.early ? { ...done.row, result: { ...done.row.result, message: done.early.message, usage: done.early.usage, finish_reason: done.early.finish_reason } } : done.row;
    return { status: 200, body: how.answer(row), headers: costHeaders(row) };
  }
  reply.hijack();
  reply.raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-request-id': request.id });
  try {
    const accepted = g;
    const done = await deps.inflight.track(runStreamed(deps, g, (text) => shape.delta(accepted, text), () => shape.start(accepted)));
    shape.end(g, done);
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
    shape.fail(g, apiErr, request.id);
  } finally {
    reply.raw.end();
  }
  return 'sent';
}

/** One server-sent event on a hijacked reply; `event` names it (Anthropic's streams do, OpenAI's do not). */
export function sendEvent(reply: FastifyReply, data: unknown, event?: string): void {
  reply.raw.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}
