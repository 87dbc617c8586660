import { AnswersAtOnce } from '../answers-at-once.js';
import type { ProviderCredentials } from '../types.js';
import type { UpstreamRecords } from '../upstream-record.js';
import { field, isArray, isObject, isString, providerError, UpstreamHttp, type ErrorDialect, type HttpPolicy } from '../http.js';
import type { ChatStreamChunk, FinishReason, UpstreamRequest, UpstreamStatus } from '../types.js';
import { messagesRequest } from './mapping.js';

/**
 * Anthropic's Messages API (https://docs.anthropic.com/en/api/messages),
 * serving mmgen's chat generation and, through it, /v1/chat/completions: the
 * OpenAI-shaped request is translated to a Messages request (mapping.ts) and
 * the reply, streamed or not, back to mmgen's chat result, which the
 * chat-completions route speaks as OpenAI chunks.
 *
 * Streaming follows the documented event sequence: message_start (id, input
 * tokens), content_block_start, content_block_delta (text_delta), ping,
 * content_block_stop, message_delta (stop_reason, cumulative output tokens),
 * message_stop; an `error` event mid-stream (e.g. overloaded_error) fails it.
 */
const NAME = 'anthropic';
export const ANTHROPIC_VERSION = '2023-06-01';

const ERROR_KINDS: Record<string, 'overloaded' | 'rate_limited' | 'server_error' | 'authentication' | 'bad_request' | 'not_found'> = {
  overloaded_error: 'overloaded',
  rate_limit_error: 'rate_limited',
  api_error: 'server_error',
  authentication_error: 'authentication',
  permission_error: 'authentication',
  invalid_request_error: 'bad_request',
  not_found_error: 'not_found',
};

export const ANTHROPIC_ERRORS: ErrorDialect = {
  message: (body) => (isObject(body) && isObject(body.error) && isString(body.error.message) ? body.error.message : undefined),
  kind: (_status, body) => (isObject(body) && isObject(body.error) && isString(body.error.type) ? ERROR_KINDS[body.error.type] : undefined),
};

export function stopReasonToFinish(reason: unknown): FinishReason {
  if (reason === 'max_tokens') return 'length';
  if (reason === 'refusal') return 'content_filter';
  return 'stop';
}

export class AnthropicAdapter extends AnswersAtOnce {
  readonly name = NAME;
  readonly modalities = ['chat'] as const;
  protected readonly http: UpstreamHttp;

  constructor(
    creds: ProviderCredentials,
    private readonly records: UpstreamRecords,
    policy?: HttpPolicy,
  ) {
    super();
    this.http = new UpstreamHttp(NAME, creds.baseUrl, { 'x-api-key': creds.apiKey, 'anthropic-version': ANTHROPIC_VERSION }, ANTHROPIC_ERRORS, policy);
  }

  async submit(req: UpstreamRequest, signal?: AbortSignal): Promise<{ upstreamId: string; status?: UpstreamStatus }> {
    if (req.modality !== 'chat') throw providerError(NAME, 'bad_request', `serves no ${req.modality} models`);
    const res = await this.http.json({ method: 'POST', path: 'v1/messages', json: messagesRequest(this.records, req, false), creates: true, signal });
    const blocks = field(NAME, res.body, 'content', isArray, true);
    const text = blocks.map((b) => (isObject(b) && b.type === 'text' && isString(b.text) ? b.text : '')).join('');
    const input = field(NAME, res.body, 'usage.input_tokens', (v): v is number => typeof v === 'number', true);
    const output = field(NAME, res.body, 'usage.output_tokens', (v): v is number => typeof v === 'number', true);
    return {
      upstreamId: field(NAME, res.body, 'id', isString, true),
      status: {
        state: 'succeeded',
        message: { role: 'assistant', content: text },
        usage: { input_tokens: input, output_tokens: output },
        finish_reason: stopReasonToFinish(isObject(res.body) ? res.body.stop_reason : undefined),
      },
    };
  }

  async *streamChat(req: UpstreamRequest, signal?: AbortSignal): AsyncIterable<ChatStreamChunk> {
    let content = '';
    let inputTokens: number | undefined;
    let outputTokens: number | undefined;
    let finish: FinishReason = 'stop';
    let stopped = false;
    for await (const ev of this.http.events({ method: 'POST', path: 'v1/messages', json: messagesRequest(this.records, req, true), creates: true, signal })) {
      let data: unknown;
      try {
        data = JSON.parse(ev.data);
      } catch {
        throw providerError(NAME, 'malformed_response', `streamed a ${ev.event ?? 'message'} event that is not JSON`, { accepted: true });
      }
      if (!isObject(data)) continue;
      const type = data.type ?? ev.event;
      if (type === 'error') {
        const kind = ANTHROPIC_ERRORS.kind?.(0, data) ?? 'server_error';
        throw providerError(NAME, kind, `stream error: ${ANTHROPIC_ERRORS.message(data) ?? 'unknown'}`, { accepted: true });
      }
      if (type === 'message_start' && isObject(data.message) && isObject(data.message.usage)) {
        const u = data.message.usage;
        if (typeof u.input_tokens === 'number') inputTokens = u.input_tokens;
        if (typeof u.output_tokens === 'number') outputTokens = u.output_tokens;
      } else if (type === 'content_block_delta' && isObject(data.delta) && data.delta.type === 'text_delta' && isString(data.delta.text)) {
        content += data.delta.text;
        if (data.delta.text) yield { type: 'delta', text: data.delta.text };
      } else if (type === 'message_delta') {
        if (isObject(data.delta) && data.delta.stop_reason) finish = stopReasonToFinish(data.delta.stop_reason);
        if (isObject(data.usage) && typeof data.usage.output_tokens === 'number') outputTokens = data.usage.output_tokens;
      } else if (type === 'message_stop') {
        stopped = true;
        break;
      }
    }
    if (signal?.aborted) return;
    if (!stopped) throw providerError(NAME, 'malformed_response', 'ended the stream without message_stop', { accepted: true });
    const usage = inputTokens !== undefined && outputTokens !== undefined ? { input_tokens: inputTokens, output_tokens: outputTokens } : undefined;
    yield { type: 'done', message: { role: 'assistant', content }, usage, finish_reason: finish };
  }
}
