import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions, Transport } from '../core/transport.js';
import { segment } from '../core/util.js';
import type { Model, ModelList, ModelListParams } from '../types.js';

export class Models {
  constructor(private readonly transport: Transport) {}

  /** GET /v1/models: the whole catalog (not paged), optionally one modality. */
  list(params: ModelListParams = {}, options?: RequestOptions): APIPromise<ModelList> {
    return this.transport.request({ method: 'GET', path: '/v1/models', query: params, retry: 'idempotent' }, options);
  }

  /** GET /v1/models/{slug or id}: delisted models too. */
  get(idOrSlug: string, options?: RequestOptions): APIPromise<Model> {
    return this.transport.request({ method: 'GET', path: `/v1/models/${segment(idOrSlug)}`, retry: 'idempotent' }, options);
  }
}
