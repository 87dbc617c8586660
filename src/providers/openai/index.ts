import { AnswersAtOnce } from '../answers-at-once.js';
import type { ProviderCredentials } from '../types.js';
import type { UpstreamRecords } from '../upstream-record.js';
import { sniffImageMime } from '../../media/index.js';
import { field, FormData, header, isArray, isObject, isString, providerError, UpstreamHttp, type ErrorDialect, type HttpPolicy } from '../http.js';
import type { ChatStreamChunk, FinishReason, UpstreamOutput, UpstreamRequest, UpstreamStatus } from '../types.js';
import { chatRequest, imageEditFields, imageRequest, speechRequest } from './mapping.js';

/**
 * OpenAI (https://platform.openai.com/docs/api-reference): chat completions
 * (streamed with `stream_options.include_usage` so the reply is charged from
 * the provider's own token count), image generation and edits, and
 * text-to-speech. All three are request/response APIs: `submit` answers with
 * the finished result, and there is no upstream job to poll or reconcile.
 */
const NAME = 'openai';

export const OPENAI_ERRORS: ErrorDialect = {
  message: (body) => (isObject(body) && isObject(body.error) && isString(body.error.message) ? body.error.message : undefined),
  kind: (status, body) => {
    const code = isObject(body) && isObject(body.error) ? body.error.code : undefined;
    if (code === 'content_policy_violation' || code === 'moderation_blocked') return 'content_policy';
    return undefined;
  },
};

export function finishReasonOf(raw: unknown): FinishReason {
  return raw === 'length' ? 'length' : raw === 'content_filter' ? 'content_filter' : 'stop';
}

function usageOf(body: unknown): { input_tokens: number; output_tokens: number } | undefined {
  if (!isObject(body) || !isObject(body.usage)) return undefined;
  const u = body.usage;
  if (typeof u.prompt_tokens !== 'number' || typeof u.completion_tokens !== 'number') return undefined;
  return { input_tokens: u.prompt_tokens, output_tokens: u.completion_tokens };
}

export class OpenAiAdapter extends AnswersAtOnce {
  readonly name = NAME;
  readonly modalities = ['chat', 'image', 'voice'] as const;
  protected readonly http: UpstreamHttp;

  constructor(
    creds: ProviderCredentials,
    private readonly records: UpstreamRecords,
    policy?: HttpPolicy,
  ) {
    super();
    this.http = new UpstreamHttp(NAME, creds.baseUrl, { authorization: `Bearer ${creds.apiKey}` }, OPENAI_ERRORS, policy);
  }

  async submit(req: UpstreamRequest, signal?: AbortSignal): Promise<{ upstreamId: string; status?: UpstreamStatus }> {
    switch (req.modality) {
      case 'chat':
        return this.chat(req, signal);
      case 'image':
        return this.images(req);
      case 'voice':
        return this.speech(req);
      default:
        throw providerError(NAME, 'bad_request', `serves no ${req.modality} models`);
    }
  }

  private async chat(req: UpstreamRequest, signal?: AbortSignal): Promise<{ upstreamId: string; status: UpstreamStatus }> {
    const res = await this.http.json({ method: 'POST', path: 'chat/completions', json: chatRequest(this.records, req, false), creates: true, signal });
    const choice = field(NAME, res.body, 'choices.0', isObject, true);
    const content = isObject(choice.message) && (isString(choice.message.content) || choice.message.content === null) ? (choice.message.content ?? '') : null;
    if (content === null) throw providerError(NAME, 'malformed_response', 'answered without `choices[0].message.content`', { accepted: true });
    const usage = usageOf(res.body);
    return {
      upstreamId: field(NAME, res.body, 'id', isString, true),
      status: {
        state: 'succeeded',
        message: { role: 'assistant', content },
        ...(usage ? { usage } : {}),
        finish_reason: finishReasonOf(choice.finish_reason),
      },
    };
  }

  async *streamChat(req: UpstreamRequest, signal?: AbortSignal): AsyncIterable<ChatStreamChunk> {
    let content = '';
    let finish: FinishReason = 'stop';
    let usage: { input_tokens: number; output_tokens: number } | undefined;
    let ended = false;
    for await (const ev of this.http.events({ method: 'POST', path: 'chat/completions', json: chatRequest(this.records, req, true), creates: true, signal })) {
      if (ev.data === '[DONE]') {
        ended = true;
        break;
      }
      let chunk: unknown;
      try {
        chunk = JSON.parse(ev.data);
      } catch {
        throw providerError(NAME, 'malformed_response', 'streamed an event that is not JSON', { accepted: true });
      }
      if (isObject(chunk) && isObject(chunk.error)) {
        throw providerError(NAME, 'server_error', `stream error: ${OPENAI_ERRORS.message(chunk) ?? 'unknown'}`, { accepted: true });
      }
      usage = usageOf(chunk) ?? usage;
      const choice = isObject(chunk) && isArray(chunk.choices) && isObject(chunk.choices[0]) ? chunk.choices[0] : undefined;
      if (!choice) continue;
      const text = isObject(choice.delta) && isString(choice.delta.content) ? choice.delta.content : '';
      if (text) {
        content += text;
        yield { type: 'delta', text };
      }
      if (choice.finish_reason) finish = finishReasonOf(choice.finish_reason);
    }
    if (signal?.aborted) return;
    if (!ended) throw providerError(NAME, 'malformed_response', 'ended the stream without [DONE]', { accepted: true });
    yield { type: 'done', message: { role: 'assistant', content }, usage, finish_reason: finish };
  }

  private async images(req: UpstreamRequest): Promise<{ upstreamId: string; status: UpstreamStatus }> {
    let res: Awaited<ReturnType<UpstreamHttp['json']>>;
    if (req.image) {
      // Image-to-image is the edits endpoint, multipart, with the input as a file.
      const ext = req.image.mime === 'image/jpeg' ? 'jpg' : req.image.mime.split('/')[1];
      const name = `input.${ext}`;
      const form = new FormData();
      for (const [k, v] of Object.entries(imageEditFields(this.records, req, name))) form.set(k, v);
      form.set('image', new Blob([req.image.bytes], { type: req.image.mime }), name);
      res = await this.http.json({ method: 'POST', path: 'images/edits', form, creates: true });
    } else {
      res = await this.http.json({ method: 'POST', path: 'images/generations', json: imageRequest(this.records, req), creates: true });
    }
    const data = field(NAME, res.body, 'data', isArray, true);
    const outputs: UpstreamOutput[] = data.map((d) => {
      if (isObject(d) && isString(d.b64_json)) {
        const bytes = Buffer.from(d.b64_json, 'base64');
        return { bytes, mime: sniffImageMime(bytes) ?? 'image/png', type: 'image' as const };
      }
      if (isObject(d) && isString(d.url)) return { url: d.url, mime: '', type: 'image' as const };
      throw providerError(NAME, 'malformed_response', 'answered with an image that has neither b64_json nor url', { accepted: true });
    });
    if (outputs.length === 0) throw providerError(NAME, 'malformed_response', 'answered with no images', { accepted: true });
    const created = isObject(res.body) && typeof res.body.created === 'number' ? res.body.created : Date.now();
    return { upstreamId: header(res.headers, 'x-request-id') ?? `img_${created}`, status: { state: 'succeeded', outputs } };
  }

  private async speech(req: UpstreamRequest): Promise<{ upstreamId: string; status: UpstreamStatus }> {
    const res = await this.http.binary({ method: 'POST', path: 'audio/speech', json: speechRequest(this.records, req), headers: { accept: 'audio/mpeg' }, creates: true });
    return {
      upstreamId: header(res.headers, 'x-request-id') ?? `speech_${Date.now()}`,
      status: { state: 'succeeded', outputs: [{ bytes: res.bytes, mime: res.mime === 'application/octet-stream' ? 'audio/mpeg' : res.mime, type: 'audio' }] },
    };
  }
}
