import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/main.js';
import { waitTerminal } from '../helpers/generations.js';
import { jsonLogSink } from '../helpers/log-sink.js';
import { startReceiver, TEMPORALITY, type MetricsBatch, type Receiver } from '../helpers/otlp-receiver.js';
import { parsePrometheus, type Sample } from '../helpers/prometheus.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * The Prometheus metrics also exported over OTLP (issue 33): mmgen's OpenTelemetry SDK posts ExportMetricsServiceRequest
 * to a loopback OTLP/HTTP receiver (test/helpers/otlp-receiver.ts) that decodes them, and what arrives is compared,
 * series by series, with what /metrics says at the same moment.
 */

/** An export's metrics as the Prometheus text would show them: histograms as cumulative `_bucket`, `_sum`, `_count`. */
function asSamples(batch: MetricsBatch): Sample[] {
  const out: Sample[] = [];
  for (const m of batch.metrics) {
    for (const p of m.points) {
      const labels = Object.fromEntries(Object.entries(p.attrs).map(([k, v]) => [k, String(v)]));
      if (m.type !== 'histogram') {
        out.push({ name: m.name, labels, value: p.value! });
        continue;
      }
      let acc = 0;
      p.explicitBounds!.forEach((b, i) => {
        acc += p.bucketCounts![i]!;
        out.push({ name: `${m.name}_bucket`, labels: { ...labels, le: String(b) }, value: acc });
      });
      out.push({ name: `${m.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: p.count! });
      out.push({ name: `${m.name}_sum`, labels, value: p.sum! });
      out.push({ name: `${m.name}_count`, labels, value: p.count! });
    }
  }
  return out;
}

/** mmgen's own series (process metrics move by themselves), without the scrapes' own latency. */
const ours = (samples: Sample[]) =>
  samples
    .filter((x) => x.name.startsWith('mmgen_') && x.labels.route !== '/metrics')
    .map((x) => `${x.name}${JSON.stringify(Object.entries(x.labels).sort(([a], [b]) => (a < b ? -1 : 1)))} ${x.value}`)
    .sort();

describe('metrics export configuration', () => {
  it('is off unless an OTLP endpoint is set (or OTEL_METRICS_EXPORTER=otlp); none and OTEL_SDK_DISABLED win; only http/json, cumulative', () => {
    expect(loadConfig({}).metricsExport).toBeUndefined();
    expect(loadConfig({ OTEL_SERVICE_NAME: 'x', OTEL_METRIC_EXPORT_INTERVAL: '1000' }).metricsExport).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_METRICS_EXPORTER: 'none' }).metricsExport).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }).metricsExport).toBeUndefined();
    // Traces and metrics are turned off each on its own.
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }).metricsExport?.endpoint).toBe('http://c:4318/v1/metrics');
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_METRICS_EXPORTER: 'none' }).tracing?.endpoint).toBe('http://c:4318/v1/traces');
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }).metricsExport).toEqual({
      endpoint: 'http://c:4318/v1/metrics',
      headers: {},
      timeoutMs: 10_000,
      intervalMs: 60_000,
      exportTimeoutMs: 30_000,
      serviceName: 'mmgen',
      resourceAttributes: {},
    });
    expect(loadConfig({ OTEL_METRICS_EXPORTER: 'otlp' }).metricsExport?.endpoint).toBe('http://localhost:4318/v1/metrics');
    const c = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base:4318',
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'https://otel.example/custom',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc',
      OTEL_EXPORTER_OTLP_METRICS_HEADERS: 'x-m=1',
      OTEL_EXPORTER_OTLP_METRICS_TIMEOUT: '2000',
      OTEL_METRIC_EXPORT_INTERVAL: '5000',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attrs,deployment.environment.name=prod',
    }).metricsExport;
    expect(c).toEqual({
      endpoint: 'https://otel.example/custom',
      headers: { authorization: 'Bearer abc', 'x-m': '1' },
      timeoutMs: 2000,
      intervalMs: 5000,
      // OTEL_METRIC_EXPORT_TIMEOUT's 30 s default is held to the interval.
      exportTimeoutMs: 5000,
      serviceName: 'from-attrs',
      resourceAttributes: { 'service.name': 'from-attrs', 'deployment.environment.name': 'prod' },
    });
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/protobuf' })).toThrow(/OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: mmgen exports metrics as http\/json/);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_METRICS_EXPORTER: 'prometheus' })).toThrow(/OTEL_METRICS_EXPORTER/);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: 'delta' })).toThrow(ConfigError);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_METRIC_EXPORT_INTERVAL: 'often' })).toThrow(/OTEL_METRIC_EXPORT_INTERVAL/);
  });
});

describeOnBackend('OTLP metrics', 'pglite', (backend) => {
  describe('off', () => {
    let rx: Receiver;
    beforeAll(async () => (rx = await startReceiver()));
    afterAll(async () => rx?.close());

    it('with no OTEL_* variable, no export is made: no exporter nor reader, hence no timer', async () => {
      const s = await startTestServer(backend, {});
      try {
        expect(s.config.metricsExport).toBeUndefined();
        expect(s.runtime.metricsExport).toBeNull();
        await s.runtime.exportMetrics();
        expect(s.runtime.metricsExport).toBeNull();
      } finally {
        await s.close();
      }
    });

    it('with OTEL_METRICS_EXPORTER=none, nothing reaches the collector, not even at shutdown (a reader would flush then)', async () => {
      const s = await startTestServer(backend, { OTEL_EXPORTER_OTLP_ENDPOINT: rx.url, OTEL_METRICS_EXPORTER: 'none', OTEL_TRACES_EXPORTER: 'none', OTEL_METRIC_EXPORT_INTERVAL: '100' });
      const org = await s.createOrg();
      expect((await client(s.url)('POST', '/v1/images', { key: org.test, body: { model: 'flux-schnell', prompt: 'unexported', width: 256, height: 256 } })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 300));
      expect(s.runtime.metricsExport).toBeNull();
      await s.close();
      expect(rx.posts).toEqual({});
      expect(rx.connections).toBe(0);
    });
  });

  describe('on', () => {
    let rx: Receiver;
    let s: TestServer;
    let org: TestOrg;
    const lines: Array<Record<string, unknown>> = [];

    beforeAll(async () => {
      rx = await startReceiver();
      const sink = jsonLogSink(lines);
      s = await startTestServer(backend, {
        MMGEN_SIMULATE_PROVIDERS: '1',
        OTEL_EXPORTER_OTLP_ENDPOINT: rx.url,
        OTEL_TRACES_EXPORTER: 'none',
        OTEL_METRIC_EXPORT_INTERVAL: '250',
        OTEL_SERVICE_NAME: 'mmgen-metrics-under-test',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
      }, { log: (config) => createLogger({ ...config, logLevel: 'info' }, sink) });
      org = await s.createOrg({ credits: 1_000_000 });
    });
    afterAll(async () => {
      await s?.close();
      await rx?.close();
    });

    it('the periodic export carries every series /metrics shows, with the same names, labels and values', async () => {
      const api = client(s.url);
      const chat = await api('POST', '/v1/chat', { key: org.live, body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'count to three' }] } });
      expect(chat.status, JSON.stringify(chat.body)).toBe(200);
      const image = await api('POST', '/v1/images', { key: org.live, body: { model: 'flux-schnell', prompt: 'an exported fox', width: 256, height: 256 } });
      expect(image.status, JSON.stringify(image.body)).toBe(200);
      const failed = await api('POST', '/v1/images', { key: org.live, body: { model: 'flux-schnell', prompt: 'a failing fox', width: 256, height: 256, simulate: { outcome: 'failure' } } });
      expect(failed.status, JSON.stringify(failed.body)).toBe(502);
      expect((await api('GET', '/v1/wallet', { key: 'mmk_live_not-a-key' })).status).toBe(401);
      for (const id of [chat.body.id, image.body.id]) expect((await waitTerminal(api, org.live, id)).status).toBe('succeeded');

      // The figures settle (settlements and request log rows are written a moment later); an export collected after a
      // scrape, with nothing in between, must then show exactly what the scrape did.
      let scraped: string[] = [];
      let exported: string[] = [];
      let batch: MetricsBatch | undefined;
      for (let i = 0; i < 40; i++) {
        const text = await (await fetch(`${s.url}/metrics`)).text();
        const after = Date.now();
        const seen = rx.metrics.length;
        for (let j = 0; j < 100 && !rx.metrics.slice(seen).some((b) => b.receivedAt > after); j++) await new Promise((r) => setTimeout(r, 20));
        batch = rx.metrics.slice(seen).find((b) => b.receivedAt > after);
        expect(batch, 'no export arrived within 2 s at a 250 ms interval').toBeDefined();
        scraped = ours(parsePrometheus(text));
        exported = ours(asSamples(batch!));
        const settled = scraped.some((x) => x.startsWith('mmgen_credits_charged_total[["modality","chat"]]')) && scraped.some((x) => x.startsWith('mmgen_generations_total[["modality","image"],["status","failed"]]'));
        if (settled && exported.join('\n') === scraped.join('\n')) break;
      }
      expect(exported).toEqual(scraped);

      // What the comparison covered: counters, gauges and the latency histogram of the calls above.
      const has = (prefix: string) => expect(scraped.filter((x) => x.startsWith(prefix)), prefix).not.toEqual([]);
      has('mmgen_generations_total[["modality","chat"],["status","succeeded"]] 1');
      has('mmgen_generations_total[["modality","image"],["status","succeeded"]] 1');
      has('mmgen_generations_accepted_total[["cache_hit","false"],["modality","image"]] 2');
      has('mmgen_credits_charged_total[["modality","image"]]');
      has('mmgen_queue_depth[] 0');
      has('mmgen_http_request_duration_seconds_count[["method","POST"],["route","/v1/images"],["status_code","200"]]');
      has('mmgen_http_request_duration_seconds_bucket[["le","+Inf"],["method","GET"],["route","/v1/wallet"],["status_code","401"]] 1');

      // The OTLP kinds: counters monotonic cumulative sums, gauges gauges, the histogram with Prometheus's bounds.
      const metric = (name: string) => batch!.metrics.find((m) => m.name === name)!;
      expect(metric('mmgen_generations_total')).toMatchObject({ type: 'sum', monotonic: true, temporality: TEMPORALITY.cumulative, description: expect.stringMatching(/^Generations this node moved/) });
      expect(metric('mmgen_queue_running')).toMatchObject({ type: 'gauge' });
      const http = metric('mmgen_http_request_duration_seconds');
      expect(http).toMatchObject({ type: 'histogram', temporality: TEMPORALITY.cumulative });
      expect(http.points[0]!.explicitBounds).toEqual([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]);
      for (const p of metric('mmgen_generations_total').points) {
        expect(p.startTimeUnixNano).toBeGreaterThan(0n);
        expect(p.startTimeUnixNano).toBeLessThanOrEqual(p.timeUnixNano);
      }
      // Process metrics go too (they move by themselves, so only their kind is compared).
      expect(metric('process_cpu_user_seconds_total')).toMatchObject({ type: 'sum', monotonic: true });
      expect(metric('nodejs_heap_size_used_bytes')).toMatchObject({ type: 'gauge' });

      // The resource, as the trace exporter names it, and this node's instance (cumulative series of two nodes stay two).
      expect(batch!.resource).toMatchObject({
        'service.name': 'mmgen-metrics-under-test',
        'service.version': '0.1.0',
        'deployment.environment.name': 'test',
        'service.instance.id': s.runtime.deps.nodeId,
      });
      expect(batch!.scope).toEqual({ name: 'mmgen', version: '0.1.0' });
      // Nothing else of the organization or its keys is a metric's attribute.
      expect(rx.raw.join('\n')).not.toContain(org.live);
    });

    it('an export the collector refuses is a warning in the log, and the next one carries the figures again', async () => {
      const warned = () => lines.filter((l) => String(l.msg).startsWith('opentelemetry:'));
      const before = warned().length;
      rx.refuse = true;
      try {
        // A flush may join the interval's export under way (started before the refusal): wait for one refused.
        for (let i = 0; i < 100 && warned().length === before; i++) {
          await s.runtime.metricsExport!.flush();
          await new Promise((r) => setTimeout(r, 20));
        }
        expect(warned().length).toBeGreaterThan(before);
        expect(warned().at(-1)).toMatchObject({ level: 40 });
      } finally {
        rx.refuse = false;
      }
      const seen = rx.metrics.length;
      for (let i = 0; i < 100 && rx.metrics.length === seen; i++) {
        await s.runtime.metricsExport!.flush();
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(rx.metrics.length).toBeGreaterThan(seen);
      const again = asSamples(rx.metrics.at(-1)!);
      expect(again.find((x) => x.name === 'mmgen_generations_total' && x.labels.modality === 'image' && x.labels.status === 'succeeded')?.value).toBe(1);
    });
  });

  describe('shutdown', () => {
    it('flushes: a node closed before its first interval still delivers its figures', async () => {
      const rx = await startReceiver();
      try {
        // The default interval (a minute): only the shutdown can send within this test.
        const s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1', OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${rx.url}/v1/metrics`, OTEL_SERVICE_NAME: 'mmgen-closing' });
        try {
          const org = await s.createOrg({ credits: 100_000 });
          const res = await client(s.url)('POST', '/v1/images', { key: org.live, body: { model: 'flux-schnell', prompt: 'a last fox', width: 256, height: 256 } });
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          expect(s.runtime.metricsExport).not.toBeNull();
          expect(rx.metrics).toEqual([]);
        } finally {
          await s.close();
        }
        // Traces are not configured (only the metrics endpoint is set): only metrics arrived.
        expect(rx.posts).toEqual({ '/v1/metrics': 1 });
        const [batch] = rx.metrics;
        expect(batch!.resource['service.name']).toBe('mmgen-closing');
        const samples = asSamples(batch!);
        expect(samples.find((x) => x.name === 'mmgen_generations_total' && x.labels.modality === 'image' && x.labels.status === 'succeeded')?.value).toBe(1);
        // Settled before the database closed: the charge is in the last export.
        expect(samples.find((x) => x.name === 'mmgen_credits_charged_total' && x.labels.modality === 'image')?.value).toBeGreaterThan(0);
      } finally {
        await rx.close();
      }
    });
  });
});
