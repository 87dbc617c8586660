import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import {
  context, defaultTextMapGetter, diag, DiagLogLevel, defaultTextMapSetter, ROOT_CONTEXT, SpanKind as OtelKind, SpanStatusCode, trace,
  type Attributes, type Context, type Link, type Span, type SpanContext,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler, AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-base';
import {
  ATTR_ERROR_TYPE, ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION, ATTR_URL_PATH,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import type { TracingConfig } from './config.js';
import { addTraceIdsSource, errorType, type SpanKind, type SpanOptions, type SpanScope, type TraceAttributes, type Tracing } from './tracing.js';

/**
 * The tracing port (tracing.ts) on the OpenTelemetry SDK: a tracer provider of its own (not registered as the global
 * one, so two runtimes in one process each export to their own endpoint), batched OTLP/HTTP export in its JSON
 * encoding, W3C trace context in and out. The one process-wide piece is the context manager (AsyncLocalStorage),
 * which OpenTelemetry's API keeps global: it is registered by the first traced runtime and left in place.
 */

const KINDS: Record<SpanKind, OtelKind> = {
  internal: OtelKind.INTERNAL,
  client: OtelKind.CLIENT,
  server: OtelKind.SERVER,
  consumer: OtelKind.CONSUMER,
  producer: OtelKind.PRODUCER,
};

/** Origins remembered for links (generation → the span that accepted it); the oldest are forgotten past this. */
const MAX_ORIGINS = 10_000;

function samplerOf(c: TracingConfig['sampler']): Sampler {
  const root = c.kind === 'always_on' ? new AlwaysOnSampler() : c.kind === 'always_off' ? new AlwaysOffSampler() : new TraceIdRatioBasedSampler(c.ratio);
  return c.parentBased ? new ParentBasedSampler({ root }) : root;
}

function clean(attributes: TraceAttributes): Attributes {
  const out: Attributes = {};
  for (const [k, v] of Object.entries(attributes)) if (v !== undefined) out[k] = typeof v === 'object' ? [...v] : v;
  return out;
}

class Scope implements SpanScope {
  failed = false;
  constructor(private readonly span: Span) {}
  set(attributes: TraceAttributes): void {
    this.span.setAttributes(clean(attributes));
  }
  fail(type: string): void {
    this.failed = true;
    this.span.setAttribute(ATTR_ERROR_TYPE, type);
    this.span.setStatus({ code: SpanStatusCode.ERROR });
  }
}

// OpenTelemetry's context manager is the process's (its API is global): installed once, shared by every runtime with
// tracing on, as their spans share one async context.
let contextManagerInstalled = false;

function installContextManager(): void {
  if (contextManagerInstalled) return;
  const manager = new AsyncLocalStorageContextManager().enable();
  // false: another library registered one already; spans then follow whatever context it keeps.
  context.setGlobalContextManager(manager);
  contextManagerInstalled = true;
}

export class OtelTracing implements Tracing {
  readonly on = true;
  private readonly provider: BasicTracerProvider;
  private readonly tracer;
  private readonly propagator = new W3CTraceContextPropagator();
  private readonly origins = new Map<string, SpanContext>();
  private readonly report: (message: string, ...args: unknown[]) => void;
  private readonly removeTraceIds: () => void;

  constructor(config: TracingConfig, serviceVersion: string, log: Pick<Logger, 'warn'>) {
    installContextManager();
    // The SDK reports a failed export (a collector down, a refused batch) through its diagnostic logger, silent by
    // default: warnings and errors go to mmgen's log instead, rate-bounded by the batch interval. The diagnostic
    // logger is the process's (OpenTelemetry's API is global): with several runtimes in one process (tests), the last
    // one made reports the SDK's warnings.
    const report = (message: string, ...args: unknown[]) => log.warn({ otel: args.map((a) => (a instanceof Error ? a.message : String(a))) }, `opentelemetry: ${message}`);
    this.report = report;
    diag.setLogger({ error: report, warn: report, info: () => {}, debug: () => {}, verbose: () => {} }, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
    this.provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ ...config.resourceAttributes, [ATTR_SERVICE_NAME]: config.serviceName, [ATTR_SERVICE_VERSION]: serviceVersion }),
      sampler: samplerOf(config.sampler),
      spanProcessors: [
        new BatchSpanProcessor(new OTLPTraceExporter({ url: config.endpoint, headers: config.headers, timeoutMillis: config.timeoutMs })),
      ],
    });
    this.tracer = this.provider.getTracer('mmgen', serviceVersion);
    this.removeTraceIds = addTraceIdsSource(() => {
      const sc = trace.getSpan(context.active())?.spanContext();
      return sc ? { trace_id: sc.traceId, span_id: sc.spanId } : undefined;
    });
  }

  span<T>(name: string, attributes: TraceAttributes, fn: (span: SpanScope) => Promise<T>, opts: SpanOptions = {}): Promise<T> {
    const parent = opts.root ? ROOT_CONTEXT : context.active();
    const origin = opts.linkTo === undefined ? undefined : this.origins.get(opts.linkTo);
    const links: Link[] = origin ? [{ context: origin }] : [];
    return this.tracer.startActiveSpan(name, { kind: KINDS[opts.kind ?? 'internal'], attributes: clean(attributes), links }, parent, async (span) => {
      const scope = new Scope(span);
      try {
        return await fn(scope);
      } catch (err) {
        // A stage that named its failure keeps that name.
        if (!scope.failed) scope.fail(errorType(err));
        throw err;
      } finally {
        span.end();
      }
    });
  }

  current(): SpanScope {
    const span = trace.getSpan(context.active());
    return span ? new Scope(span) : NOOP;
  }

  inject(headers: Record<string, string>): void {
    this.propagator.inject(context.active(), headers, defaultTextMapSetter);
  }

  noteOrigin(key: string): void {
    const span = trace.getSpan(context.active());
    if (!span) return;
    if (this.origins.size >= MAX_ORIGINS) this.origins.delete(this.origins.keys().next().value!);
    this.origins.set(key, span.spanContext());
  }

  /**
   * Every request of `server` in a server span: its parent is the caller's traceparent, if any; the request's and the
   * response's events are bound to its context, so Fastify's hooks, the body's parsing and the handler all run in it.
   * The span ends when the response closes; `describe` names it and adds the route's facts then.
   */
  traceRequests(server: Server, describe: (req: IncomingMessage, res: ServerResponse) => { name: string; attributes: TraceAttributes }): void {
    const listeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const parent = this.propagator.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter);
      const path = (req.url ?? '/').split('?')[0]!;
      const span = this.tracer.startSpan(
        req.method ?? 'HTTP',
        { kind: OtelKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: req.method ?? '_OTHER', [ATTR_URL_PATH]: path, [ATTR_URL_SCHEME]: 'http' } },
        parent,
      );
      const ctx: Context = trace.setSpan(parent, span);
      context.bind(ctx, req);
      context.bind(ctx, res);
      res.once('close', () => {
        const { name, attributes } = describe(req, res);
        span.updateName(name);
        span.setAttributes({ ...clean(attributes), [ATTR_HTTP_RESPONSE_STATUS_CODE]: res.statusCode });
        if (res.statusCode >= 500) {
          span.setAttribute(ATTR_ERROR_TYPE, String(res.statusCode));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
      });
      context.with(ctx, () => {
        for (const l of listeners) l.call(server, req, res);
      });
    });
  }

  /** A refused or failed export is logged (as the SDK's timer path reports it), never thrown at the caller. */
  flush(): Promise<void> {
    return this.provider.forceFlush().catch((err: unknown) => this.report('span export failed', err));
  }

  async close(): Promise<void> {
    this.removeTraceIds();
    await this.provider.shutdown().catch((err: unknown) => this.report('span export failed at shutdown', err));
  }
}

const NOOP: SpanScope = { set() {}, fail() {} };

/** Loaded by main.ts only when config.tracing is set: the SDK's modules are imported with this one. */
export function createOtelTracing(config: TracingConfig, serviceVersion: string, log: Pick<Logger, 'warn'>): OtelTracing {
  return new OtelTracing(config, serviceVersion, log);
}
