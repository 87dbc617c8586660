import { resolve } from 'node:path';
import ipaddr from 'ipaddr.js';

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
  redisUrl: string | undefined;
  publicUrl: string;
  simulateProviders: boolean;
  allowPrivateNetwork: boolean;
  /** CIDR ranges whose X-Forwarded-For is believed. Empty: the socket address is the client. */
  trustedProxies: string[];
  metricsToken: string | undefined;
  webhookRetryDelaysS: number[];
  webhookTimeoutMs: number;
  /** Secret for signed file URLs; derived and stored in the database when not given. */
  signingSecret: string | undefined;
  logLevel: string;
  /** Failed authentications allowed per client address per minute. */
  authFailuresPerMinute: number;
  rateLimitsPerMinute: Record<'free' | 'pro' | 'studio' | 'team', number>;
  /** How long a claimed job is owned before another worker may take it over (renewed while working). */
  jobLeaseMs: number;
  /** Jobs one worker process runs at once. */
  workerConcurrency: number;
  /** How often an idle worker looks for due jobs. */
  workerPollMs: number;
  /** How often budgets and spending anomalies are checked (by every worker node; the checks are idempotent). */
  schedulerIntervalMs: number;
  anomaly: {
    /** Spend in the window below this never counts as an anomaly (a new organization's first burst). */
    floorUsd: number;
    /** Anomalous when the window's spend exceeds this many times the trailing baseline for a window as long. */
    multiplier: number;
    windowMinutes: number;
    baselineDays: number;
  };
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
    const cidr = entry.includes('/') ? entry : `${entry}/${ipaddr.parse(entry).kind() === 'ipv4' ? 32 : 128}`;
    try {
      ipaddr.parseCIDR(cidr);
    } catch {
      throw new ConfigError(`${name}: "${entry}" is not an IP address or CIDR range`);
    }
    return cidr;
  });
}

export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST || '0.0.0.0';
  const delaysRaw = env.MMGEN_WEBHOOK_RETRY_DELAYS ?? '60,300,1800,7200,43200';
  const webhookRetryDelaysS = delaysRaw.split(',').map((s) => Number(s.trim()));
  if (webhookRetryDelaysS.length !== 5 || webhookRetryDelaysS.some((n) => !Number.isFinite(n) || n < 0)) {
    throw new ConfigError('MMGEN_WEBHOOK_RETRY_DELAYS must be five non-negative numbers of seconds, comma-separated');
  }
  const publicUrl = url(env, 'MMGEN_PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`;
  return {
    port,
    host,
    dataDir: resolve(env.MMGEN_DATA_DIR || './data'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    publicUrl: publicUrl.replace(/\/+$/, ''),
    simulateProviders: bool(env, 'MMGEN_SIMULATE_PROVIDERS'),
    allowPrivateNetwork: bool(env, 'MMGEN_ALLOW_PRIVATE_NETWORK'),
    trustedProxies: cidrList(env, 'MMGEN_TRUSTED_PROXIES'),
    metricsToken: env.MMGEN_METRICS_TOKEN || undefined,
    webhookRetryDelaysS,
    webhookTimeoutMs: int(env, 'MMGEN_WEBHOOK_TIMEOUT_MS', 15000, 1, 120000),
    signingSecret: env.MMGEN_SIGNING_SECRET || undefined,
    logLevel: env.LOG_LEVEL || 'info',
    authFailuresPerMinute: int(env, 'MMGEN_AUTH_FAILURES_PER_MINUTE', 60, 1, 1_000_000),
    jobLeaseMs: int(env, 'MMGEN_JOB_LEASE_MS', 60_000, 500, 3_600_000),
    workerConcurrency: int(env, 'MMGEN_WORKER_CONCURRENCY', 64, 1, 10_000),
    workerPollMs: int(env, 'MMGEN_WORKER_POLL_MS', 200, 5, 60_000),
    schedulerIntervalMs: int(env, 'MMGEN_SCHEDULER_INTERVAL_MS', 15_000, 50, 3_600_000),
    anomaly: {
      floorUsd: num(env, 'MMGEN_ANOMALY_FLOOR_USD', 50, 0, 1e9),
      multiplier: num(env, 'MMGEN_ANOMALY_MULTIPLIER', 10, 1, 1e6),
      windowMinutes: int(env, 'MMGEN_ANOMALY_WINDOW_MINUTES', 60, 1, 1440),
      baselineDays: int(env, 'MMGEN_ANOMALY_BASELINE_DAYS', 7, 1, 90),
    },
    rateLimitsPerMinute: {
      free: int(env, 'MMGEN_RATE_LIMIT_FREE', 60, 1, 10_000_000),
      pro: int(env, 'MMGEN_RATE_LIMIT_PRO', 600, 1, 10_000_000),
      studio: int(env, 'MMGEN_RATE_LIMIT_STUDIO', 1200, 1, 10_000_000),
      team: int(env, 'MMGEN_RATE_LIMIT_TEAM', 3000, 1, 10_000_000),
    },
  };
}
