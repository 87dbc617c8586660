import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions, Transport } from '../core/transport.js';
import type { Quote, QuoteCreateParams } from '../types.js';

export class Quotes {
  constructor(private readonly transport: Transport) {}

  /**
   * POST /v1/quotes: the credits a generation request would reserve if sent now with this key, priced as its
   * acceptance prices it (0 with a test key). Takes the body of the modality's create method, with `modality`
   * (default: the model's). Nothing is reserved or written, so it is safe to retry and needs no Idempotency-Key.
   */
  create(params: QuoteCreateParams, options?: RequestOptions): APIPromise<Quote> {
    return this.transport.request({ method: 'POST', path: '/v1/quotes', body: params, retry: 'idempotent' }, options);
  }
}
