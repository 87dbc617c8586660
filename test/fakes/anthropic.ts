import { randomUUID } from 'node:crypto';
import { recordOf, violations, type Violation } from './schemas.js';
import { FakeServer, type FakeRequest, type Reply } from './base.js';
import { words } from './media.js';

/**
 * A loopback Anthropic Messages API (https://docs.anthropic.com/en/api/messages)
 * at the bare host, like the real base URL: `POST /v1/messages`, plain or
 * streamed with the documented event sequence (message_start,
 * content_block_start, ping, content_block_delta, content_block_stop,
 * message_delta, message_stop). It refuses what the real API refuses and a
 * translation could get wrong: a missing x-api-key or anthropic-version,
 * no max_tokens, a `system` role inside messages, turns that do not
 * alternate or do not open with the user, temperature over 1.
 */
function error(status: number, type: string, message: string): Reply {
  return { status, body: { type: 'error', error: { type, message } } };
}

export interface AnthropicFakeOptions {
  key?: string;
  reply?: (messages: Array<{ role: string; content: string }>, system: string | undefined) => string;
  /** Send an `error` event (overloaded) after this many text deltas. */
  failStreamAfter?: number;
}

export class AnthropicFake extends FakeServer {
  constructor(private readonly opts: AnthropicFakeOptions = {}) {
    super(opts.key ?? 'sk-ant-fake');
  }

  get baseUrl(): string {
    return this.url;
  }

  protected async route(req: FakeRequest): Promise<Reply> {
    const headers = { 'request-id': `req_${randomUUID().replace(/-/g, '')}` };
    if (req.headers['x-api-key'] !== this.key) return { ...error(401, 'authentication_error', 'invalid x-api-key'), headers };
    if (typeof req.headers['anthropic-version'] !== 'string') return { ...error(400, 'invalid_request_error', 'anthropic-version: header is required'), headers };
    if (req.method !== 'POST' || req.path !== '/v1/messages') return { ...error(404, 'not_found_error', `Not found: ${req.method} ${req.path}`), headers };
    return { ...(this.checkModel(req.json) ?? this.messages(req.json as Record<string, unknown> | undefined)), headers };
  }

  /** The requests refused for breaking their model's documented schema, with why. */
  readonly refused: Array<{ model: string; body: unknown; violations: Violation[] }> = [];

  /** As Anthropic does: an unknown (or retired) model is a 404, a body outside the model's documented request a 400. */
  private checkModel(body: unknown): Reply | null {
    const b = body as Record<string, unknown> | undefined;
    if (!b || typeof b.model !== 'string') return null;
    const record = recordOf('anthropic', b.model);
    if (!record) return error(404, 'not_found_error', `model: ${b.model}`);
    const bad = violations(record, b);
    if (bad.length === 0) return null;
    this.refused.push({ model: b.model, body: b, violations: bad });
    return error(400, 'invalid_request_error', bad.map((v) => `${v.field || 'body'}: ${v.message}`).join('; '));
  }

  private messages(b: Record<string, unknown> | undefined): Reply {
    if (!b || typeof b.model !== 'string') return error(400, 'invalid_request_error', 'model: Field required');
    if (typeof b.max_tokens !== 'number') return error(400, 'invalid_request_error', 'max_tokens: Field required');
    if (!Array.isArray(b.messages) || b.messages.length === 0) return error(400, 'invalid_request_error', 'messages: at least one message is required');
    if (typeof b.temperature === 'number' && (b.temperature < 0 || b.temperature > 1)) return error(400, 'invalid_request_error', 'temperature: Input should be less than or equal to 1');
    const messages = b.messages as Array<{ role: string; content: string }>;
    for (const [i, m] of messages.entries()) {
      if (m.role !== 'user' && m.role !== 'assistant') return error(400, 'invalid_request_error', `messages.${i}.role: Input should be 'user' or 'assistant'`);
      if (i === 0 && m.role !== 'user') return error(400, 'invalid_request_error', 'messages: first message must use the "user" role');
      if (i > 0 && messages[i - 1]!.role === m.role) return error(400, 'invalid_request_error', 'messages: roles must alternate between "user" and "assistant"');
    }
    const system = typeof b.system === 'string' ? b.system : undefined;
    const lastUser = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const full = words(this.opts.reply?.(messages, system) ?? `Claude heard: ${lastUser}`);
    const out = full.slice(0, b.max_tokens);
    const stopReason = out.length < full.length ? 'max_tokens' : 'end_turn';
    const inputTokens = messages.reduce((n, m) => n + words(m.content).length, words(system ?? '').length) + 5;
    const id = `msg_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    if (!b.stream) {
      return {
        status: 200,
        body: {
          id, type: 'message', role: 'assistant', model: b.model,
          content: [{ type: 'text', text: out.join(' ') }],
          stop_reason: stopReason, stop_sequence: null,
          usage: { input_tokens: inputTokens, output_tokens: out.length },
        },
      };
    }
    const failAfter = this.opts.failStreamAfter;
    const ev = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    async function* events() {
      yield ev('message_start', {
        message: { id, type: 'message', role: 'assistant', model: b!.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: inputTokens, output_tokens: 1 } },
      });
      yield ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      yield ev('ping', {});
      for (const [i, w] of out.entries()) {
        if (failAfter !== undefined && i === failAfter) {
          yield ev('error', { error: { type: 'overloaded_error', message: 'Overloaded' } });
          return;
        }
        yield ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: i === 0 ? w : ` ${w}` } });
      }
      yield ev('content_block_stop', { index: 0 });
      yield ev('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: out.length } });
      yield ev('message_stop', {});
    }
    return { status: 200, stream: events() };
  }
}
