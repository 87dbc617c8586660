import type * as SDK from '@mmgen/sdk';

/**
 * The dashboard's names for the resources of the public /v1 API: aliases of the SDK's types, which are
 * generated from /v1/openapi.json, so the dashboard cannot drift from what the server sends. Only the
 * list envelope and the error envelope are spelled out here, and the orders the dashboard shows lists in.
 */

export type Modality = SDK.Modality;

export type Role = SDK.ApiKey['role'];
export const ROLES = ['viewer', 'developer', 'admin', 'owner'] as const satisfies readonly Role[];

export type Mode = SDK.ApiKey['mode'];
export type Plan = SDK.Organization['plan'];

export interface List<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
}

export type ApiKey = SDK.ApiKey;
export type CreatedApiKey = SDK.CreatedApiKey;

export type Organization = SDK.Organization;

export type Wallet = SDK.Wallet;

export type PricingUnit = SDK.Model['pricing']['unit'];

export type Model = SDK.Model;

export type GenerationStatus = SDK.GenerationStatus;
export const TERMINAL: readonly GenerationStatus[] = ['succeeded', 'failed', 'canceled'];

export type GenerationOutput = SDK.GenerationOutput;

export type Generation = SDK.Generation;
export type RequestRecord = SDK.RequestRecord;
export type DataPolicy = SDK.DataPolicy;

export type Comparison = SDK.Comparison;

export type Quote = SDK.Quote;

export type UsageLine = SDK.Usage['data'][number];
export type UsageNumbers = Pick<UsageLine, 'generations' | 'charged_credits' | 'refunded_credits' | 'cost_usd'>;
export type UsageGroup = NonNullable<SDK.UsageParams['group_by']>;
export type Usage = SDK.Usage;

export const WEBHOOK_EVENTS = [
  'generation.completed',
  'generation.failed',
  'comparison.completed',
  'usage.budget_threshold',
  'usage.anomaly_detected',
] as const satisfies readonly SDK.Webhook['events'][number][];

export type Webhook = SDK.Webhook;
export type CreatedWebhook = SDK.CreatedWebhook;

export type DeliveryWithAttempts = SDK.WebhookDelivery;
export type Delivery = Omit<DeliveryWithAttempts, 'attempt_log'>;
export type DeliveryStatus = Delivery['status'];
export type DeliveryAttempt = DeliveryWithAttempts['attempt_log'][number];

export type AuditEvent = SDK.AuditEvent;

export type Billing = SDK.Billing;
export type BillingEntry = SDK.BillingEntry;
export type CheckoutResult = SDK.CheckoutResult;

export type Upload = SDK.Upload;
export type CreatedUpload = SDK.CreatedUpload;

export interface ErrorBody {
  error: { type: string; code: string; message: string; param?: string; request_id?: string };
}
