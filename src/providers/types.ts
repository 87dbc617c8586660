import type { CatalogModel, Modality } from '../catalog/index.js';

/**
 * Provider glossary
 * - adapter: the code that speaks one upstream provider's API (or the simulator).
 * - upstream job: the work as the provider knows it, by the provider's id.
 * - client reference: `gen_…#attempt`, given with every submission so that a
 *   submission whose answer mmgen lost (timeout, crash) can be found again
 *   (sent where the provider keeps one; Replicate's adapter finds by what was
 *   sent instead; fal's cannot find it: docs/contract-addenda.md).
 * - reconciliation: asking the provider about earlier upstream jobs before
 *   submitting again, so a retry never pays twice.
 */
/** A configured provider's access, as config.ts read it from the variables its declaration names (declaration.ts). */
export interface ProviderCredentials {
  apiKey: string;
  baseUrl: string;
  /** Where it publishes per-model schemas, when its schema source names a variable for that (`mmgen providers check`). */
  schemaUrl?: string;
  /** Where it lists its models, when its model list names a variable for that (`mmgen catalog sync`). */
  listUrl?: string;
}

export type OutputKind = 'image' | 'video' | 'audio' | 'thumbnail' | 'mesh';

export interface ImageInput {
  bytes: Buffer;
  mime: string;
  width: number;
  height: number;
  /** The URL the caller gave (`image_url`), for a provider that takes no data URI that long. */
  url?: string | undefined;
}

export interface SimulateOptions {
  outcome?: 'success' | 'failure' | 'lost';
  delay_ms?: number;
  output_tokens?: number;
  /** The moderation verdict every output gets (contract §11): a test aid, so clients can be tested against each. */
  moderation?: 'approved' | 'flagged' | 'blocked';
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
  /**
   * Made by the adapter itself from the request's words and seed (the simulator's renders), nothing of it drawn by a
   * model or taken from the caller's files: what it shows is known, so classifiers score it as any other output but
   * their scores do not decide its verdict (docs/contract-addenda.md, "Moderation": test mode never blocks its own
   * renders). Never set for a file that carries the caller's pixels (an upscale of their image).
   */
  synthetic?: boolean;
}

/** Why a chat reply ended, in OpenAI's words (the shape mmgen speaks). */
export type FinishReason = 'stop' | 'length' | 'content_filter';

export interface UpstreamStatus {
  state: 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';
  outputs?: UpstreamOutput[];
  /** Chat: the reply and its token counts. */
  message?: { role: 'assistant'; content: string };
  usage?: { input_tokens: number; output_tokens: number };
  finish_reason?: FinishReason;
  /** `content_policy`: the provider's own safety system refused the work (contract §11: content_policy_violation, refunded). */
  error?: { message: string; kind?: 'content_policy' };
  /** What the provider says of an unfinished job, when it says anything (contract §5, `event: progress`). */
  progress?: UpstreamProgress;
}

/** `stage`: queued or running; `percent` (0–100) and `queue_position` only when the provider reports them. */
export interface UpstreamProgress {
  stage: 'queued' | 'running';
  percent?: number;
  queue_position?: number;
}

/** The last percentage a log reports (tqdm bars, "45%", "step 9/20"), or undefined; the progress some providers report only in their logs. */
export function percentInLogs(logs: string): number | undefined {
  let found: number | undefined;
  // A percentage is a whole number of at most three digits (not the tail of 1000%), or a tqdm count `9/20 [`.
  for (const m of logs.matchAll(/(?<![\d.])(\d{1,3}(?:\.\d+)?)\s*%|\b(\d+)\s*\/\s*(\d+)\s*\[/g)) {
    const p = m[1] !== undefined ? Number(m[1]) : (Number(m[2]) / Number(m[3])) * 100;
    if (Number.isFinite(p) && p >= 0 && p <= 100) found = Math.floor(p);
  }
  return found;
}

export type ChatStreamChunk =
  | { type: 'delta'; text: string }
  | {
      type: 'done';
      message: { role: 'assistant'; content: string };
      /** Absent when the provider reported none: the reservation is charged then, never nothing. */
      usage?: { input_tokens: number; output_tokens: number } | undefined;
      finish_reason: FinishReason;
    };

export interface ProviderAdapter {
  readonly name: string;
  /** The modalities this adapter can serve (a catalog route to it for another modality is a catalog error). */
  readonly modalities: readonly Modality[];
  /**
   * Starts an upstream job and returns its id. A provider that answers at once
   * (OpenAI's chat, images and speech are plain request/response) also returns
   * the final `status`, and nothing is polled. `signal` aborts a call that
   * answers at once (an early-dispatched chat whose reservation was refused).
   */
  submit(req: UpstreamRequest, signal?: AbortSignal): Promise<{ upstreamId: string; status?: UpstreamStatus }>;
  poll(upstreamId: string, req: UpstreamRequest): Promise<UpstreamStatus>;
  cancel(upstreamId: string): Promise<void>;
  /** The upstream job submitted with this client reference, if the provider has one. */
  findByClientRef(clientRef: string): Promise<string | null>;
  /** Streams a chat reply (chat models only). */
  streamChat?(req: UpstreamRequest, signal?: AbortSignal): AsyncIterable<ChatStreamChunk>;
}

/**
 * The taxonomy of upstream failures (docs/contract-addenda.md, "Providers"):
 * - rate_limited (429), overloaded (503, 529), server_error (other 5xx),
 *   timeout, network, malformed_response: the provider is at fault and
 *   trying again may help;
 * - authentication (401/403: mmgen's credentials), bad_request (400/422: what
 *   mmgen sent), not_found (404): mmgen's side, trying again will not help;
 * - content_policy: the provider's safety system refused the request;
 * - job_failed: the upstream job ran and failed.
 */
export type ProviderErrorKind =
  | 'rate_limited'
  | 'overloaded'
  | 'server_error'
  | 'timeout'
  | 'network'
  | 'malformed_response'
  | 'authentication'
  | 'bad_request'
  | 'not_found'
  | 'content_policy'
  | 'job_failed';

export interface ProviderErrorOptions {
  kind: ProviderErrorKind;
  /** Whether the same request may succeed if sent again later. */
  retryable: boolean;
  /** The provider may have started the work before the failure (resubmitting could run it twice: reconcile instead). */
  accepted: boolean;
  /** Who is at fault: the provider (its outage, its refusal) or the gateway (mmgen's request or configuration). */
  origin: 'provider' | 'gateway';
  /** The provider's HTTP status, when it answered. */
  status?: number;
  /** How long the provider asked us to wait (Retry-After). */
  retryAfterMs?: number;
}

/**
 * An upstream failure, typed: `retryable` says whether trying again may help;
 * `accepted` says the provider may have started the work before the failure
 * (so resubmitting could run it twice: reconcile instead). Routing falls back
 * to the model's next provider only on a retryable failure that was not
 * accepted.
 */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    message: string,
    readonly opts: ProviderErrorOptions,
  ) {
    super(message);
  }

  get kind(): ProviderErrorKind {
    return this.opts.kind;
  }

  /** Another provider may serve the request instead: nothing was started here, and the failure is not the request's fault. */
  get canFallBack(): boolean {
    return this.opts.retryable && !this.opts.accepted;
  }

  /** Counts against the provider's circuit breaker: the provider itself is failing. */
  get isProviderFault(): boolean {
    return this.opts.retryable && this.opts.origin === 'provider';
  }
}
