/** The resources of the public /v1 API that the dashboard reads (contract §3–§8 and docs/contract-addenda.md). */

export const MODALITY_IDS = ['image', 'video', 'voice', 'music', 'avatar', 'chat', '3d', 'upscale'] as const;
export type Modality = (typeof MODALITY_IDS)[number];

export const ROLES = ['viewer', 'developer', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export type Mode = 'live' | 'test';
export type Plan = 'free' | 'pro' | 'studio' | 'team';

export interface List<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
}

export interface ApiKey {
  id: string;
  object: 'api_key';
  name: string;
  mode: Mode;
  role: Role;
  scopes: string[];
  ipAllowlist: string[];
  monthly_budget_usd: number | null;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
}
export interface CreatedApiKey extends ApiKey {
  key: string;
}

export interface Organization {
  id: string;
  object: 'organization';
  name: string;
  plan: Plan;
  enterprise: boolean;
  paused: boolean;
  created_at: string;
}

export interface Wallet {
  object: 'wallet';
  balance_credits: number;
  held_credits: number;
  available_credits: number;
}

export type PricingUnit = 'image' | 'second' | '1k_characters' | 'output_token' | 'mesh';

export interface Model {
  id: string;
  object: 'model';
  slug: string;
  provider: string;
  display_name: string;
  modality: Modality;
  capabilities: string[];
  pricing: { unit_cost_usd: number; unit: PricingUnit | string };
  status: 'active' | 'delisted';
}

export type GenerationStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';
export const TERMINAL: readonly GenerationStatus[] = ['succeeded', 'failed', 'canceled'];

export interface GenerationOutput {
  id: string;
  type: 'image' | 'video' | 'audio' | 'thumbnail' | 'mesh';
  mime: string;
  width: number | null;
  height: number | null;
  duration_s: string | null;
  url: string;
  moderation_status: 'pending' | 'approved' | 'flagged' | 'blocked';
}

export interface Generation {
  id: string;
  object: 'generation';
  status: GenerationStatus;
  modality: Modality;
  model: string;
  prompt: string | null;
  params: Record<string, unknown>;
  reserved_credits: number;
  charged_credits: number;
  refunded_credits: number;
  cache_hit: boolean;
  outputs: GenerationOutput[];
  error: { type: string; code: string; message: string } | null;
  comparison_id: string | null;
  livemode: boolean;
  created_at: string;
  completed_at: string | null;
  message?: { role: 'assistant'; content: string } | null;
  usage?: { input_tokens: number; output_tokens: number } | null;
}

export interface Comparison {
  id: string;
  object: 'comparison';
  status: 'queued' | 'running' | 'completed';
  modality: Modality;
  prompt: string | null;
  models: string[];
  generations: Generation[];
  reserved_credits: number;
  created_at: string;
  completed_at: string | null;
}

export interface UsageNumbers {
  generations: number;
  charged_credits: number;
  refunded_credits: number;
  cost_usd: number;
}
export interface UsageLine extends UsageNumbers {
  key: string;
  breakdown?: UsageLine[];
}
export type UsageGroup = 'day' | 'model' | 'api_key' | 'modality';
export interface Usage {
  object: 'usage';
  group_by: UsageGroup;
  breakdown?: UsageGroup;
  start: string;
  end: string;
  data: UsageLine[];
  totals: UsageNumbers;
}

export const WEBHOOK_EVENTS = [
  'generation.completed',
  'generation.failed',
  'comparison.completed',
  'usage.budget_threshold',
  'usage.anomaly_detected',
] as const;

export interface Webhook {
  id: string;
  object: 'webhook';
  url: string;
  events: string[];
  enabled: boolean;
  mode: Mode;
  created_at: string;
}
export interface CreatedWebhook extends Webhook {
  secret: string;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'exhausted';
export interface Delivery {
  id: string;
  object: 'webhook_delivery';
  webhook_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_response_status: number | null;
  last_error: string | null;
  replay_of: string | null;
  created_at: string;
  updated_at: string;
}
export interface DeliveryAttempt {
  attempt: number;
  started_at: string;
  duration_ms: number;
  response_status: number | null;
  error: string | null;
}
export interface DeliveryWithAttempts extends Delivery {
  attempt_log: DeliveryAttempt[];
}

export interface Upload {
  id: string;
  object: 'upload';
  status: 'pending' | 'uploaded';
  upload_url?: string;
  method?: string;
  headers?: Record<string, string>;
}

export interface ErrorBody {
  error: { type: string; code: string; message: string; param?: string; request_id?: string };
}
