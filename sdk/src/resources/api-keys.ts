import type { APIPromise } from '../core/api-promise.js';
import { paginate, type PagePromise } from '../core/pagination.js';
import type { RequestOptions, Transport } from '../core/transport.js';
import { segment } from '../core/util.js';
import type { ApiKey, ApiKeyCreateParams, ApiKeyListParams, ApiKeyUpdateParams, CreatedApiKey, DeletedObject } from '../types.js';

export class ApiKeys {
  constructor(private readonly transport: Transport) {}

  /** POST /v1/api-keys: the answer's `key` is the secret, shown only this once. */
  create(params: ApiKeyCreateParams, options?: RequestOptions): APIPromise<CreatedApiKey> {
    return this.transport.request({ method: 'POST', path: '/v1/api-keys', body: params, retry: 'throttled-only' }, options);
  }

  /** GET /v1/api-keys: keys of the caller's mode, newest first; `for await` walks every page. */
  list(params: ApiKeyListParams = {}, options?: RequestOptions): PagePromise<ApiKey> {
    return paginate<ApiKey>(this.transport, '/v1/api-keys', params, options);
  }

  /** GET /v1/api-keys/current: the calling key's own record (its role, scopes and budget); any key may read it. */
  current(options?: RequestOptions): APIPromise<ApiKey> {
    return this.transport.request({ method: 'GET', path: '/v1/api-keys/current', retry: 'idempotent' }, options);
  }

  get(id: string, options?: RequestOptions): APIPromise<ApiKey> {
    return this.transport.request({ method: 'GET', path: `/v1/api-keys/${segment(id)}`, retry: 'idempotent' }, options);
  }

  /** PATCH /v1/api-keys/{id}: name, scopes, ipAllowlist, monthly_budget_usd (null clears it). */
  update(id: string, params: ApiKeyUpdateParams, options?: RequestOptions): APIPromise<ApiKey> {
    return this.transport.request({ method: 'PATCH', path: `/v1/api-keys/${segment(id)}`, body: params, retry: 'idempotent' }, options);
  }

  /** DELETE /v1/api-keys/{id}: revokes the key; effective on its next request. */
  delete(id: string, options?: RequestOptions): APIPromise<DeletedObject> {
    return this.transport.request({ method: 'DELETE', path: `/v1/api-keys/${segment(id)}`, retry: 'idempotent' }, options);
  }
}
