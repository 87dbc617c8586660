import type { APIPromise } from '../core/api-promise.js';
import { parseSSE } from '../core/sse.js';
import type { RequestOptions, Transport } from '../core/transport.js';
import { anySignal } from '../core/util.js';
import { MODALITY_ENDPOINTS } from '../generated/modalities.js';
import { APIConnectionError, APIError, APIUserAbortError, MmgenError, errorBodyOf } from '../errors.js';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionCreateParams, ChatCreateParams, CreateParamsFor, Generation, KnownModel } from '../types.js';

/**
 * A `stream: true` chat completion: `for await (const chunk of stream)`.
 * An error event in the stream (e.g. the generation was canceled) is thrown
 * as an APIError. `abort()` closes the connection (the reply is still charged:
 * the provider bills the whole of it).
 */
export class ChatCompletionStream implements AsyncIterable<ChatCompletionChunk> {
  private consumed = false;

  constructor(
    private readonly response: Response,
    readonly controller: AbortController,
  ) {}

  /** mmgen's request id of this stream. */
  get requestId(): string | null {
    return this.response.headers.get('x-request-id');
  }

  abort(): void {
    this.controller.abort();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ChatCompletionChunk> {
    if (this.consumed) throw new MmgenError('A chat completion stream can be iterated only once.');
    this.consumed = true;
    if (!this.response.body) throw new MmgenError('The chat completion stream has no body.');
    try {
      for await (const event of parseSSE(this.response.body)) {
        if (event.data === '[DONE]') return;
        const parsed = JSON.parse(event.data) as unknown;
        const error = errorBodyOf(parsed);
        if (error) throw new APIError(undefined, error, undefined, this.response.headers);
        yield parsed as ChatCompletionChunk;
      }
    } catch (err) {
      if (err instanceof MmgenError) throw err;
      if (this.controller.signal.aborted) throw new APIUserAbortError();
      throw new APIConnectionError(`The chat completion stream broke: ${(err as Error)?.message ?? err}`, { cause: err });
    }
  }

  /** Reads the whole stream and returns the text of the reply. */
  async text(): Promise<string> {
    let out = '';
    for await (const chunk of this) out += chunk.choices[0]?.delta.content ?? '';
    return out;
  }
}

class Completions {
  constructor(private readonly transport: Transport) {}

  /**
   * POST /v1/chat/completions, OpenAI's chat-completions shape (the official
   * OpenAI SDKs work against mmgen too). With `stream: true` the promise
   * gives a ChatCompletionStream.
   */
  create(params: ChatCompletionCreateParams & { stream?: false | undefined }, options?: RequestOptions): APIPromise<ChatCompletion>;
  create(params: ChatCompletionCreateParams & { stream: true }, options?: RequestOptions): Promise<ChatCompletionStream>;
  create(params: ChatCompletionCreateParams, options?: RequestOptions): APIPromise<ChatCompletion> | Promise<ChatCompletionStream> {
    const spec = { method: 'POST', path: '/v1/chat/completions', body: params, retry: 'idempotency-key' } as const;
    if (!params.stream) return this.transport.request<ChatCompletion>(spec, options);
    const controller = new AbortController();
    // The stream's own controller, joined with the caller's signal for as long as the stream lives.
    const { signal } = anySignal([options?.signal, controller.signal]);
    const stream: Promise<ChatCompletionStream> = this.transport
      .send({ ...spec, accept: 'text/event-stream' }, { ...options, signal }, async (r) => r, true)
      .then(({ data }) => new ChatCompletionStream(data, controller));
    return stream;
  }
}

export class Chat {
  readonly completions: Completions;

  constructor(private readonly transport: Transport) {
    this.completions = new Completions(transport);
  }

  /**
   * The chat modality's endpoint (POST /v1/chat): synchronous; the generation carries `message` and `usage`. Charged per output token. A model this
   * SDK knows is held to its own parameters (as the other create methods, resources/create.ts).
   */
  create<M extends KnownModel<'chat'> | (string & {})>(params: CreateParamsFor<'chat', M, ChatCreateParams> & { model: M }, options?: RequestOptions): APIPromise<Generation> {
    return this.transport.request({ method: 'POST', path: MODALITY_ENDPOINTS.chat.path, body: params, retry: 'idempotency-key' }, options);
  }
}
