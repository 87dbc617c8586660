import { Type } from '@sinclair/typebox';
import {
  createWebhook,
  deleteWebhook,
  getDelivery,
  getWebhook,
  listDeliveries,
  listWebhooks,
  replayDelivery,
  sendTestEvent,
  SUBSCRIBABLE_EVENTS,
  updateWebhook,
  MAX_URL_LENGTH,
} from '../../domain/webhooks/index.js';
import { DEFAULT_RETRY_POLICY } from '../../domain/webhooks/retry-policy.js';
import { defineRoute } from '../route.js';
import { requestOrigin } from '../audit-origin.js';
import { Deleted, IdParams, ListOf, Nullable, PageQuery, Timestamp } from '../schemas.js';

const Url = Type.String({ minLength: 1, maxLength: MAX_URL_LENGTH, description: 'https (http for test-mode webhooks). Redirects are not followed.' });
const Events = Type.Array(Type.String({ enum: [...SUBSCRIBABLE_EVENTS] }), {
  minItems: 1,
  maxItems: 20,
  description: 'Event types, or `*` for every event.',
});

const webhookFields = {
  id: Type.String({ description: 'whk_…' }),
  object: Type.Literal('webhook'),
  url: Type.String(),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  mode: Type.String({ enum: ['live', 'test'] }),
  created_at: Timestamp,
};
const Webhook = Type.Object(webhookFields, { title: 'Webhook' });
const CreatedWebhook = Type.Object(
  { ...webhookFields, secret: Type.String({ description: 'whsec_…: the signing secret. Returned only here; store it now.' }) },
  { title: 'CreatedWebhook' },
);

const deliveryFields = {
  id: Type.String({ description: 'whd_…; the X-Service-Delivery header, the same on every attempt.' }),
  object: Type.Literal('webhook_delivery'),
  webhook_id: Type.String(),
  event_id: Type.String({ description: 'evt_…; receivers deduplicate on it.' }),
  event_type: Type.String(),
  status: Type.String({ enum: ['pending', 'succeeded', 'failed', 'exhausted'] }),
  attempts: Type.Integer({ description: `Attempts made so far (at most ${DEFAULT_RETRY_POLICY.maxAttempts}).` }),
  next_attempt_at: Nullable(Timestamp),
  last_response_status: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  replay_of: Nullable(Type.String({ description: 'The delivery this one replays.' })),
  created_at: Timestamp,
  updated_at: Timestamp,
};
const Delivery = Type.Object(deliveryFields, { title: 'WebhookDelivery' });
const DeliveryWithAttempts = Type.Object(
  {
    ...deliveryFields,
    attempt_log: Type.Array(
      Type.Object({
        attempt: Type.Integer(),
        started_at: Timestamp,
        duration_ms: Type.Integer(),
        response_status: Nullable(Type.Integer()),
        error: Nullable(Type.String()),
      }),
      { description: 'Every attempt, oldest first.' },
    ),
  },
  { title: 'WebhookDeliveryWithAttempts' },
);

const DeliveryParams = Type.Object({ id: Type.String({ maxLength: 100 }), delivery_id: Type.String({ maxLength: 100 }) });

const writeAuth = { role: 'developer', scope: 'webhooks:manage' } as const;
const readAuth = { role: 'viewer', scope: 'webhooks:manage' } as const;
const tag = 'Webhooks';

export const createWebhookRoute = defineRoute({
  method: 'POST',
  path: '/v1/webhooks',
  operationId: 'createWebhook',
  summary: 'Create a webhook',
  description: "The webhook receives the events of the caller's organization and mode only. The signing secret is in this response only.",
  tag,
  auth: writeAuth,
  schema: {
    body: Type.Object({ url: Url, events: Events, enabled: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
    response: { 201: CreatedWebhook },
  },
  handler: async ({ principal, body, deps, request }) => ({ status: 201, body: await createWebhook(deps, principal, body, requestOrigin(principal, request)) }),
});

export const listWebhooksRoute = defineRoute({
  method: 'GET',
  path: '/v1/webhooks',
  operationId: 'listWebhooks',
  summary: "List the organization's webhooks of the caller's mode",
  description:
    'A live key lists live webhooks, a test key test webhooks. Paged with `limit` and `starting_after`; signing secrets are never listed.',
  tag,
  auth: readAuth,
  schema: { querystring: Type.Object(PageQuery, { additionalProperties: false }), response: { 200: ListOf(Webhook) } },
  handler: async ({ principal, query, deps }) => ({
    status: 200,
    body: await listWebhooks(deps, principal, { limit: query.limit ?? 20, startingAfter: query.starting_after }),
  }),
});

export const getWebhookRoute = defineRoute({
  method: 'GET',
  path: '/v1/webhooks/{id}',
  operationId: 'getWebhook',
  summary: 'Get a webhook (never its secret)',
  description:
    'Its URL, the events it subscribes to, whether it is enabled, and its mode.',
  tag,
  auth: readAuth,
  schema: { params: IdParams, response: { 200: Webhook } },
  handler: async ({ principal, params, deps }) => ({ status: 200, body: await getWebhook(deps, principal, params.id) }),
});

export const updateWebhookRoute = defineRoute({
  method: 'PATCH',
  path: '/v1/webhooks/{id}',
  operationId: 'updateWebhook',
  summary: "Update a webhook's url, events or enabled flag",
  description: 'A disabled webhook gets no new events and its pending retries wait; enabling it again resumes them.',
  tag,
  auth: writeAuth,
  schema: {
    params: IdParams,
    body: Type.Object({ url: Type.Optional(Url), events: Type.Optional(Events), enabled: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
    response: { 200: Webhook },
  },
  handler: async ({ principal, params, body, deps, request }) => ({ status: 200, body: await updateWebhook(deps, principal, params.id, body, requestOrigin(principal, request)) }),
});

export const deleteWebhookRoute = defineRoute({
  method: 'DELETE',
  path: '/v1/webhooks/{id}',
  operationId: 'deleteWebhook',
  summary: 'Delete a webhook; deliveries not yet made are dropped',
  description:
    'The log of its past deliveries goes with it.',
  tag,
  auth: writeAuth,
  schema: { params: IdParams, response: { 200: Deleted('webhook') } },
  handler: async ({ principal, params, deps, request }) => ({ status: 200, body: await deleteWebhook(deps, principal, params.id, requestOrigin(principal, request)) }),
});

export const listDeliveriesRoute = defineRoute({
  method: 'GET',
  path: '/v1/webhooks/{id}/deliveries',
  operationId: 'listWebhookDeliveries',
  summary: "List a webhook's deliveries, newest first",
  description:
    'Each delivery\'s event, status, attempts so far and next attempt; filtered by `status`, paged with `limit` and `starting_after`.',
  tag,
  auth: readAuth,
  schema: {
    params: IdParams,
    querystring: Type.Object(
      { ...PageQuery, status: Type.Optional(Type.String({ enum: ['pending', 'succeeded', 'failed', 'exhausted'], description: 'Only deliveries in this state.' })) },
      { additionalProperties: false },
    ),
    response: { 200: ListOf(Delivery) },
  },
  handler: async ({ principal, params, query, deps }) => ({
    status: 200,
    body: await listDeliveries(deps, principal, params.id, {
      limit: query.limit ?? 20,
      startingAfter: query.starting_after,
      status: query.status as 'pending' | 'succeeded' | 'failed' | 'exhausted' | undefined,
    }),
  }),
});

export const getDeliveryRoute = defineRoute({
  method: 'GET',
  path: '/v1/webhooks/{id}/deliveries/{delivery_id}',
  operationId: 'getWebhookDelivery',
  summary: 'Get a delivery with the log of its attempts',
  description:
    'Every attempt, oldest first: when it started, how long it took, and the receiver\'s HTTP status or the network error.',
  tag,
  auth: readAuth,
  schema: { params: DeliveryParams, response: { 200: DeliveryWithAttempts } },
  handler: async ({ principal, params, deps }) => ({ status: 200, body: await getDelivery(deps, principal, params.id, params.delivery_id) }),
});

export const replayDeliveryRoute = defineRoute({
  method: 'POST',
  path: '/v1/webhooks/{id}/deliveries/{delivery_id}/replay',
  operationId: 'replayWebhookDelivery',
  summary: 'Send an event again, as a new delivery (same evt_ id, new whd_ id)',
  description: 'Sent even while the webhook is disabled: a replay is asked for explicitly.',
  tag,
  auth: writeAuth,
  schema: { params: DeliveryParams, body: Type.Object({}, { additionalProperties: false }), response: { 202: Delivery } },
  handler: async ({ principal, params, deps }) => ({ status: 202, body: await replayDelivery(deps, principal, params.id, params.delivery_id) }),
});

export const testWebhookRoute = defineRoute({
  method: 'POST',
  path: '/v1/webhooks/{id}/test',
  operationId: 'testWebhook',
  summary: 'Send a `webhook.test` event to this webhook only',
  description: 'Delivered like any event (signed, retried), whatever the webhook subscribes to, even while it is disabled.',
  tag,
  auth: writeAuth,
  schema: { params: IdParams, body: Type.Object({}, { additionalProperties: false }), response: { 202: Delivery } },
  handler: async ({ principal, params, deps }) => ({ status: 202, body: await sendTestEvent(deps, principal, params.id) }),
});

export const webhookRoutes = [
  createWebhookRoute,
  listWebhooksRoute,
  getWebhookRoute,
  updateWebhookRoute,
  deleteWebhookRoute,
  listDeliveriesRoute,
  getDeliveryRoute,
  replayDeliveryRoute,
  testWebhookRoute,
];
