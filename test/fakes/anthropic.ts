import { randomUUID } from 'node:crypto';
import { recordOf, violations, type Violation } from './schemas.js';
import { FakeServer, type FakeRequest, type Reply } from './base.js';
import { words } from './media.js';
import { UpstreamListing, type ListedState } from './listing.js';

const LIFECYCLES = ['active', 'deprecated', 'retired'];

/**
 * A loopback Anthropic Messages API (https://docs.anthropic.com/en/api/messages)
 * at the bare host, like the real base URL: `POST /v1/messages`, plain or
 * streamed with the documented event sequence (message_start,
 * content_block_start, ping, content_block_delta, content_block_stop,
 * message_delta, message_stop). It refuses what the real API refuses and a
 * translation could get wrong: a missing x-api-key or anthropic-version,
 * no max_tokens, a `system` role inside messages, turns that do not
 * alternate or do not open with the user, temperature over 1.
 * The model list (`GET /v1/models`) and a model (`GET /v1/models/{model_id}`) are `listing`'s (listing.ts),
 * as documented: newest first, `limit` 1–1000 (default 20), `before_id`/`after_id` cursors, `has_more`,
 * `first_id`, `last_id`; `lifecycle[]` filters (default: active and deprecated, retired only when asked).
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

  /** What `GET /v1/models` lists. */
  readonly listing = new UpstreamListing('anthropic');

  protected async route(req: FakeRequest): Promise<Reply> {
    const headers = { 'request-id': `req_${randomUUID().replace(/-/g, '')}` };
    if (req.headers['x-api-key'] !== this.key) return { ...error(401, 'authentication_error', 'invalid x-api-key'), headers };
    if (typeof req.headers['anthropic-version'] !== 'string') return { ...error(400, 'invalid_request_error', 'anthropic-version: header is required'), headers };
    if (req.method === 'GET' && req.path.startsWith('/v1/models')) return { ...this.models(req), headers };
    if (req.method !== 'POST' || req.path !== '/v1/messages') return { ...error(404, 'not_found_error', `Not found: ${req.method} ${req.path}`), headers };
    return { ...(this.checkModel(req.json) ?? this.messages(req.json as Record<string, unknown> | undefined)), headers };
  }

  private models(req: FakeRequest): Reply {
    const view = (m: ListedState) => ({
      type: 'model', id: m.id, display_name: m.id, created_at: new Date(m.created * 1000).toISOString(),
      lifecycle: m.status, deprecated_at: m.deprecated ? `${m.deprecated}T00:00:00Z` : null, retires_at: m.shutdown ? `${m.shutdown}T00:00:00Z` : null,
      line: null, max_input_tokens: null, max_tokens: null, capabilities: null,
    });
    const one = /^\/v1\/models\/(.+)$/.exec(req.path);
    if (one) {
      const m = this.listing.get(one[1]!);
      return m ? { status: 200, body: view(m) } : error(404, 'not_found_error', `model: ${one[1]}`);
    }
    if (req.path !== '/v1/models') return error(404, 'not_found_error', `Not found: GET ${req.path}`);
    const limitText = req.query.get('limit') ?? '20';
    const limit = Number(limitText);
    if (!/^\d+$/.test(limitText) || limit < 1 || limit > 1000) return error(400, 'invalid_request_error', 'limit: Input should be between 1 and 1000');
    const asked = [...req.query.getAll('lifecycle[]'), ...req.query.getAll('lifecycle')];
    const wrong = asked.find((l) => !LIFECYCLES.includes(l));
    if (wrong !== undefined) return error(400, 'invalid_request_error', `lifecycle: Input should be 'active', 'deprecated' or 'retired'`);
    if (asked.length > 3) return error(400, 'invalid_request_error', 'lifecycle: at most 3 values');
    const stages = asked.length > 0 ? asked : ['active', 'deprecated'];
    // More recently released models first.
    const all = this.listing.all().filter((m) => stages.includes(m.status)).sort((a, b) => b.created - a.created);
    const after = req.query.get('after_id');
    const before = req.query.get('before_id');
    let page: ListedState[];
    if (after !== null) {
      const at = all.findIndex((m) => m.id === after);
      if (at < 0) return error(400, 'invalid_request_error', `after_id: no model ${after}`);
      page = all.slice(at + 1, at + 1 + limit);
    } else if (before !== null) {
      const at = all.findIndex((m) => m.id === before);
      if (at < 0) return error(400, 'invalid_request_error', `before_id: no model ${before}`);
      page = all.slice(Math.max(0, at - limit), at);
    } else {
      page = all.slice(0, limit);
    }
    const last = page.at(-1);
    const hasMore = before !== null ? all.indexOf(page[0]!) > 0 : last !== undefined && all.indexOf(last) < all.length - 1;
    return { status: 200, body: { data: page.map(view), has_more: hasMore, first_id: page[0]?.id ?? null, last_id: last?.id ?? null } };
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
