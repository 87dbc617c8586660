import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from './config.js';
import type { Plan } from './domain/access.js';

/** What one request learns about its key's budget (contract §8). */
export interface RateLimitDecision {
  allowed: boolean;
  /** Requests per minute of the key's plan. */
  limit: number;
  remaining: number;
  /** Whole seconds until the current window ends (at least 1). */
  resetS: number;
}

export interface KeyRateLimiter {
  /** Counts one request of an API key against its plan's per-minute budget; null when it could not be counted. */
  consume(keyId: string, plan: Plan): Promise<RateLimitDecision | null>;
  /**
   * Counts a failed authentication from a client address (shared through
   * Redis like the key budgets); the seconds to wait when the address is over
   * its limit, else null.
   */
  failedAuth(ip: string): Promise<number | null>;
  /** People's sign-in attempts, counted per email and per address (shared through Redis like the rest). */
  signIn: SignInGuard;
  /** Whether Redis answers (within a second); null when Redis is not configured. */
  ping(): Promise<'ok' | 'unavailable' | null>;
  close(): Promise<void>;
}

/**
 * The brake on guessing passwords (docs/contract-addenda.md, "People"): failures are counted per email as written
 * (whether or not an account has it, so the answers never tell which exist) and per client address, in a window.
 */
export interface SignInGuard {
  /** How many failures the email and the address have in the window (the larger), and the seconds either is locked for. */
  state(emailKey: string, ip: string): Promise<{ failures: number; lockedForS: number | null }>;
  failed(emailKey: string, ip: string): Promise<void>;
  /** A right password clears the email's count (not the address's: one account cannot launder another's guesses). */
  succeeded(emailKey: string): Promise<void>;
}

const WINDOW_S = 60;
// A warning per incident is enough; Redis errors come per request and per reconnect attempt.
const WARN_EVERY_MS = 30_000;

/**
 * Per-key request budgets by plan, counted in fixed one-minute windows that
 * start at a key's first request. With REDIS_URL the counters live in Redis
 * so that every node draws from one budget; otherwise in this process.
 *
 * Redis trouble never fails requests: while Redis is unreachable (or slower
 * than a second) each node counts in its own memory instead (an insurance
 * limiter), so the limit still holds per node, and a warning is logged.
 */
export function createKeyRateLimiter(config: Config, log: Logger): KeyRateLimiter {
  const redis = config.redisUrl ? connectRedis(config.redisUrl, log) : null;
  const byPlan = new Map<Plan, RateLimiterAbstract>();
  let connecting: Promise<void> | null = null;
  let lastWarn = 0;

  const limiter = (points: number, keyPrefix: string): RateLimiterAbstract =>
    redis
      ? new RateLimiterRedis({
          storeClient: redis,
          points,
          duration: WINDOW_S,
          keyPrefix,
          rejectIfRedisNotReady: true,
          insuranceLimiter: new RateLimiterMemory({ points, duration: WINDOW_S, keyPrefix }),
        })
      : new RateLimiterMemory({ points, duration: WINDOW_S, keyPrefix });
  const limiterFor = (plan: Plan): RateLimiterAbstract => {
    let l = byPlan.get(plan);
    if (!l) {
      // A plan change gives the key a fresh window on the new plan's counter rather than carrying the old count over.
      l = limiter(config.rateLimitsPerMinute[plan], `${config.redisKeyPrefix}rl:${plan}`);
      byPlan.set(plan, l);
    }
    return l;
  };
  // Failed authentications per client address: a brute-force brake that never touches requests with valid keys (contract §9).
  let authFailures: RateLimiterAbstract | null = null;
  const ensureConnected = async () => {
    if (redis && redis.status === 'wait') {
      // Connected on first use, so CLI commands that build a runtime never open a Redis connection.
      connecting ??= redis.connect().catch(() => {});
      await connecting;
    }
  };

  const decision = (res: RateLimiterRes, limit: number, allowed: boolean): RateLimitDecision => ({
    allowed,
    limit,
    remaining: Math.max(0, limit - res.consumedPoints),
    resetS: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  });

  const byEmail = (() => {
    const { lockAfter, lockWindowS } = config.accounts;
    return redis
      ? new RateLimiterRedis({ storeClient: redis, points: lockAfter, duration: lockWindowS, keyPrefix: `${config.redisKeyPrefix}signin:e`, rejectIfRedisNotReady: true })
      : new RateLimiterMemory({ points: lockAfter, duration: lockWindowS, keyPrefix: 'signin:e' });
  })();
  const byAddress = (() => {
    const { addressLockAfter, lockWindowS } = config.accounts;
    return redis
      ? new RateLimiterRedis({ storeClient: redis, points: addressLockAfter, duration: lockWindowS, keyPrefix: `${config.redisKeyPrefix}signin:a`, rejectIfRedisNotReady: true })
      : new RateLimiterMemory({ points: addressLockAfter, duration: lockWindowS, keyPrefix: 'signin:a' });
  })();
  const signIn: SignInGuard = {
    async state(emailKey, ip) {
      await ensureConnected();
      const [e, a] = await Promise.all([byEmail.get(emailKey), byAddress.get(ip)]);
      const locked = [
        e && e.consumedPoints >= config.accounts.lockAfter ? e.msBeforeNext : 0,
        a && a.consumedPoints >= config.accounts.addressLockAfter ? a.msBeforeNext : 0,
      ];
      const ms = Math.max(...locked);
      return { failures: Math.max(e?.consumedPoints ?? 0, a?.consumedPoints ?? 0), lockedForS: ms > 0 ? Math.max(1, Math.ceil(ms / 1000)) : null };
    },
    async failed(emailKey, ip) {
      await ensureConnected();
      await Promise.all([byEmail.penalty(emailKey, 1), byAddress.penalty(ip, 1)]);
    },
    async succeeded(emailKey) {
      await ensureConnected();
      await byEmail.delete(emailKey);
    },
  };

  return {
    signIn,
    async consume(keyId, plan) {
      await ensureConnected();
      const limit = config.rateLimitsPerMinute[plan];
      try {
        return decision(await limiterFor(plan).consume(keyId), limit, true);
      } catch (err) {
        if (err instanceof RateLimiterRes) return decision(err, limit, false);
        if (Date.now() - lastWarn > WARN_EVERY_MS) {
          lastWarn = Date.now();
          log.warn({ err }, 'rate limit could not be counted; the request is let through');
        }
        return null;
      }
    },
    async failedAuth(ip) {
      await ensureConnected();
      authFailures ??= limiter(config.authFailuresPerMinute, `${config.redisKeyPrefix}authfail`);
      try {
        await authFailures.consume(ip);
        return null;
      } catch (err) {
        if (err instanceof RateLimiterRes) return Math.max(1, Math.ceil(err.msBeforeNext / 1000));
        return null;
      }
    },
    async ping() {
      if (!redis) return null;
      await ensureConnected();
      try {
        return (await redis.ping()) === 'PONG' ? 'ok' : 'unavailable';
      } catch {
        return 'unavailable';
      }
    },
    async close() {
      if (!redis) return;
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  };
}

function connectRedis(url: string, log: Logger): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2_000,
    // A hung Redis must not hold requests: the insurance limiter takes over after this.
    commandTimeout: 1_000,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(attempt * 200, 5_000),
  });
  let lastWarn = 0;
  let degraded = false;
  redis.on('error', (err: Error) => {
    degraded = true;
    if (Date.now() - lastWarn < WARN_EVERY_MS) return;
    lastWarn = Date.now();
    log.warn({ err: err.message }, 'Redis unavailable: rate limits are counted per process until it is back');
  });
  redis.on('ready', () => {
    if (degraded) log.info('Redis is back: rate limits are shared again');
    degraded = false;
  });
  return redis;
}
