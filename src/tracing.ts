import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * The tracing port (issue 33, OpenTelemetry): the one interface use cases see. The OpenTelemetry implementation is
 * `tracing-otel.ts`, imported by main.ts only when the operator configured tracing (config.tracing); otherwise every
 * process runs with NO_TRACING, which makes no span, reads no context and loads no OpenTelemetry SDK module.
 *
 * Attributes carry names, ids, counts, codes and sizes, never a prompt, a body, a URL's query or a credential: an
 * error is recorded by its code or kind (`fail`), never by its message, which may quote what the caller sent.
 */
export type TraceValue = string | number | boolean | readonly string[] | undefined;
export type TraceAttributes = Readonly<Record<string, TraceValue>>;

export type SpanKind = 'internal' | 'client' | 'server' | 'consumer' | 'producer';

/** The span a stage runs in, as the stage may annotate it. */
export interface SpanScope {
  set(attributes: TraceAttributes): void;
  /** The stage failed: `errorType` is a code or kind (`error.type`), never free text. */
  fail(errorType: string): void;
}

export interface SpanOptions {
  kind?: SpanKind;
  /**
   * A span that starts a trace of its own (a worker's run, a webhook delivery) rather than continuing whatever
   * context the loop that started it happens to carry; with `linkTo`, linked to the span noted for that key.
   */
  root?: boolean;
  linkTo?: string;
}

export interface Tracing {
  /** False: the calls below do nothing and cost a call; a caller may skip building attributes. */
  readonly on: boolean;
  /** Runs `fn` in a span, a child of the current one (or a root: SpanOptions); ends it when `fn` settles. */
  span<T>(name: string, attributes: TraceAttributes, fn: (span: SpanScope) => Promise<T>, opts?: SpanOptions): Promise<T>;
  /** The current span (an HTTP request's server span inside a route), to annotate. */
  current(): SpanScope;
  /** Writes the current trace context into outgoing headers (W3C traceparent, tracestate). */
  inject(headers: Record<string, string>): void;
  /** Remembers the current span as where `key` (a generation) came from, for a later span's `linkTo`. */
  noteOrigin(key: string): void;
  /**
   * Puts every request `server` receives in a server span (its parent the caller's W3C traceparent), ended when the
   * response closes; `describe` then names it from the route the request took.
   */
  traceRequests(server: Server, describe: (req: IncomingMessage, res: ServerResponse) => { name: string; attributes: TraceAttributes }): void;
  /** Sends the spans ended so far (tests, shutdown). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** The span of an untraced stage: annotating it does nothing. */
export const NOOP_SCOPE: SpanScope = {
  set() {},
  fail() {},
};

export const NO_TRACING: Tracing = {
  on: false,
  span: (_name, _attributes, fn) => fn(NOOP_SCOPE),
  current: () => NOOP_SCOPE,
  inject() {},
  noteOrigin() {},
  traceRequests() {},
  flush: async () => {},
  close: async () => {},
};

/** The `error.type` of something thrown: its code (ApiError), kind (ProviderError) or class name; never its message. */
export function errorType(err: unknown): string {
  if (err !== null && typeof err === 'object') {
    const e = err as { code?: unknown; kind?: unknown; name?: unknown };
    if (typeof e.code === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(e.code)) return e.code;
    if (typeof e.kind === 'string' && /^[a-z_]{1,64}$/.test(e.kind)) return e.kind;
    if (typeof e.name === 'string' && /^[A-Za-z0-9_]{1,64}$/.test(e.name)) return e.name;
  }
  return '_OTHER';
}

type TraceIds = { trace_id: string; span_id: string };
/**
 * The sources of the open OpenTelemetry implementations, one per runtime with tracing on. Each reads OpenTelemetry's
 * context, which is the process's (its API is global), so any of them answers for every logger: held as a list so
 * that one runtime closing leaves another's log lines their ids.
 */
const traceIdsSources: Array<() => TraceIds | undefined> = [];

/** Installed by the OpenTelemetry implementation: the ids of the span active where a line is logged. Returns its removal. */
export function addTraceIdsSource(source: () => TraceIds | undefined): () => void {
  traceIdsSources.push(source);
  return () => {
    const at = traceIdsSources.indexOf(source);
    if (at >= 0) traceIdsSources.splice(at, 1);
  };
}

/** A log line's trace ids (pino's mixin, set only when tracing is configured): empty outside a span. */
export function logTraceIds(): Partial<TraceIds> {
  return traceIdsSources[0]?.() ?? {};
}
