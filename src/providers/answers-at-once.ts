import { providerError, type UpstreamHttp } from './http.js';
import type { ProviderAdapter, UpstreamRequest, UpstreamStatus } from './types.js';

/**
 * What request/response providers (OpenAI, Anthropic, ElevenLabs) share: the
 * answer to a submission is the finished result, so there is no upstream job
 * to poll, cancel or find again by client reference.
 */
export abstract class AnswersAtOnce implements ProviderAdapter {
  abstract readonly name: string;
  abstract readonly modalities: ProviderAdapter['modalities'];
  protected abstract readonly http: UpstreamHttp;

  abstract submit(req: UpstreamRequest, signal?: AbortSignal): Promise<{ upstreamId: string; status?: UpstreamStatus }>;

  async poll(upstreamId: string): Promise<UpstreamStatus> {
    throw providerError(this.name, 'not_found', `has no job ${upstreamId} to poll (its APIs answer at once)`);
  }

  async cancel(): Promise<void> {
    // Nothing runs upstream once a request/response call has answered.
  }

  async findByClientRef(): Promise<string | null> {
    return null;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
