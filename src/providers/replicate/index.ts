import type { ProviderCredentials } from '../types.js';
import type { UpstreamRecords } from '../upstream-record.js';
import { collectFiles, pickOutputs } from '../files.js';
import { field, isNonEmptyString, isObject, isString, providerError, UpstreamHttp, type ErrorDialect, type HttpPolicy } from '../http.js';
import { percentInLogs, ProviderError, type ProviderAdapter, type UpstreamRequest, type UpstreamStatus } from '../types.js';
import { LostCreates } from './lost-creates.js';
import { createCall } from './mapping.js';

/**
 * Replicate's predictions API (https://replicate.com/docs/reference/http):
 * create (`POST /v1/models/{owner}/{name}/predictions`, or
 * `POST /v1/predictions` with a pinned version), get
 * (`GET /v1/predictions/{id}`), cancel (`POST /v1/predictions/{id}/cancel`).
 * Every modality here is an asynchronous job: mmgen records the prediction id
 * before it waits, polls it, and on retry asks about the earlier prediction
 * first (reconciliation). Output URLs expire upstream (an hour for API
 * predictions), so mmgen downloads them at once into its own store.
 *
 * Replicate has no client reference on a prediction. A prediction whose
 * create answer was lost is found by what was sent instead (the same model
 * and input in `GET /v1/predictions`), within the bounds lost-creates.ts
 * gives; outside them `findByClientRef` finds nothing and mmgen submits again
 * (the lost attempt is refunded: the caller still pays once).
 */
const NAME = 'replicate';

export const REPLICATE_ERRORS: ErrorDialect = {
  message: (body) => {
    if (!isObject(body)) return undefined;
    if (isString(body.detail)) return body.detail;
    if (isString(body.title)) return body.title;
    return undefined;
  },
};

/** Replicate's safety checker fails predictions it refuses with a message naming NSFW content. */
const NSFW = /nsfw|safety (checker|filter)|flagged as sensitive/i;

export class ReplicateAdapter implements ProviderAdapter {
  readonly name = NAME;
  readonly modalities = ['image', 'video', 'voice', 'music', 'avatar', '3d', 'upscale'] as const;
  private readonly http: UpstreamHttp;
  private readonly lost = new LostCreates();

  constructor(
    creds: ProviderCredentials,
    private readonly records: UpstreamRecords,
    policy?: HttpPolicy,
  ) {
    this.http = new UpstreamHttp(NAME, creds.baseUrl, { authorization: `Bearer ${creds.apiKey}` }, REPLICATE_ERRORS, policy);
  }

  async submit(req: UpstreamRequest): Promise<{ upstreamId: string; status?: UpstreamStatus }> {
    if (req.modality === 'chat') throw providerError(NAME, 'bad_request', 'serves no chat models here');
    const call = createCall(this.records, req);
    // Kept until the answer comes: if it never does, this is how the prediction is recognised (findByClientRef).
    this.lost.sending(req.clientRef, { model: call.model, version: call.version, input: call.input });
    let id: string;
    let res: Awaited<ReturnType<UpstreamHttp['json']>>;
    try {
      res = await this.http.json({ method: 'POST', path: call.path, json: call.json, creates: true });
      id = field(NAME, res.body, 'id', isNonEmptyString, true);
    } catch (err) {
      // Refused before anything started: there is no prediction to find.
      if (!(err instanceof ProviderError && err.opts.accepted)) this.lost.settled(req.clientRef);
      throw err;
    }
    this.lost.settled(req.clientRef, id);
    const status = this.statusOf(res.body, req);
    return status.state === 'queued' || status.state === 'running' ? { upstreamId: id } : { upstreamId: id, status };
  }

  async poll(upstreamId: string, req: UpstreamRequest): Promise<UpstreamStatus> {
    const res = await this.http.json({ method: 'GET', path: `predictions/${encodeURIComponent(upstreamId)}`, read: true });
    return this.statusOf(res.body, req);
  }

  async cancel(upstreamId: string): Promise<void> {
    await this.http.json({ method: 'POST', path: `predictions/${encodeURIComponent(upstreamId)}/cancel`, read: true });
  }

  async findByClientRef(clientRef: string): Promise<string | null> {
    return this.lost.find(this.http, clientRef);
  }

  private statusOf(body: unknown, req: UpstreamRequest): UpstreamStatus {
    const status = field(NAME, body, 'status', isString);
    const p = body as Record<string, unknown>;
    switch (status) {
      case 'starting':
        return { state: 'queued', progress: { stage: 'queued' } };
      case 'processing': {
        // Replicate reports progress only in the prediction's logs (the model's tqdm bars).
        const percent = isString(p.logs) ? percentInLogs(p.logs) : undefined;
        return { state: 'running', progress: percent === undefined ? { stage: 'running' } : { stage: 'running', percent } };
      }
      case 'canceled':
        return { state: 'canceled' };
      case 'failed':
      case 'aborted': {
        const error = isString(p.error) ? p.error : `the prediction ${status}`;
        return NSFW.test(error)
          ? { state: 'failed', error: { message: `${NAME}: the provider's safety filter blocked the output (${error})`, kind: 'content_policy' } }
          : { state: 'failed', error: { message: `${NAME}: ${error}` } };
      }
      case 'succeeded': {
        if (p.data_removed === true) return { state: 'failed', error: { message: `${NAME}: the prediction's output has been removed upstream` } };
        const outputs = pickOutputs(req.modality, collectFiles(p.output), Number(req.params.num_outputs ?? 1));
        if (outputs.length === 0) return { state: 'failed', error: { message: `${NAME}: the prediction succeeded without an output file` } };
        return { state: 'succeeded', outputs };
      }
      default:
        throw providerError(NAME, 'malformed_response', `answered with an unknown prediction status "${status}"`);
    }
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
