import { AnswersAtOnce } from '../answers-at-once.js';
import type { ProviderCredentials } from '../types.js';
import type { UpstreamRecords } from '../upstream-record.js';
import { header, isArray, isObject, isString, providerError, UpstreamHttp, type ErrorDialect, type HttpPolicy } from '../http.js';
import type { UpstreamRequest, UpstreamStatus } from '../types.js';
import { musicRequest, OUTPUT_FORMAT, speechPath, speechRequest } from './mapping.js';

/**
 * ElevenLabs (https://elevenlabs.io/docs/api-reference): text-to-speech
 * (`POST /v1/text-to-speech/{voice_id}`) and music (`POST /v1/music`). Both
 * answer with the audio bytes, so `submit` returns the finished result and
 * there is no upstream job to poll or reconcile.
 */
const NAME = 'elevenlabs';

/** Error bodies are `{detail: {status, message}}`, `{detail: "text"}` or, for validation, `{detail: [{msg}]}`. */
export const ELEVENLABS_ERRORS: ErrorDialect = {
  message: (body) => {
    if (!isObject(body)) return undefined;
    const d = body.detail;
    if (isString(d)) return d;
    if (isObject(d) && isString(d.message)) return d.status ? `${String(d.status)}: ${d.message}` : d.message;
    if (isArray(d)) return d.map((e) => (isObject(e) && isString(e.msg) ? e.msg : '')).filter(Boolean).join('; ') || undefined;
    return undefined;
  },
  kind: (_status, body) => {
    const s = isObject(body) && isObject(body.detail) ? body.detail.status : undefined;
    if (s === 'too_many_concurrent_requests') return 'rate_limited';
    if (s === 'system_busy') return 'overloaded';
    if (s === 'bad_prompt' || s === 'content_against_policy') return 'content_policy';
    return undefined;
  },
};

export class ElevenLabsAdapter extends AnswersAtOnce {
  readonly name = NAME;
  readonly modalities = ['voice', 'music'] as const;
  protected readonly http: UpstreamHttp;

  constructor(
    creds: ProviderCredentials,
    private readonly records: UpstreamRecords,
    policy?: HttpPolicy,
  ) {
    super();
    this.http = new UpstreamHttp(NAME, creds.baseUrl, { 'xi-api-key': creds.apiKey }, ELEVENLABS_ERRORS, policy);
  }

  async submit(req: UpstreamRequest): Promise<{ upstreamId: string; status?: UpstreamStatus }> {
    let call: { path: string; json: Record<string, unknown> };
    if (req.modality === 'voice') call = { path: speechPath(this.records, req), json: speechRequest(this.records, req) };
    else if (req.modality === 'music') call = { path: 'v1/music', json: musicRequest(this.records, req) };
    else throw providerError(NAME, 'bad_request', `serves no ${req.modality} models`);
    const res = await this.http.binary({ method: 'POST', ...call, query: { output_format: OUTPUT_FORMAT }, headers: { accept: 'audio/mpeg' }, creates: true });
    return {
      upstreamId: header(res.headers, 'request-id') ?? header(res.headers, 'history-item-id') ?? `${req.modality}_${Date.now()}`,
      status: { state: 'succeeded', outputs: [{ bytes: res.bytes, mime: res.mime === 'application/octet-stream' ? 'audio/mpeg' : res.mime, type: 'audio' }] },
    };
  }
}
