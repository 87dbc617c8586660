import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/**
 * A loopback OTLP/HTTP receiver (POST /v1/traces, /v1/metrics) that decodes the protocol's JSON encoding
 * (ExportTraceServiceRequest, ExportMetricsServiceRequest; opentelemetry-proto's JSON mapping: hex ids, enums as
 * numbers, 64-bit integers as strings or numbers) and refuses what the protocol refuses. It does not decode the
 * binary protobuf encoding, which mmgen never sends (it exports http/json), and answers it 415 like any other type.
 */

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number; arrayValue?: { values: AnyValue[] } };
type KeyValues = Array<{ key: string; value: AnyValue }>;
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: KeyValues;
  links?: Array<{ traceId: string; spanId: string }>;
  status?: { code?: number };
}
export interface Span {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  attrs: Record<string, string | number | boolean | unknown[]>;
  links: Array<{ traceId: string; spanId: string }>;
  statusCode: number;
  service: string | undefined;
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;
export const STATUS_ERROR = 2;
/** opentelemetry-proto's AggregationTemporality. */
export const TEMPORALITY = { delta: 1, cumulative: 2 } as const;

type Attrs = Record<string, string | number | boolean | unknown[]>;

function valueOf(v: AnyValue): string | number | boolean | unknown[] {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue !== undefined) return v.arrayValue.values.map(valueOf);
  throw new Error(`unknown AnyValue ${JSON.stringify(v)}`);
}

function attrsOf(kvs: KeyValues | undefined): Attrs {
  if (kvs !== undefined && !Array.isArray(kvs)) throw new Error('attributes must be a list');
  const out: Attrs = {};
  for (const a of kvs ?? []) {
    if (typeof a.key !== 'string') throw new Error('an attribute without a key');
    out[a.key] = valueOf(a.value);
  }
  return out;
}

/** Throws on anything that is not an ExportTraceServiceRequest in the JSON encoding. */
function decodeTraces(doc: unknown): Span[] {
  const isHex = (s: unknown, n: number) => typeof s === 'string' && new RegExp(`^[0-9a-f]{${n}}$`).test(s);
  if (!doc || typeof doc !== 'object' || !Array.isArray((doc as { resourceSpans?: unknown }).resourceSpans)) throw new Error('no resourceSpans');
  const out: Span[] = [];
  for (const rs of (doc as { resourceSpans: Array<{ resource?: { attributes?: KeyValues }; scopeSpans?: Array<{ spans?: OtlpSpan[] }> }> }).resourceSpans) {
    const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue;
    if (!Array.isArray(rs.scopeSpans)) throw new Error('no scopeSpans');
    for (const ss of rs.scopeSpans) {
      for (const s of ss.spans ?? []) {
        if (!isHex(s.traceId, 32) || !isHex(s.spanId, 16)) throw new Error('trace and span ids must be hex');
        if (s.parentSpanId !== undefined && s.parentSpanId !== '' && !isHex(s.parentSpanId, 16)) throw new Error('bad parentSpanId');
        if (typeof s.name !== 'string' || !Number.isInteger(s.kind)) throw new Error('bad name or kind');
        if (!/^\d+$/.test(String(s.startTimeUnixNano)) || !/^\d+$/.test(String(s.endTimeUnixNano))) throw new Error('bad times');
        out.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId || undefined,
          name: s.name,
          kind: s.kind,
          attrs: attrsOf(s.attributes),
          links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
          statusCode: s.status?.code ?? 0,
          service,
        });
      }
    }
  }
  return out;
}

/** One data point of a Sum, a Gauge or a Histogram, as decoded (64-bit integers as numbers: the test's are small). */
export interface MetricPoint {
  attrs: Attrs;
  startTimeUnixNano: bigint;
  timeUnixNano: bigint;
  /** Sum and Gauge. */
  value?: number;
  /** Histogram. */
  count?: number;
  sum?: number;
  explicitBounds?: number[];
  bucketCounts?: number[];
}
export interface Metric {
  name: string;
  description: string;
  unit: string;
  type: 'sum' | 'gauge' | 'histogram';
  /** Sum and Histogram. */
  temporality?: number;
  monotonic?: boolean;
  points: MetricPoint[];
}
/** One ExportMetricsServiceRequest's metrics of one resource. */
export interface MetricsBatch {
  resource: Attrs;
  scope: { name: string; version: string | undefined };
  metrics: Metric[];
  receivedAt: number;
}

const uint64 = (v: unknown, what: string): number => {
  if ((typeof v === 'string' && /^\d+$/.test(v)) || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)) return Number(v);
  throw new Error(`${what} must be a uint64, got ${JSON.stringify(v)}`);
};
const nanos = (v: unknown, what: string): bigint => {
  if ((typeof v === 'string' && /^\d+$/.test(v)) || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)) return BigInt(v);
  throw new Error(`${what} must be fixed64 nanoseconds`);
};
const double = (v: unknown, what: string): number => {
  // The JSON mapping writes NaN and infinities as strings.
  if (typeof v === 'number') return v;
  if (v === 'NaN' || v === 'Infinity' || v === '-Infinity') return Number(v);
  throw new Error(`${what} must be a double`);
};

type JsonPoint = {
  attributes?: KeyValues; startTimeUnixNano?: unknown; timeUnixNano?: unknown; asDouble?: unknown; asInt?: unknown;
  count?: unknown; sum?: unknown; bucketCounts?: unknown[]; explicitBounds?: unknown[];
};
type JsonData = { dataPoints?: JsonPoint[]; aggregationTemporality?: unknown; isMonotonic?: unknown };

function decodePoint(p: JsonPoint, histogram: boolean): MetricPoint {
  const point: MetricPoint = {
    attrs: attrsOf(p.attributes),
    startTimeUnixNano: nanos(p.startTimeUnixNano ?? '0', 'startTimeUnixNano'),
    timeUnixNano: nanos(p.timeUnixNano, 'timeUnixNano'),
  };
  if (!histogram) {
    if ((p.asDouble === undefined) === (p.asInt === undefined)) throw new Error('a number data point has one of asDouble and asInt');
    point.value = p.asDouble !== undefined ? double(p.asDouble, 'asDouble') : Number(p.asInt);
    return point;
  }
  point.count = uint64(p.count, 'count');
  point.sum = p.sum === undefined ? undefined : double(p.sum, 'sum');
  point.explicitBounds = (p.explicitBounds ?? []).map((b) => double(b, 'explicitBounds'));
  point.bucketCounts = (p.bucketCounts ?? []).map((c) => uint64(c, 'bucketCounts'));
  if (point.bucketCounts.length > 0 && point.bucketCounts.length !== point.explicitBounds.length + 1) throw new Error('bucketCounts must be one longer than explicitBounds');
  if (point.explicitBounds.some((b, i) => i > 0 && b <= point.explicitBounds![i - 1]!)) throw new Error('explicitBounds must increase');
  if (point.bucketCounts.length > 0 && point.bucketCounts.reduce((a, b) => a + b, 0) !== point.count) throw new Error('bucketCounts must add up to count');
  return point;
}

/** Throws on anything that is not an ExportMetricsServiceRequest in the JSON encoding. */
function decodeMetrics(doc: unknown): MetricsBatch[] {
  if (!doc || typeof doc !== 'object' || !Array.isArray((doc as { resourceMetrics?: unknown }).resourceMetrics)) throw new Error('no resourceMetrics');
  type JsonMetric = { name?: unknown; description?: unknown; unit?: unknown; sum?: JsonData; gauge?: JsonData; histogram?: JsonData };
  const out: MetricsBatch[] = [];
  for (const rm of (doc as { resourceMetrics: Array<{ resource?: { attributes?: KeyValues }; scopeMetrics?: Array<{ scope?: { name?: string; version?: string }; metrics?: JsonMetric[] }> }> }).resourceMetrics) {
    const resource = attrsOf(rm.resource?.attributes);
    if (!Array.isArray(rm.scopeMetrics)) throw new Error('no scopeMetrics');
    for (const sm of rm.scopeMetrics) {
      const metrics: Metric[] = [];
      for (const m of sm.metrics ?? []) {
        if (typeof m.name !== 'string' || m.name === '') throw new Error('a metric without a name');
        const kinds = (['sum', 'gauge', 'histogram'] as const).filter((k) => m[k] !== undefined);
        if (kinds.length !== 1) throw new Error(`${m.name}: a metric has exactly one of sum, gauge, histogram (others are not decoded here)`);
        const type = kinds[0]!;
        const data = m[type]!;
        if (!Array.isArray(data.dataPoints)) throw new Error(`${m.name}: no dataPoints`);
        const metric: Metric = {
          name: m.name,
          description: typeof m.description === 'string' ? m.description : '',
          unit: typeof m.unit === 'string' ? m.unit : '',
          type,
          points: data.dataPoints.map((p) => decodePoint(p, type === 'histogram')),
        };
        if (type !== 'gauge') {
          if (data.aggregationTemporality !== TEMPORALITY.delta && data.aggregationTemporality !== TEMPORALITY.cumulative) throw new Error(`${m.name}: aggregationTemporality must be set`);
          metric.temporality = data.aggregationTemporality;
        }
        if (type === 'sum') metric.monotonic = data.isMonotonic === true;
        metrics.push(metric);
      }
      out.push({ resource, scope: { name: sm.scope?.name ?? '', version: sm.scope?.version }, metrics, receivedAt: Date.now() });
    }
  }
  return out;
}

export interface Receiver {
  url: string;
  /** While set, every export is refused with 400 (a collector that will not take the batch). */
  refuse: boolean;
  spans: Span[];
  /** Every metrics export received, in order. */
  metrics: MetricsBatch[];
  /** Every body received, as sent (decompressed): searched for secrets. */
  raw: string[];
  connections: number;
  /** Requests received, by path (refused ones included). */
  posts: Record<string, number>;
  close(): Promise<void>;
}

const PATHS = ['/v1/traces', '/v1/metrics'];

/** JSON only, 415 for any other type, 400 for a body that does not decode. */
export async function startReceiver(): Promise<Receiver> {
  const r = { spans: [] as Span[], metrics: [] as MetricsBatch[], raw: [] as string[], connections: 0, refuse: false, posts: {} as Record<string, number> };
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const path = (req.url ?? '').split('?')[0]!;
      r.posts[path] = (r.posts[path] ?? 0) + 1;
      if (!PATHS.includes(path)) return reply(404, { code: 5, message: 'not found' });
      if (r.refuse) return reply(400, { code: 3, message: 'refused for the test' });
      if (req.method !== 'POST') return reply(405, { code: 12, message: 'only POST' });
      const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
      if (type !== 'application/json') return reply(415, { code: 3, message: `unsupported content type ${type}` });
      let bytes = Buffer.concat(chunks);
      try {
        if (req.headers['content-encoding'] === 'gzip') bytes = gunzipSync(bytes);
        else if (req.headers['content-encoding'] && req.headers['content-encoding'] !== 'identity') return reply(415, { code: 3, message: 'unsupported encoding' });
        const text = bytes.toString('utf8');
        const doc = JSON.parse(text) as unknown;
        if (path === '/v1/traces') r.spans.push(...decodeTraces(doc));
        else r.metrics.push(...decodeMetrics(doc));
        r.raw.push(text);
      } catch (err) {
        return reply(400, { code: 3, message: String(err) });
      }
      reply(200, {});
    });
  });
  server.on('connection', () => r.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get spans() {
      return r.spans;
    },
    get metrics() {
      return r.metrics;
    },
    get raw() {
      return r.raw;
    },
    get connections() {
      return r.connections;
    },
    get posts() {
      return r.posts;
    },
    get refuse() {
      return r.refuse;
    },
    set refuse(v: boolean) {
      r.refuse = v;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
