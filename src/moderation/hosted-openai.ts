import { sniffImageMime } from '../media/index.js';
import { isArray, isNumber, isObject, isString, providerError, UpstreamHttp, type ErrorDialect, type HttpPolicy } from '../providers/http.js';
import { ProviderError } from '../providers/types.js';
import type { ImageClassifier, ModerationCategory, Scores, TextClassifier } from './types.js';

/**
 * OpenAI's moderation endpoint as a hosted classifier (contract §11), for
 * prompts and output images: `POST {base}/moderations` with
 * `{model, input}` where a text is a string and an image is
 * `[{type: "image_url", image_url: {url: "data:image/png;base64,…"}}]`, as
 * documented for omni-moderation (request and response shapes as in the
 * official SDK's types, openai-node 5.x `resources/moderations.d.ts`).
 *
 * The answer's `results[0].category_scores` is mapped onto mmgen's vocabulary,
 * each vocabulary category the max of its OpenAI family:
 *   sexual ← sexual; sexual_minors ← sexual/minors;
 *   violence ← violence, violence/graphic;
 *   self_harm ← self-harm, self-harm/intent, self-harm/instructions;
 *   hate ← hate, hate/threatening; harassment ← harassment, harassment/threatening;
 *   illicit ← illicit, illicit/violent.
 * `suggestive` has no OpenAI counterpart and is never scored. A score counts
 * only where `category_applied_input_types` says it applies to what was sent
 * (for an image: sexual, violence and self-harm; the text-only categories come
 * back as 0 with no applied type and are left out, so "not scored" is not
 * mistaken for "surely not"). A category absent, null or unknown is skipped.
 *
 * Transport: mmgen's upstream client (src/providers/http.ts): keep-alive, a
 * deadline per call, a 429 waited out per its Retry-After (once, within 2 s by
 * default), error bodies read in OpenAI's shape. A moderation call has no side
 * effect, so a 5xx or a connection failure is also tried once more here (the
 * shared client does not, since a generation call may have started work). A
 * failure after that is a HostedModerationError; the caller decides whether
 * that fails closed (prompt-screen.ts does).
 */

const PROVIDER = 'openai-moderation';

/** How the moderation calls are bounded: it sits before a generation is accepted, so much tighter than generations. */
export const MODERATION_HTTP_POLICY: HttpPolicy = {
  timeoutMs: 10_000,
  readTimeoutMs: 10_000,
  maxRetryAfterMs: 2_000,
  rateLimitRetries: 1,
  maxBodyBytes: 1024 * 1024,
};

const FAMILIES: Record<string, ModerationCategory> = {
  sexual: 'sexual',
  'sexual/minors': 'sexual_minors',
  violence: 'violence',
  'violence/graphic': 'violence',
  'self-harm': 'self_harm',
  'self-harm/intent': 'self_harm',
  'self-harm/instructions': 'self_harm',
  hate: 'hate',
  'hate/threatening': 'hate',
  harassment: 'harassment',
  'harassment/threatening': 'harassment',
  illicit: 'illicit',
  'illicit/violent': 'illicit',
};

const ERRORS: ErrorDialect = {
  message: (body) => (isObject(body) && isObject(body.error) && isString(body.error.message) ? body.error.message : undefined),
};

export interface OpenAiModerationOptions {
  apiKey: string;
  /** Ends in /v1 (https://api.openai.com/v1). */
  baseUrl: string;
  /** e.g. omni-moderation-latest. */
  model: string;
  policy?: HttpPolicy;
  /** Wait before the one retry of a 5xx or a failed connection. */
  retryDelayMs?: number;
}

/** The hosted classifier failed to answer (after its retries); `cause` is the typed upstream error. */
export class HostedModerationError extends Error {
  constructor(
    readonly classifier: string,
    override readonly cause: ProviderError,
  ) {
    super(`${classifier}: ${cause.message}`, { cause });
    this.name = 'HostedModerationError';
  }

  /** A fault of the call (a rejected key, a refused request) rather than of the service: retrying will not help. */
  get permanent(): boolean {
    return !this.cause.opts.retryable;
  }
}

/** Maps one OpenAI moderation result onto the vocabulary, keeping only scores that apply to `input`. */
export function scoresFromOpenAi(result: unknown, input: 'text' | 'image'): Scores {
  if (!isObject(result) || !isObject(result.category_scores)) {
    throw providerError(PROVIDER, 'malformed_response', 'answered without `results[0].category_scores`');
  }
  const applied = isObject(result.category_applied_input_types) ? result.category_applied_input_types : undefined;
  const scores: Scores = {};
  for (const [name, raw] of Object.entries(result.category_scores)) {
    const category = FAMILIES[name];
    if (!category || !isNumber(raw)) continue;
    // Older answers (text models) carry no applied types: every score there is about the text sent.
    if (applied) {
      const types = applied[name];
      if (!isArray(types) || !types.includes(input)) continue;
    }
    const score = Math.min(1, Math.max(0, raw));
    scores[category] = Math.max(scores[category] ?? 0, score);
  }
  return scores;
}

export class OpenAiModerationClassifier implements TextClassifier, ImageClassifier {
  readonly name: string;
  private readonly http: UpstreamHttp;
  private readonly retryDelayMs: number;

  constructor(private readonly opts: OpenAiModerationOptions) {
    this.name = `openai-${opts.model}`;
    this.http = new UpstreamHttp(PROVIDER, opts.baseUrl, { authorization: `Bearer ${opts.apiKey}` }, ERRORS, opts.policy ?? MODERATION_HTTP_POLICY);
    this.retryDelayMs = opts.retryDelayMs ?? 250;
  }

  /** A prompt (a string) or an image (PNG, JPEG or WebP bytes). */
  async classify(input: string | Buffer): Promise<Scores> {
    if (typeof input === 'string') return scoresFromOpenAi(await this.moderate(input), 'text');
    const mime = sniffImageMime(input);
    if (!mime) throw new TypeError('classify: the image is not PNG, JPEG or WebP');
    const url = `data:${mime};base64,${input.toString('base64')}`;
    return scoresFromOpenAi(await this.moderate([{ type: 'image_url', image_url: { url } }]), 'image');
  }

  private async moderate(input: string | Array<{ type: 'image_url'; image_url: { url: string } }>): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await this.http.json({ method: 'POST', path: 'moderations', json: { model: this.opts.model, input } });
        const results = isObject(res.body) ? res.body.results : undefined;
        if (!isArray(results) || results.length === 0) throw providerError(PROVIDER, 'malformed_response', 'answered without `results`');
        return results[0];
      } catch (err) {
        if (!(err instanceof ProviderError)) throw err;
        // 429s were already waited out by the HTTP client; a timeout already spent the whole deadline.
        if (attempt === 0 && (err.kind === 'server_error' || err.kind === 'overloaded' || err.kind === 'network')) {
          await new Promise((r) => setTimeout(r, this.retryDelayMs));
          continue;
        }
        throw new HostedModerationError(this.name, err);
      }
    }
  }

  async close(): Promise<void> {
    await this.http.close();
  }
}
