import type { APIPromise } from '../core/api-promise.js';
import { paginate, type PagePromise } from '../core/pagination.js';
import type { RequestOptions, Transport } from '../core/transport.js';
import { segment } from '../core/util.js';
import type {
  CreatedWebhook,
  DeletedWebhook,
  Webhook,
  WebhookCreateParams,
  WebhookDelivery,
  WebhookDeliveryListParams,
  WebhookListParams,
  WebhookUpdateParams,
} from '../types.js';
import { verifyWebhook, type VerifyWebhookOptions, type WebhookEvent } from '../webhooks.js';

class Deliveries {
  constructor(private readonly transport: Transport) {}

  /** GET /v1/webhooks/{id}/deliveries, newest first (filter `status`); `for await` walks every page. */
  list(webhookId: string, params: WebhookDeliveryListParams = {}, options?: RequestOptions): PagePromise<WebhookDelivery> {
    return paginate<WebhookDelivery>(this.transport, `/v1/webhooks/${segment(webhookId)}/deliveries`, params, options);
  }

  /** GET /v1/webhooks/{id}/deliveries/{delivery_id}: with `attempt_log`. */
  get(webhookId: string, deliveryId: string, options?: RequestOptions): APIPromise<WebhookDelivery> {
    return this.transport.request({ method: 'GET', path: `/v1/webhooks/${segment(webhookId)}/deliveries/${segment(deliveryId)}`, retry: 'idempotent' }, options);
  }

  /** POST …/deliveries/{delivery_id}/replay: a new delivery of the same event (same `evt_` id). */
  replay(webhookId: string, deliveryId: string, options?: RequestOptions): APIPromise<WebhookDelivery> {
    return this.transport.request(
      { method: 'POST', path: `/v1/webhooks/${segment(webhookId)}/deliveries/${segment(deliveryId)}/replay`, retry: 'throttled-only' },
      options,
    );
  }
}

export class Webhooks {
  readonly deliveries: Deliveries;

  constructor(private readonly transport: Transport) {
    this.deliveries = new Deliveries(transport);
  }

  /** POST /v1/webhooks: the answer's `secret` (whsec_…) is shown only this once; keep it to verify deliveries. */
  create(params: WebhookCreateParams, options?: RequestOptions): APIPromise<CreatedWebhook> {
    return this.transport.request({ method: 'POST', path: '/v1/webhooks', body: params, retry: 'throttled-only' }, options);
  }

  list(params: WebhookListParams = {}, options?: RequestOptions): PagePromise<Webhook> {
    return paginate<Webhook>(this.transport, '/v1/webhooks', params, options);
  }

  get(id: string, options?: RequestOptions): APIPromise<Webhook> {
    return this.transport.request({ method: 'GET', path: `/v1/webhooks/${segment(id)}`, retry: 'idempotent' }, options);
  }

  /** PATCH /v1/webhooks/{id}: url, events, enabled. */
  update(id: string, params: WebhookUpdateParams, options?: RequestOptions): APIPromise<Webhook> {
    return this.transport.request({ method: 'PATCH', path: `/v1/webhooks/${segment(id)}`, body: params, retry: 'idempotent' }, options);
  }

  delete(id: string, options?: RequestOptions): APIPromise<DeletedWebhook> {
    return this.transport.request({ method: 'DELETE', path: `/v1/webhooks/${segment(id)}`, retry: 'idempotent' }, options);
  }

  /** POST /v1/webhooks/{id}/test: sends a `webhook.test` event to this webhook only. */
  test(id: string, options?: RequestOptions): APIPromise<WebhookDelivery> {
    return this.transport.request({ method: 'POST', path: `/v1/webhooks/${segment(id)}/test`, retry: 'throttled-only' }, options);
  }

  /** verifyWebhook, at hand on the client: checks a delivery's signature and returns its event. */
  verify(rawBody: string | ArrayBuffer | ArrayBufferView, signatureHeader: string | string[] | null | undefined, secret: string, options?: VerifyWebhookOptions): Promise<WebhookEvent> {
    return verifyWebhook(rawBody, signatureHeader, secret, options);
  }
}
