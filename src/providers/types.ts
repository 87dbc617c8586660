import type { CatalogModel, Modality } from '../catalog/index.js';

/**
 * Provider glossary
 * - adapter: the code that speaks one upstream provider's API (or the simulator).
 * - upstream job: the work as the provider knows it, by the provider's id.
 * - client reference: `gen_…#attempt`, sent with every submission so that a
 *   submission whose answer mmgen lost (timeout, crash) can be found again.
 * - reconciliation: asking the provider about earlier upstream jobs before
 *   submitting again, so a retry never pays twice.
 */
export type OutputKind = 'image' | 'video' | 'audio' | 'thumbnail' | 'mesh';

export interface ImageInput {
  bytes: Buffer;
  mime: string;
  width: number;
  height: number;
}

export interface SimulateOptions {
  outcome?: 'success' | 'failure' | 'lost';
  delay_ms?: number;
  output_tokens?: number;
}

export interface UpstreamRequest {
  clientRef: string;
  attempt: number;
  modality: Modality;
  model: CatalogModel;
  upstreamModel: string;
  /** The modality fields as validated (defaults applied). */
  params: Record<string, unknown>;
  image?: ImageInput | undefined;
  simulate?: SimulateOptions | undefined;
}

export interface UpstreamOutput {
  /** The file, when the adapter has it; otherwise `url` is downloaded by mmgen. */
  bytes?: Buffer;
  url?: string;
  mime: string;
  type?: OutputKind;
  width?: number | null;
  height?: number | null;
  duration_s?: string | null;
  moderation?: 'approved' | 'flagged' | 'blocked';
}

export interface UpstreamStatus {
  state: 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';
  outputs?: UpstreamOutput[];
  /** Chat: the reply and its token counts. */
  message?: { role: 'assistant'; content: string };
  usage?: { input_tokens: number; output_tokens: number };
  finish_reason?: 'stop' | 'length';
  error?: { message: string };
}

export type ChatStreamChunk =
  | { type: 'delta'; text: string }
  | { type: 'done'; message: { role: 'assistant'; content: string }; usage: { input_tokens: number; output_tokens: number }; finish_reason: 'stop' | 'length' };

export interface ProviderAdapter {
  readonly name: string;
  /**
   * Starts an upstream job and returns its id. A provider that answers at once
   * (OpenAI's chat, images and speech are plain request/response) also returns
   * the final `status`, and nothing is polled.
   */
  submit(req: UpstreamRequest): Promise<{ upstreamId: string; status?: UpstreamStatus }>;
  poll(upstreamId: string, req: UpstreamRequest): Promise<UpstreamStatus>;
  cancel(upstreamId: string): Promise<void>;
  /** The upstream job submitted with this client reference, if the provider has one. */
  findByClientRef(clientRef: string): Promise<string | null>;
  /** Streams a chat reply (chat models only). */
  streamChat?(req: UpstreamRequest, signal?: AbortSignal): AsyncIterable<ChatStreamChunk>;
}

/**
 * An upstream failure, typed: `retryable` says whether trying again may help;
 * `accepted` says the provider may have started the work before the failure
 * (so resubmitting could run it twice: reconcile instead).
 */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly opts: { retryable: boolean; accepted: boolean; origin: 'provider' | 'gateway'; status?: number; retryAfterMs?: number },
  ) {
    super(message);
  }
}
