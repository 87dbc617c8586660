import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import { DEFAULT_RETRY_POLICY, parseRetryDelays, type RetryPolicy } from './domain/webhooks/retry-policy.js';
import { readProviderCredentials } from './providers/credentials.js';
import type { ProviderDeclaration } from './providers/declaration.js';
import type { ProviderCredentials } from './providers/types.js';

/**
 * Configuration is read from the environment once, validated, and passed
 * explicitly from then on (contract §9 names the variables). An invalid value
 * stops the process with a message that names the variable.
 */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** PostgreSQL URL; undefined means the embedded PGlite database under dataDir. */
  databaseUrl: string | undefined;
  /** PostgreSQL connections per process. */
  dbPoolSize: number;
  redisUrl: string | undefined;
  /** Prepended to every Redis key mmgen writes, so several installations (or test runs) can share one Redis. */
  redisKeyPrefix: string;
  publicUrl: string;
  simulateProviders: boolean;
  /**
   * The date the catalog is served as of (YYYY-MM-DD), for the upstream shutdown dates in the providers' records;
   * undefined follows the clock. Pinned, it lets an operator see what a coming shutdown delists, and keeps tests stable.
   */
  catalogDate: string | undefined;
  allowPrivateNetwork: boolean;
  /** CIDR ranges whose X-Forwarded-For is believed. Empty: the socket address is the client. */
  trustedProxies: string[];
  /** Bearer token that /metrics requires when set. */
  metricsToken: string | undefined;
  /**
   * The instance operator's credential for the admin API (`/v1/admin/…`: the catalog, margins, organizations'
   * model access); undefined: the admin API is off (404). An organization's API key never opens it.
   */
  adminToken: string | undefined;
  /** S3-compatible blob storage; undefined keeps files on disk under dataDir. */
  s3: S3Config | undefined;
  /** How long a stopping process waits for requests, generations and webhook attempts in flight before handing them back. */
  shutdownGraceMs: number;
  /** /readyz fails once the oldest due job has waited this long (the queue is stuck). */
  readyMaxQueueAgeS: number;
  /** When a failed webhook delivery is tried again, and how many attempts it gets (domain/webhooks/retry-policy.ts). */
  webhookRetries: RetryPolicy;
  webhookTimeoutMs: number;
  /** The whole request (headers and body) must arrive within this; a stalled sender is cut off (slowloris). */
  requestTimeoutMs: number;
  /** Secret for signed file URLs; derived and stored in the database when not given. */
  signingSecret: string | undefined;
  logLevel: string;
  /** Failed authentications allowed per client address per minute. */
  authFailuresPerMinute: number;
  /** People's sign-in (docs/contract-addenda.md, "People"). */
  accounts: {
    /** A session ends after this long without a request (idle timeout). */
    sessionIdleS: number;
    /** A session ends this long after sign-in, however busy (absolute timeout). */
    sessionMaxS: number;
    /** Failed sign-ins of one email (or from one address) in the window after which each answer is slowed. */
    slowAfter: number;
    /** Failed sign-ins of one email in the window after which it is locked for the window. */
    lockAfter: number;
    /** Failed sign-ins from one address in the window after which it is locked for the window. */
    addressLockAfter: number;
    lockWindowS: number;
    /** How long an invitation link stays usable. */
    invitationTtlS: number;
  };
  /** Outgoing mail (invitations) over SMTP through nodemailer; undefined: links are only shown to copy. */
  smtp: { url: string; from: string } | undefined;
  /** Self sign-up (MMGEN_SIGNUP, off by default; needs SMTP for the verification mail). */
  signUp: { enabled: boolean; plan: SignUpPlan; ttlS: number };
  rateLimitsPerMinute: Record<'free' | 'pro' | 'studio' | 'team', number>;
  /** How long a claimed job is owned before another worker may take it over (renewed while working). */
  jobLeaseMs: number;
  /** Jobs one worker process runs at once. */
  workerConcurrency: number;
  /** How often an idle worker looks for due jobs. */
  workerPollMs: number;
  /** How often budgets and spending anomalies are checked (by every worker node; the checks are idempotent). */
  schedulerIntervalMs: number;
  /** How long a finished generation's wallet settlement waits so that one statement applies many (billing/settler.ts). */
  settleDelayMs: number;
  /** How long an asynchronous generation's finishing statement waits so that one statement finishes several. */
  finishBatchMs: number;
  /**
   * The same for a chat completion already answered (its charge, covered by its reservation): longer, since nobody
   * waits on it and the statement's work in PostgreSQL weighs on the answers of the requests that follow.
   */
  answeredFinishBatchMs: number;
  /** The request log (issue 33): written unless MMGEN_REQUEST_LOG=off; rows gather this long before one statement writes them. */
  requestLog: { enabled: boolean; batchMs: number; maxBatch: number };
  /**
   * OpenTelemetry traces (issue 33; src/tracing.ts): undefined, the default, loads no SDK and starts no exporter. On when
   * MMGEN_TRACING=on, or when it is unset and an OTLP endpoint variable is; the standard OTEL_* variables say the rest.
   */
  tracing: TracingConfig | undefined;
  /**
   * The Prometheus metrics also pushed over OTLP (issue 33; src/metrics-otel.ts): undefined, the default, loads no SDK
   * and starts no exporter, reader or timer. On when an OTLP endpoint variable is set (or OTEL_METRICS_EXPORTER=otlp);
   * OTEL_METRICS_EXPORTER=none or OTEL_SDK_DISABLED=true turn it off.
   */
  metricsExport: MetricsExportConfig | undefined;
  /** How often each node runs retention (drops expired request log partitions, expires generation records and files). */
  retentionIntervalMs: number;
  /** How often each serve and worker process applies settlements left pending by any process. */
  settleSweepMs: number;
  /**
   * A chat completion's provider call starts alongside its reservation when the organization was last seen with
   * this many times its price free (generations/early-dispatch.ts); 0 turns early dispatch off.
   */
  earlyDispatchHeadroom: number;
  anomaly: {
    /** Spend in the window below this never counts as an anomaly (a new organization's first burst). */
    floorUsd: number;
    /** Anomalous when the window's spend exceeds this many times the trailing baseline for a window as long. */
    multiplier: number;
    windowMinutes: number;
    baselineDays: number;
  };
  /** Upstream providers whose credentials are set, by provider name (variables: each one's src/providers/<name>/provider.ts). */
  providers: Record<string, ProviderCredentials>;
  /** Moderation (contract §11). */
  moderation: {
    /**
     * The local image classifier (nsfwjs MobileNetV2 in a worker thread; moderation/local-image-classifier.ts): on
     * unless MMGEN_MODERATION_LOCAL=off (then only the hosted classifier, provider signals and forced verdicts judge).
     */
    local: boolean;
    /** Worker threads of the local classifier's pool (MMGEN_MODERATION_THREADS; default: the cores Node sees). */
    threads: number;
    /**
     * Images that may wait for a free classifier thread (MMGEN_MODERATION_BACKLOG; default 32 per thread): at it, new
     * synchronous image requests get 503 with Retry-After, nothing reserved (docs/contract-addenda.md, "Moderation").
     */
    backlog: number;
    /** A hosted classifier the operator configured (OpenAI's moderation endpoint); undefined: none, only local checks. */
    hosted: HostedModerationConfig | undefined;
  };
  /** Self-serve credits through Stripe (src/billing/stripe.ts); undefined: not configured, top-ups stay with the operator's CLI. */
  stripe: StripeConfig | undefined;
  /** How mmgen talks to upstream providers (docs/contract-addenda.md, "Providers"). */
  upstream: {
    /** Deadline of a call that does the work (a synchronous generation, a submission, a stream's first byte or next chunk). */
    timeoutMs: number;
    /** Deadline of a status read or a cancel. */
    readTimeoutMs: number;
    /** A 429 whose Retry-After is at most this is waited out on the same provider (twice at most). */
    maxRetryAfterMs: number;
    /** How long mmgen waits on one asynchronous upstream job before failing the generation (the job is left to be reconciled on retry). */
    jobTimeoutMs: number;
    /** Bounds of downloading a provider's output file into mmgen's store. */
    downloadMaxBytes: number;
    downloadTimeoutMs: number;
    /** Consecutive provider failures that open a provider's circuit, and how long it stays open. */
    circuitFailureThreshold: number;
    circuitCooldownMs: number;
  };
}

/**
 * Blob storage on S3 or an S3-compatible server (MinIO, …). Credentials come
 * from the standard AWS environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 * AWS_SESSION_TOKEN, AWS_PROFILE, instance roles), never from mmgen's config.
 */
export interface S3Config {
  bucket: string;
  /** e.g. http://minio:9000; undefined means AWS S3 itself. */
  endpoint: string | undefined;
  /** The endpoint clients reach, when it differs from the one mmgen uses (a container network): presigned URLs are signed for it. */
  publicEndpoint: string | undefined;
  region: string;
  /** Path-style addressing (`endpoint/bucket/key`), which most S3-compatible servers need. */
  forcePathStyle: boolean;
  /** Prepended to every object key, so one bucket can hold several installations. */
  prefix: string;
  /**
   * `presigned`: output URLs are S3 presigned GETs and uploads are S3 presigned
   * PUTs, so file bytes never pass through mmgen. `proxy`: mmgen-signed URLs
   * served by mmgen, which reads and writes S3 itself.
   */
  urls: 'presigned' | 'proxy';
}

/** Where and how spans are exported: OTLP over HTTP, in its JSON encoding (`http/json`). */
export interface TracingConfig {
  /** The full URL spans are POSTed to (…/v1/traces). */
  endpoint: string;
  headers: Record<string, string>;
  timeoutMs: number;
  serviceName: string;
  resourceAttributes: Record<string, string>;
  sampler: { kind: 'always_on' | 'always_off' | 'traceidratio'; parentBased: boolean; ratio: number };
}

/** Where and how often metrics are exported: OTLP over HTTP, in its JSON encoding (`http/json`), cumulative. */
export interface MetricsExportConfig {
  /** The full URL metrics are POSTed to (…/v1/metrics). */
  endpoint: string;
  headers: Record<string, string>;
  /** One export's HTTP timeout. */
  timeoutMs: number;
  /** Time between two exports (OTEL_METRIC_EXPORT_INTERVAL). */
  intervalMs: number;
  /** The most a collection and its export may take (OTEL_METRIC_EXPORT_TIMEOUT, at most the interval). */
  exportTimeoutMs: number;
  serviceName: string;
  resourceAttributes: Record<string, string>;
}

/** Stripe, as the operator configured it (MMGEN_STRIPE_…); amounts are in the currency's smallest unit (cents). */
export interface StripeConfig {
  secretKey: string;
  /** The key's mode (sk_live_/rk_live_: live): it reads only that mode's objects, so only that mode's events are mmgen's. */
  livemode: boolean;
  webhookSecret: string;
  /** Where the stripe library sends its calls; undefined: api.stripe.com. Tests point it at a loopback fake. */
  api: { host: string; port: number; protocol: 'http' | 'https' } | undefined;
  /** ISO 4217, lower case, as Stripe writes it. */
  currency: string;
  minAmount: number;
  maxAmount: number;
  /** Credits bought by one smallest unit of the currency (1 credit = US$0.001, so 10 credits a cent in USD). */
  creditsPerUnit: number;
  /** Consecutive failed automatic top-ups after which auto top-up stops until the owner turns it on again. */
  autoTopupMaxFailures: number;
  /**
   * How long an automatic payment may stay pending (no answer, no event) before the scheduler reads it back from
   * Stripe and settles it; well beyond the stripe client's own time for a call and its retries.
   */
  autoTopupSettleAfterMs: number;
}

/** OpenAI's moderation endpoint (`POST {baseUrl}/moderations`), used for prompts and output images. */
export interface HostedModerationConfig {
  provider: 'openai';
  apiKey: string;
  /** Ends in /v1, as the official SDK's base does. */
  baseUrl: string;
  /** A model that takes text and images (omni-moderation-…): mmgen sends output images too. */
  model: string;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

function num(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) throw new ConfigError(`${name} must be a number from ${min} to ${max}, got "${raw}"`);
  return n;
}

/** Long enough not to be guessed through the failed-authentication brake. */
function adminToken(env: Env): string | undefined {
  const raw = env.MMGEN_ADMIN_TOKEN;
  if (!raw) return undefined;
  if (raw.length < 24) throw new ConfigError('MMGEN_ADMIN_TOKEN must be at least 24 characters (e.g. `openssl rand -hex 24`)');
  return raw;
}

function isoDate(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(raw) || Number.isNaN(Date.parse(`${raw}T00:00:00Z`))) throw new ConfigError(`${name} must be a date as YYYY-MM-DD, got "${raw}"`);
  return raw;
}

function moderationConfig(env: Env): Config['moderation'] {
  const threads = int(env, 'MMGEN_MODERATION_THREADS', availableParallelism(), 1, 256);
  return {
    local: onOff(env, 'MMGEN_MODERATION_LOCAL', true),
    threads,
    backlog: int(env, 'MMGEN_MODERATION_BACKLOG', 32 * threads, 1, 1_000_000),
    hosted: hostedModeration(env),
  };
}

function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (raw === 'on' || raw === '1' || raw === 'true') return true;
  if (raw === 'off' || raw === '0' || raw === 'false') return false;
  throw new ConfigError(`${name} must be on or off, got "${env[name]}"`);
}

function bool(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '0' || raw.toLowerCase() === 'false') return false;
  if (raw === '1' || raw.toLowerCase() === 'true') return true;
  throw new ConfigError(`${name} must be 1 or 0, got "${raw}"`);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}`);
  }
  return raw;
}

function cidrList(env: Env, name: string): string[] {
  const raw = env[name];
  if (!raw) return [];
  return raw.split(',').map((s) => s.trim()).filter(Boolean).map((entry) => {
    try {
      const cidr = entry.includes('/') ? entry : `${entry}/${ipaddr.parse(entry).kind() === 'ipv4' ? 32 : 128}`;
      ipaddr.parseCIDR(cidr);
      return cidr;
    } catch {
      // A bare non-address used to escape as ipaddr's own error, naming no variable.
      throw new ConfigError(`${name}: "${entry}" is not an IP address or CIDR range`);
    }
  });
}

function s3Config(env: Env): S3Config | undefined {
  const bucket = env.MMGEN_S3_BUCKET;
  if (!bucket) return undefined;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new ConfigError(`MMGEN_S3_BUCKET: "${bucket}" is not a valid bucket name`);
  const endpoint = url(env, 'MMGEN_S3_ENDPOINT', ['http:', 'https:'])?.replace(/\/+$/, '');
  const publicEndpoint = url(env, 'MMGEN_S3_PUBLIC_ENDPOINT', ['http:', 'https:'])?.replace(/\/+$/, '');
  const urls = env.MMGEN_S3_URLS || 'presigned';
  if (urls !== 'presigned' && urls !== 'proxy') throw new ConfigError(`MMGEN_S3_URLS must be presigned or proxy, got "${urls}"`);
  const prefix = env.MMGEN_S3_PREFIX ?? '';
  if (prefix && !/^[A-Za-z0-9_\-./]+\/$/.test(prefix)) throw new ConfigError('MMGEN_S3_PREFIX must end with / and use letters, digits, _ - . / only');
  const pathStyle = env.MMGEN_S3_FORCE_PATH_STYLE;
  return {
    bucket,
    endpoint,
    publicEndpoint,
    region: env.MMGEN_S3_REGION || env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    // S3-compatible servers (MinIO, s3rver) rarely have per-bucket host names; AWS itself prefers virtual-hosted style.
    forcePathStyle: pathStyle === undefined || pathStyle === '' ? endpoint !== undefined : bool(env, 'MMGEN_S3_FORCE_PATH_STYLE'),
    prefix,
    urls,
  };
}

/**
 * Hosted moderation is on only when its key is set (it sends every prompt to a third party, so never by default).
 * A model or base URL without a key is refused rather than ignored: the operator meant to turn it on.
 */
function hostedModeration(env: Env): HostedModerationConfig | undefined {
  const apiKey = env.MMGEN_MODERATION_OPENAI_KEY?.trim();
  if (!apiKey) {
    for (const name of ['MMGEN_MODERATION_OPENAI_BASE_URL', 'MMGEN_MODERATION_OPENAI_MODEL']) {
      if (env[name]?.trim()) throw new ConfigError(`${name} is set but MMGEN_MODERATION_OPENAI_KEY is not: hosted moderation needs the key`);
    }
    return undefined;
  }
  const baseUrl = (url(env, 'MMGEN_MODERATION_OPENAI_BASE_URL', ['http:', 'https:']) ?? 'https://api.openai.com/v1').replace(/\/+$/, '');
  const model = env.MMGEN_MODERATION_OPENAI_MODEL?.trim() || 'omni-moderation-latest';
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(model)) throw new ConfigError(`MMGEN_MODERATION_OPENAI_MODEL: "${model}" is not a model name`);
  // The legacy text-moderation models refuse image inputs, and mmgen classifies output images with the same model.
  if (model.startsWith('text-moderation')) throw new ConfigError(`MMGEN_MODERATION_OPENAI_MODEL: "${model}" takes text only; use an omni-moderation model (images are classified too)`);
  return { provider: 'openai', apiKey, baseUrl, model };
}

/**
 * On only when both the secret key and the webhook secret are set: half a configuration is refused, not ignored,
 * since credits that are paid for but never arrive (no webhook secret) are worse than no payments at all.
 */
function stripeConfig(env: Env): StripeConfig | undefined {
  const secretKey = env.MMGEN_STRIPE_SECRET_KEY?.trim();
  const webhookSecret = env.MMGEN_STRIPE_WEBHOOK_SECRET?.trim();
  if (!secretKey && !webhookSecret) {
    for (const name of ['MMGEN_STRIPE_API_URL', 'MMGEN_STRIPE_CURRENCY', 'MMGEN_STRIPE_MIN_AMOUNT', 'MMGEN_STRIPE_MAX_AMOUNT', 'MMGEN_STRIPE_CREDITS_PER_UNIT']) {
      if (env[name]?.trim()) throw new ConfigError(`${name} is set but MMGEN_STRIPE_SECRET_KEY is not: Stripe needs its key`);
    }
    return undefined;
  }
  if (!secretKey) throw new ConfigError('MMGEN_STRIPE_WEBHOOK_SECRET is set but MMGEN_STRIPE_SECRET_KEY is not');
  if (!webhookSecret) throw new ConfigError('MMGEN_STRIPE_SECRET_KEY is set but MMGEN_STRIPE_WEBHOOK_SECRET is not: payments would never be credited');
  if (!/^(sk|rk)_(test|live)_[A-Za-z0-9]+$/.test(secretKey)) throw new ConfigError('MMGEN_STRIPE_SECRET_KEY must be a Stripe secret or restricted key (sk_… or rk_…)');
  if (!webhookSecret.startsWith('whsec_')) throw new ConfigError('MMGEN_STRIPE_WEBHOOK_SECRET must be the endpoint\'s signing secret (whsec_…)');
  const apiUrl = url(env, 'MMGEN_STRIPE_API_URL', ['http:', 'https:']);
  let api: StripeConfig['api'];
  if (apiUrl) {
    const u = new URL(apiUrl);
    const protocol = u.protocol === 'http:' ? 'http' : 'https';
    api = { host: u.hostname, port: u.port ? Number(u.port) : protocol === 'http' ? 80 : 443, protocol };
  }
  const currency = (env.MMGEN_STRIPE_CURRENCY?.trim() || 'usd').toLowerCase();
  if (!/^[a-z]{3}$/.test(currency)) throw new ConfigError(`MMGEN_STRIPE_CURRENCY must be a three-letter ISO currency code, got "${currency}"`);
  const minAmount = int(env, 'MMGEN_STRIPE_MIN_AMOUNT', 500, 50, 99_999_999);
  const maxAmount = int(env, 'MMGEN_STRIPE_MAX_AMOUNT', 100_000, 50, 99_999_999);
  if (maxAmount < minAmount) throw new ConfigError('MMGEN_STRIPE_MAX_AMOUNT must not be below MMGEN_STRIPE_MIN_AMOUNT');
  return {
    secretKey,
    livemode: /^(sk|rk)_live_/.test(secretKey),
    webhookSecret,
    api,
    currency,
    minAmount,
    maxAmount,
    creditsPerUnit: int(env, 'MMGEN_STRIPE_CREDITS_PER_UNIT', 10, 1, 1_000_000),
    autoTopupMaxFailures: int(env, 'MMGEN_STRIPE_AUTO_TOPUP_MAX_FAILURES', 3, 1, 100),
    // At least 5 minutes: the client gives up on a call after 3 tries of 20 s each, so a pending payment younger
    // than that may still have its create call on the way, and settling it then could free a second one.
    autoTopupSettleAfterMs: int(env, 'MMGEN_STRIPE_AUTO_TOPUP_SETTLE_AFTER_S', 900, 300, 7 * 86_400) * 1000,
  };
}

/** `key=value,key2=value2` with percent-encoded values (the OTel spec's format for headers and resource attributes). */
function keyValues(env: Env, name: string): Record<string, string> {
  const out: Record<string, string> = {};
  const raw = env[name]?.trim();
  if (!raw) return out;
  for (const item of raw.split(',')) {
    const at = item.indexOf('=');
    const key = item.slice(0, at).trim();
    if (at <= 0 || !key) throw new ConfigError(`${name} must be a list of key=value pairs separated by commas`);
    try {
      out[key] = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      throw new ConfigError(`${name}: the value of ${key} is not valid percent-encoding`);
    }
  }
  return out;
}

const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'];

/** What traces and metrics read alike: the signal's endpoint, headers and timeout, the protocol, the resource. */
function otlpSignal(env: Env, signal: 'TRACES' | 'METRICS') {
  const noun = signal.toLowerCase();
  for (const name of [`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`, 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = env[name]?.trim();
    if (!protocol) continue;
    if (protocol !== 'http/json') throw new ConfigError(`${name}: mmgen exports ${noun} as http/json (OTLP over HTTP, JSON encoding), got "${protocol}"`);
    break;
  }
  const signalUrl = url(env, `OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`, ['http:', 'https:']);
  const baseUrl = url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']);
  // The per-signal variable is the URL as given; the general one is a base to which the signal's path is added.
  const endpoint = signalUrl ?? `${(baseUrl ?? 'http://localhost:4318').replace(/\/+$/, '')}/v1/${noun}`;
  return {
    endpoint,
    headers: { ...keyValues(env, 'OTEL_EXPORTER_OTLP_HEADERS'), ...keyValues(env, `OTEL_EXPORTER_OTLP_${signal}_HEADERS`) },
    timeoutMs: int(env, `OTEL_EXPORTER_OTLP_${signal}_TIMEOUT`, int(env, 'OTEL_EXPORTER_OTLP_TIMEOUT', 10_000, 1, 600_000), 1, 600_000),
    serviceName: env.OTEL_SERVICE_NAME?.trim() || keyValues(env, 'OTEL_RESOURCE_ATTRIBUTES')['service.name'] || 'mmgen',
    resourceAttributes: keyValues(env, 'OTEL_RESOURCE_ATTRIBUTES'),
  };
}

function tracingConfig(env: Env): TracingConfig | undefined {
  const endpointVars = ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'];
  const wanted = env.MMGEN_TRACING?.trim() ? onOff(env, 'MMGEN_TRACING', false) : endpointVars.some((n) => env[n]?.trim());
  if (!wanted || env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() || 'otlp';
  if (exporter === 'none') return undefined;
  if (exporter !== 'otlp') throw new ConfigError(`OTEL_TRACES_EXPORTER must be otlp or none, got "${env.OTEL_TRACES_EXPORTER}"`);
  const signal = otlpSignal(env, 'TRACES');
  const rawSampler = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || 'parentbased_always_on';
  if (!SAMPLERS.includes(rawSampler)) throw new ConfigError(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}, got "${env.OTEL_TRACES_SAMPLER}"`);
  const parentBased = rawSampler.startsWith('parentbased_');
  const kind = rawSampler.replace('parentbased_', '') as TracingConfig['sampler']['kind'];
  return {
    ...signal,
    sampler: { kind, parentBased, ratio: kind === 'traceidratio' ? num(env, 'OTEL_TRACES_SAMPLER_ARG', 1, 0, 1) : 1 },
  };
}

function metricsExportConfig(env: Env): MetricsExportConfig | undefined {
  const exporter = env.OTEL_METRICS_EXPORTER?.trim().toLowerCase();
  if (exporter && exporter !== 'otlp' && exporter !== 'none') throw new ConfigError(`OTEL_METRICS_EXPORTER must be otlp or none (/metrics serves Prometheus regardless), got "${env.OTEL_METRICS_EXPORTER}"`);
  const endpointSet = ['OTEL_EXPORTER_OTLP_METRICS_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'].some((n) => env[n]?.trim());
  if (exporter === 'none' || !(endpointSet || exporter === 'otlp') || env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  // The figures are prom-client's own, which only ever add up since the process started.
  const temporality = env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE?.trim().toLowerCase();
  if (temporality && temporality !== 'cumulative') throw new ConfigError(`OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: mmgen exports its Prometheus figures as they are, cumulative, got "${env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE}"`);
  const intervalMs = int(env, 'OTEL_METRIC_EXPORT_INTERVAL', 60_000, 100, 86_400_000);
  return {
    ...otlpSignal(env, 'METRICS'),
    intervalMs,
    exportTimeoutMs: Math.min(intervalMs, int(env, 'OTEL_METRIC_EXPORT_TIMEOUT', 30_000, 1, 600_000)),
  };
}

function smtpConfig(env: Env): Config['smtp'] {
  const smtpUrl = url(env, 'MMGEN_SMTP_URL', ['smtp:', 'smtps:']);
  if (smtpUrl === undefined) return undefined;
  const from = env.MMGEN_MAIL_FROM;
  if (!from || !/^[^\s@<>]+@[^\s@<>]+$|<[^\s@<>]+@[^\s@<>]+>$/.test(from)) {
    throw new ConfigError('MMGEN_MAIL_FROM: set it to the sender of mmgen\'s mail (e.g. "mmgen <mmgen@example.com>") when MMGEN_SMTP_URL is set');
  }
  return { url: smtpUrl, from };
}

// The plans of domain/access.ts (a sign-up's organization gets one).
const SIGN_UP_PLANS = ['free', 'pro', 'studio', 'team'] as const;
type SignUpPlan = (typeof SIGN_UP_PLANS)[number];

function signUpConfig(env: Env): Config['signUp'] {
  const enabled = onOff(env, 'MMGEN_SIGNUP', false);
  const rawPlan = env.MMGEN_SIGNUP_PLAN?.trim() || 'free';
  if (!(SIGN_UP_PLANS as readonly string[]).includes(rawPlan)) throw new ConfigError(`MMGEN_SIGNUP_PLAN must be one of ${SIGN_UP_PLANS.join(', ')}, got "${rawPlan}"`);
  if (enabled && env.MMGEN_SMTP_URL === undefined) {
    throw new ConfigError('MMGEN_SIGNUP=on needs MMGEN_SMTP_URL (and MMGEN_MAIL_FROM): a sign-up is confirmed by a link mailed to the email. Configure SMTP, or leave sign-up off');
  }
  return { enabled, plan: rawPlan as SignUpPlan, ttlS: int(env, 'MMGEN_SIGNUP_TTL_HOURS', 24, 1, 720) * 3600 };
}

function webhookRetries(env: Env): RetryPolicy {
  const raw = env.MMGEN_WEBHOOK_RETRY_DELAYS;
  if (raw === undefined) return DEFAULT_RETRY_POLICY;
  const parsed = parseRetryDelays(raw);
  if (!parsed.ok) throw new ConfigError(`MMGEN_WEBHOOK_RETRY_DELAYS ${parsed.problem}`);
  return parsed.policy;
}

/** `providers`: the registered providers (src/providers/index.ts), whose credentials are read; a test may name its own. */
export function loadConfig(env: Env = process.env, providers?: readonly ProviderDeclaration[]): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST || '0.0.0.0';
  const publicUrl = url(env, 'MMGEN_PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`;
  return {
    port,
    host,
    dataDir: resolve(env.MMGEN_DATA_DIR || './data'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    dbPoolSize: int(env, 'MMGEN_DB_POOL_SIZE', 20, 1, 1000),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: env.MMGEN_REDIS_KEY_PREFIX ?? 'mmgen:',
    publicUrl: publicUrl.replace(/\/+$/, ''),
    simulateProviders: bool(env, 'MMGEN_SIMULATE_PROVIDERS'),
    catalogDate: isoDate(env, 'MMGEN_CATALOG_DATE'),
    allowPrivateNetwork: bool(env, 'MMGEN_ALLOW_PRIVATE_NETWORK'),
    trustedProxies: cidrList(env, 'MMGEN_TRUSTED_PROXIES'),
    metricsToken: env.MMGEN_METRICS_TOKEN || undefined,
    adminToken: adminToken(env),
    s3: s3Config(env),
    shutdownGraceMs: int(env, 'MMGEN_SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    readyMaxQueueAgeS: int(env, 'MMGEN_READY_MAX_QUEUE_AGE_S', 300, 1, 86_400),
    webhookRetries: webhookRetries(env),
    webhookTimeoutMs: int(env, 'MMGEN_WEBHOOK_TIMEOUT_MS', 15000, 1, 120000),
    requestTimeoutMs: int(env, 'MMGEN_REQUEST_TIMEOUT_MS', 300_000, 1000, 3_600_000),
    signingSecret: env.MMGEN_SIGNING_SECRET || undefined,
    logLevel: env.LOG_LEVEL || 'info',
    authFailuresPerMinute: int(env, 'MMGEN_AUTH_FAILURES_PER_MINUTE', 60, 1, 1_000_000),
    accounts: {
      sessionIdleS: int(env, 'MMGEN_SESSION_IDLE_MINUTES', 60, 1, 43_200) * 60,
      sessionMaxS: int(env, 'MMGEN_SESSION_MAX_HOURS', 12, 1, 8_760) * 3600,
      slowAfter: int(env, 'MMGEN_SIGNIN_SLOW_AFTER', 3, 1, 1000),
      lockAfter: int(env, 'MMGEN_SIGNIN_LOCK_AFTER', 10, 1, 1000),
      addressLockAfter: int(env, 'MMGEN_SIGNIN_ADDRESS_LOCK_AFTER', 50, 1, 100_000),
      lockWindowS: int(env, 'MMGEN_SIGNIN_LOCK_MINUTES', 15, 1, 1440) * 60,
      invitationTtlS: int(env, 'MMGEN_INVITATION_TTL_HOURS', 168, 1, 8_760) * 3600,
    },
    smtp: smtpConfig(env),
    signUp: signUpConfig(env),
    jobLeaseMs: int(env, 'MMGEN_JOB_LEASE_MS', 60_000, 500, 3_600_000),
    workerConcurrency: int(env, 'MMGEN_WORKER_CONCURRENCY', 64, 1, 10_000),
    workerPollMs: int(env, 'MMGEN_WORKER_POLL_MS', 200, 5, 60_000),
    schedulerIntervalMs: int(env, 'MMGEN_SCHEDULER_INTERVAL_MS', 15_000, 50, 3_600_000),
    settleDelayMs: int(env, 'MMGEN_SETTLE_DELAY_MS', 20, 0, 3_600_000),
    finishBatchMs: int(env, 'MMGEN_FINISH_BATCH_MS', 10, 0, 10_000),
    answeredFinishBatchMs: int(env, 'MMGEN_ANSWERED_FINISH_BATCH_MS', 50, 0, 10_000),
    requestLog: {
      enabled: onOff(env, 'MMGEN_REQUEST_LOG', true),
      batchMs: int(env, 'MMGEN_REQUEST_LOG_BATCH_MS', 200, 0, 60_000),
      maxBatch: int(env, 'MMGEN_REQUEST_LOG_MAX_BATCH', 1_000, 1, 10_000),
    },
    tracing: tracingConfig(env),
    metricsExport: metricsExportConfig(env),
    retentionIntervalMs: int(env, 'MMGEN_RETENTION_INTERVAL_MS', 3_600_000, 1_000, 86_400_000),
    settleSweepMs: int(env, 'MMGEN_SETTLE_SWEEP_MS', 2_000, 50, 3_600_000),
    earlyDispatchHeadroom: int(env, 'MMGEN_EARLY_DISPATCH_HEADROOM', 50, 0, 1_000_000),
    anomaly: {
      floorUsd: num(env, 'MMGEN_ANOMALY_FLOOR_USD', 50, 0, 1e9),
      multiplier: num(env, 'MMGEN_ANOMALY_MULTIPLIER', 10, 1, 1e6),
      windowMinutes: int(env, 'MMGEN_ANOMALY_WINDOW_MINUTES', 60, 1, 1440),
      baselineDays: int(env, 'MMGEN_ANOMALY_BASELINE_DAYS', 7, 1, 90),
    },
    providers: readProviderCredentials(
      env,
      (message) => {
        throw new ConfigError(message);
      },
      providers,
    ),
    moderation: moderationConfig(env),
    stripe: stripeConfig(env),
    upstream: {
      timeoutMs: int(env, 'MMGEN_PROVIDER_TIMEOUT_MS', 120_000, 100, 3_600_000),
      readTimeoutMs: int(env, 'MMGEN_PROVIDER_READ_TIMEOUT_MS', 30_000, 100, 600_000),
      maxRetryAfterMs: int(env, 'MMGEN_PROVIDER_MAX_RETRY_AFTER_MS', 10_000, 0, 600_000),
      jobTimeoutMs: int(env, 'MMGEN_PROVIDER_JOB_TIMEOUT_MS', 1_800_000, 100, 86_400_000),
      downloadMaxBytes: int(env, 'MMGEN_PROVIDER_DOWNLOAD_MAX_BYTES', 256 * 1024 * 1024, 1024, 4 * 1024 * 1024 * 1024),
      downloadTimeoutMs: int(env, 'MMGEN_PROVIDER_DOWNLOAD_TIMEOUT_MS', 120_000, 100, 3_600_000),
      circuitFailureThreshold: int(env, 'MMGEN_CIRCUIT_FAILURE_THRESHOLD', 5, 1, 1000),
      circuitCooldownMs: int(env, 'MMGEN_CIRCUIT_COOLDOWN_MS', 30_000, 100, 3_600_000),
    },
    rateLimitsPerMinute: {
      free: int(env, 'MMGEN_RATE_LIMIT_FREE', 60, 1, 10_000_000),
      pro: int(env, 'MMGEN_RATE_LIMIT_PRO', 600, 1, 10_000_000),
      studio: int(env, 'MMGEN_RATE_LIMIT_STUDIO', 1200, 1, 10_000_000),
      team: int(env, 'MMGEN_RATE_LIMIT_TEAM', 3000, 1, 10_000_000),
    },
  };
}
