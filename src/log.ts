import { redactSecretShapes } from './secret-shapes.js';
import { pino, stdSerializers, type DestinationStream, type Logger } from 'pino';

/**
 * Structured JSON logs (pino), one object per line. Request lines carry
 * `reqId` (the `X-Request-Id` of the response), generation lines
 * `generationId`. Secrets never reach the output: known secret fields are
 * censored by path, and every string is scrubbed of API keys, webhook
 * secrets, bearer tokens and URL signatures (mmgen's own and S3's).
 */
const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers.cookie',
  'authorization',
  'key',
  'secret',
  'token',
  'password',
  'signingSecret',
  'metricsToken',
  '*.authorization',
  '*.key',
  '*.secret',
  '*.token',
  '*.password',
  '*.signingSecret',
  '*.metricsToken',
  '*.secretAccessKey',
];

/** Every string logged loses its secret shapes (secret-shapes.ts: the one list the audit and payload capture use too). */
export function scrubSecrets(text: string): string {
  return redactSecretShapes(text, '[redacted]');
}

function scrubValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return scrubSecrets(value);
  // Errors are serialized here (message, stack, cause, own fields), since this runs before pino's serializers.
  if (value instanceof Error) return scrubValue(stdSerializers.err(value), depth);
  if (depth >= 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = scrubValue(v, depth + 1);
  return out;
}

export function createLogger(opts: { level: string; mixin?: () => object }, destination?: DestinationStream): Logger {
  return pino(
    {
      level: opts.level,
      ...(opts.mixin ? { mixin: opts.mixin } : {}),
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { log: (obj) => scrubValue(obj, 0) as Record<string, unknown> },
      // formatters.log has already serialized and scrubbed errors; the default serializer would re-type them as Object.
      serializers: { err: (e: unknown) => (e instanceof Error ? scrubValue(e, 0) : e) },
      // The message text too (formatters.log sees only the object).
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((a) => (typeof a === 'string' ? scrubSecrets(a) : a)) as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}
