import type { ProviderCredentials } from '../types.js';
import type { UpstreamRecords } from '../upstream-record.js';
import { collectFiles, pickOutputs } from '../files.js';
import { field, isArray, isNonEmptyString, isObject, isString, providerError, UpstreamHttp, type ErrorDialect, type HttpPolicy } from '../http.js';
import { percentInLogs, ProviderError, type ProviderAdapter, type UpstreamRequest, type UpstreamStatus } from '../types.js';
import { appIdOf, endpointCall } from './mapping.js';

/**
 * fal's queue API (https://docs.fal.ai/model-apis/model-endpoints/queue):
 * submit (`POST {queue}/{endpoint}`), status
 * (`GET {queue}/{app}/requests/{id}/status`: IN_QUEUE, IN_PROGRESS,
 * COMPLETED), result (`GET {queue}/{app}/requests/{id}`) and cancel
 * (`PUT {queue}/{app}/requests/{id}/cancel`). mmgen's upstream id is the
 * request's queue path, `{app}/requests/{request_id}`, so status, result and
 * cancel need nothing else. A COMPLETED request whose run failed answers its
 * result with the error; that is the job failing, not the call.
 *
 * fal has no client reference on a request, so `findByClientRef` cannot find
 * one whose submit answer was lost; mmgen then submits again (the lost
 * attempt is refunded: the caller still pays once). Nothing else finds it
 * either: `x-fal-*` headers are the gateway's (a caller cannot set the request
 * id), `fal_webhook` is echoed by no list, and the platform API's request list
 * (`GET https://api.fal.ai/v1/models/requests/by-endpoint`) holds requests
 * that ended, not one still queued or running (docs/contract-addenda.md).
 */
const NAME = 'fal';

export const FAL_ERRORS: ErrorDialect = {
  message: (body) => {
    if (!isObject(body)) return undefined;
    const d = body.detail;
    if (isString(d)) return d;
    if (isArray(d)) return d.map((e) => (isObject(e) && isString(e.msg) ? `${isArray(e.loc) ? `${e.loc.join('.')}: ` : ''}${e.msg}` : '')).filter(Boolean).join('; ') || undefined;
    if (isString(body.error)) return body.error;
    if (isString(body.message)) return body.message;
    return undefined;
  },
  kind: (_status, body) => {
    const type = isObject(body) ? (body.error_type ?? (isArray(body.detail) && isObject(body.detail[0]) ? body.detail[0].type : undefined)) : undefined;
    return type === 'content_policy_violation' ? 'content_policy' : undefined;
  },
};

export class FalAdapter implements ProviderAdapter {
  readonly name = NAME;
  readonly modalities = ['image', 'video', 'voice', 'music', 'avatar', '3d', 'upscale'] as const;
  private readonly http: UpstreamHttp;

  constructor(
    creds: ProviderCredentials,
    private readonly records: UpstreamRecords,
    policy?: HttpPolicy,
  ) {
    this.http = new UpstreamHttp(NAME, creds.baseUrl, { authorization: `Key ${creds.apiKey}` }, FAL_ERRORS, policy);
  }

  async submit(req: UpstreamRequest): Promise<{ upstreamId: string; status?: UpstreamStatus }> {
    if (req.modality === 'chat') throw providerError(NAME, 'bad_request', 'serves no chat models here');
    const call = endpointCall(this.records, req);
    const res = await this.http.json({ method: 'POST', path: call.endpoint, json: call.input, creates: true });
    const requestId = field(NAME, res.body, 'request_id', isNonEmptyString, true);
    return { upstreamId: `${appIdOf(call.endpoint)}/requests/${requestId}` };
  }

  async poll(upstreamId: string, req: UpstreamRequest): Promise<UpstreamStatus> {
    // logs=1: fal sends the run's log lines, where models that report a percentage write it.
    const res = await this.http.json({ method: 'GET', path: `${upstreamId}/status`, query: { logs: '1' }, read: true });
    const status = field(NAME, res.body, 'status', isString);
    const raw = res.body as Record<string, unknown>;
    if (status === 'IN_QUEUE') {
      const position = raw.queue_position;
      return { state: 'queued', progress: typeof position === 'number' && Number.isInteger(position) && position >= 0 ? { stage: 'queued', queue_position: position } : { stage: 'queued' } };
    }
    if (status === 'IN_PROGRESS') {
      const lines = isArray(raw.logs) ? raw.logs.map((l) => (isObject(l) && isString(l.message) ? l.message : '')).join('\n') : '';
      const percent = percentInLogs(lines);
      return { state: 'running', progress: percent === undefined ? { stage: 'running' } : { stage: 'running', percent } };
    }
    if (status !== 'COMPLETED') throw providerError(NAME, 'malformed_response', `answered with an unknown queue status "${status}"`);
    const body = res.body as Record<string, unknown>;
    if (isString(body.error) && body.error) return { state: 'failed', error: { message: `${NAME}: ${body.error}` } };
    return this.result(upstreamId, req);
  }

  /** The result of a COMPLETED request: its output, or the error its run ended with. */
  private async result(upstreamId: string, req: UpstreamRequest): Promise<UpstreamStatus> {
    let body: unknown;
    try {
      body = (await this.http.json({ method: 'GET', path: upstreamId, read: true })).body;
    } catch (err) {
      // The request is COMPLETED: an error answer here is how its run failed, unless the queue itself is struggling.
      if (err instanceof ProviderError && err.opts.status !== undefined && !['rate_limited', 'overloaded'].includes(err.kind)) {
        return { state: 'failed', error: { message: err.message } };
      }
      throw err;
    }
    const flags = isObject(body) && isArray(body.has_nsfw_concepts) ? body.has_nsfw_concepts : [];
    // With the safety checker on, fal replaces what it flags with a black image: the output is withheld.
    const outputs = pickOutputs(req.modality, collectFiles(body), Number(req.params.num_outputs ?? 1), (i) => (flags[i] === true ? 'blocked' : undefined));
    if (outputs.length === 0) return { state: 'failed', error: { message: `${NAME}: the request completed without an output file` } };
    return { state: 'succeeded', outputs };
  }

  async cancel(upstreamId: string): Promise<void> {
    try {
      await this.http.json({ method: 'PUT', path: `${upstreamId}/cancel`, read: true });
    } catch (err) {
      // 400 ALREADY_COMPLETED: nothing left to stop.
      if (err instanceof ProviderError && err.opts.status === 400) return;
      throw err;
    }
  }

  async findByClientRef(): Promise<string | null> {
    return null;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
