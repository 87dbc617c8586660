import type { Logger } from 'pino';
import { diag, DiagLogLevel, ValueType, type Attributes, type HrTime } from '@opentelemetry/api';
import { millisToHrTime } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AggregationTemporality, DataPointType, MeterProvider, PeriodicExportingMetricReader,
  type CollectionResult, type MetricData, type MetricProducer,
} from '@opentelemetry/sdk-metrics';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { MetricsExportConfig } from './config.js';
import type { MetricsExport, MetricsReading } from './metrics.js';

/**
 * The Prometheus metrics (metrics.ts) pushed over OTLP/HTTP by the OpenTelemetry SDK. Nothing is recorded twice: a
 * MetricProducer reads prom-client's registries at each collection, as a scrape of /metrics does, and hands the SDK
 * the same names, labels (as attributes, their values as the text shows them) and values: a counter becomes a
 * monotonic cumulative Sum, a gauge a Gauge, a histogram a cumulative Histogram with the same bounds. The meter
 * provider has no instrument of its own; it is there because the SDK's reader collects through one and takes the
 * resource from it. Loaded by main.ts only when config.metricsExport is set.
 */

/** `service.instance.id` (the OTel convention) absent: cumulative series of two nodes would otherwise be one. */
const ATTR_SERVICE_INSTANCE_ID = 'service.instance.id';

type Reading = MetricsReading['metrics'][number];
type Sample = Reading['values'][number];

function attributesOf(labels: Sample['labels'], without?: string): Attributes {
  const out: Attributes = {};
  // As the exposition text prints them: a label set with a number is the same series as with its digits.
  for (const [k, v] of Object.entries(labels)) if (k !== without && v !== undefined) out[k] = String(v);
  return out;
}

/** One prom-client histogram's samples (`_bucket` per `le`, cumulative; `_sum`; `_count`) as OTel histogram points. */
function histogramPoints(m: Reading, start: HrTime, end: HrTime) {
  const series = new Map<string, { attributes: Attributes; bounds: Array<[number, number]>; sum: number; count: number }>();
  for (const s of m.values) {
    const attributes = attributesOf(s.labels, 'le');
    const key = JSON.stringify(Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : 1)));
    let one = series.get(key);
    if (!one) series.set(key, (one = { attributes, bounds: [], sum: 0, count: 0 }));
    const name = (s as { metricName?: string }).metricName;
    if (name === `${m.name}_sum`) one.sum = s.value;
    else if (name === `${m.name}_count`) one.count = s.value;
    else if (name === `${m.name}_bucket` && s.labels.le !== '+Inf') one.bounds.push([Number(s.labels.le), s.value]);
  }
  return [...series.values()].map(({ attributes, bounds, sum, count }) => {
    bounds.sort((a, b) => a[0] - b[0]);
    // Prometheus counts each bucket with every one below it; OTLP counts each on its own, +Inf last.
    const counts = bounds.map(([, c], i) => c - (i === 0 ? 0 : bounds[i - 1]![1]));
    counts.push(count - (bounds.at(-1)?.[1] ?? 0));
    return { startTime: start, endTime: end, attributes, value: { buckets: { boundaries: bounds.map(([b]) => b), counts }, sum, count } };
  });
}

function toMetricData(m: Reading, start: HrTime, end: HrTime): MetricData | undefined {
  if (m.values.length === 0) return undefined;
  const descriptor = { name: m.name, description: m.help, unit: '', valueType: ValueType.DOUBLE };
  const points = () => m.values.map((s) => ({ startTime: start, endTime: end, attributes: attributesOf(s.labels), value: s.value }));
  // prom-client's typings call this an enum; at run time it is the exposition's word ('counter', …).
  switch (String(m.type)) {
    case 'counter':
      return { descriptor, aggregationTemporality: AggregationTemporality.CUMULATIVE, dataPointType: DataPointType.SUM, isMonotonic: true, dataPoints: points() };
    case 'gauge':
      return { descriptor, aggregationTemporality: AggregationTemporality.CUMULATIVE, dataPointType: DataPointType.GAUGE, dataPoints: points() };
    case 'histogram':
      return { descriptor, aggregationTemporality: AggregationTemporality.CUMULATIVE, dataPointType: DataPointType.HISTOGRAM, dataPoints: histogramPoints(m, start, end) };
    default:
      // A summary has no counterpart in the SDK's data model; mmgen registers none.
      return undefined;
  }
}

/** The registries, read at each collection: what /metrics would show at that moment. */
export class PrometheusProducer implements MetricProducer {
  constructor(private readonly read: () => Promise<MetricsReading[]>, private readonly scopeVersion: string) {}

  async collect(): Promise<CollectionResult> {
    const readings = await this.read();
    const end = millisToHrTime(Date.now());
    const metrics = readings.flatMap((r) => r.metrics.flatMap((m) => toMetricData(m, millisToHrTime(r.sinceMs), end) ?? []));
    return {
      // The reader keeps its meter provider's resource and takes only the scope metrics from here.
      resourceMetrics: { resource: resourceFromAttributes({}), scopeMetrics: [{ scope: { name: 'mmgen', version: this.scopeVersion }, metrics }] },
      errors: [],
    };
  }
}

export function startOtlpMetrics(
  config: MetricsExportConfig,
  serviceVersion: string,
  instanceId: string,
  log: Pick<Logger, 'warn'>,
  read: () => Promise<MetricsReading[]>,
): MetricsExport {
  // As tracing-otel.ts does: the SDK's failures (a collector down, a refused batch) go to mmgen's log as warnings.
  const report = (message: string, ...args: unknown[]) => log.warn({ otel: args.map((a) => (a instanceof Error ? a.message : String(a))) }, `opentelemetry: ${message}`);
  diag.setLogger({ error: report, warn: report, info: () => {}, debug: () => {}, verbose: () => {} }, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  const reader = new PeriodicExportingMetricReader({
    exporter: new OTLPMetricExporter({ url: config.endpoint, headers: config.headers, timeoutMillis: config.timeoutMs }),
    exportIntervalMillis: config.intervalMs,
    exportTimeoutMillis: config.exportTimeoutMs,
    metricProducers: [new PrometheusProducer(read, serviceVersion)],
  });
  // Binding the reader starts its timer (unref'd: it keeps no process alive).
  const provider = new MeterProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_INSTANCE_ID]: instanceId,
      ...config.resourceAttributes,
      [ATTR_SERVICE_NAME]: config.serviceName,
      [ATTR_SERVICE_VERSION]: serviceVersion,
    }),
    readers: [reader],
  });
  return {
    flush: () => provider.forceFlush().catch((err: unknown) => report('metrics export failed', err)),
    close: () => provider.shutdown().catch((err: unknown) => report('metrics export failed at shutdown', err)),
  };
}
