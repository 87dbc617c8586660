import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions, Transport } from '../core/transport.js';
import type { Usage, UsageParams } from '../types.js';

export class UsageResource {
  constructor(private readonly transport: Transport) {}

  /** GET /v1/usage: generations and credits by day, model or API key (default: this month by day). */
  get(params: UsageParams = {}, options?: RequestOptions): APIPromise<Usage> {
    return this.transport.request({ method: 'GET', path: '/v1/usage', query: params, retry: 'idempotent' }, options);
  }
}
