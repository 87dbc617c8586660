import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataPointType, type HistogramMetricData, type MetricData, type SumMetricData } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { PrometheusProducer } from '../../src/metrics-otel.js';
import { Metrics } from '../../src/metrics.js';
import type { Queryable } from '../../src/store/db.js';

/**
 * The OTLP export reads the Prometheus registries; the exposition must not change for it. The fixture is the text
 * that metrics.ts printed for this state before the export existed (generated from main's metrics.ts, byte for byte).
 */
const FIXTURE = readFileSync(join(process.cwd(), 'test/fixtures/metrics-exposition.prom'), 'utf8');

const db: Queryable = {
  query: async <T>() => ({ rows: [{ waiting: 2, running: 1, oldest: 3.5, workers: 1, hooks: 0, hook_oldest: null }] as T[] }) as never,
};

function sampleState(): Metrics {
  const m = new Metrics(db, { processMetrics: false });
  m.httpDuration.observe({ method: 'POST', route: '/v1/images', status_code: '200' }, 0.3);
  m.httpDuration.observe({ method: 'POST', route: '/v1/images', status_code: '200' }, 0.004);
  m.httpDuration.observe({ method: 'GET', route: '/v1/generations/:id', status_code: '404' }, 70);
  m.generationsAccepted.inc({ modality: 'image', cache_hit: 'false' });
  m.generationsAccepted.inc({ modality: 'chat', cache_hit: 'true' }, 2);
  m.settled({ modality: 'image', status: 'succeeded', price_credits: 40 }, 30);
  m.settled({ modality: 'chat', status: 'failed', price_credits: 5 }, 0);
  m.webhookAttempts.inc({ outcome: 'success' });
  m.requestLogRows.inc({ outcome: 'written' }, 7);
  return m;
}

describe('the Prometheus exposition with an OTLP export reading it', () => {
  it('is byte for byte what it was, before and after the export reads the same registries', async () => {
    const m = sampleState();
    expect(await m.text()).toBe(FIXTURE);
    await new PrometheusProducer(() => m.read(), '0.1.0').collect();
    await new PrometheusProducer(() => m.read(), '0.1.0').collect();
    expect(await m.text()).toBe(FIXTURE);
  });
});

describe('the bridge from prom-client to the SDK (PrometheusProducer)', () => {
  it('counters become monotonic cumulative sums, gauges gauges, histograms per-bucket counts with the same bounds', async () => {
    const m = sampleState();
    const before = Date.now();
    const { resourceMetrics, errors } = await new PrometheusProducer(() => m.read(), '0.1.0').collect();
    expect(errors).toEqual([]);
    expect(resourceMetrics.scopeMetrics).toHaveLength(1);
    expect(resourceMetrics.scopeMetrics[0]!.scope).toEqual({ name: 'mmgen', version: '0.1.0' });
    const byName = new Map<string, MetricData>(resourceMetrics.scopeMetrics[0]!.metrics.map((x) => [x.descriptor.name, x]));
    // A labelled metric never observed has no series in the text, and no metric here.
    expect([...byName.keys()].sort()).toEqual([
      'mmgen_credits_charged_total', 'mmgen_credits_refunded_total', 'mmgen_generations_accepted_total', 'mmgen_generations_total',
      'mmgen_http_request_duration_seconds', 'mmgen_queue_depth', 'mmgen_queue_oldest_age_seconds', 'mmgen_queue_running',
      'mmgen_request_log_rows_total', 'mmgen_webhook_attempts_total', 'mmgen_webhook_deliveries_due', 'mmgen_webhook_oldest_due_age_seconds',
      'mmgen_workers_live',
    ]);

    const refunded = byName.get('mmgen_credits_refunded_total') as SumMetricData;
    expect(refunded).toMatchObject({ dataPointType: DataPointType.SUM, isMonotonic: true, aggregationTemporality: 1 /* CUMULATIVE */ });
    expect(refunded.descriptor.description).toMatch(/^Credits reserved and given back/);
    expect(refunded.dataPoints.map((p) => [p.attributes, p.value])).toEqual([[{ modality: 'image' }, 10], [{ modality: 'chat' }, 5]]);
    const [p] = refunded.dataPoints;
    // Cumulative since the runtime's metrics were made, up to the collection.
    expect(p!.startTime[0] * 1000 + p!.startTime[1] / 1e6).toBeLessThanOrEqual(before);
    expect(p!.endTime[0] * 1000 + p!.endTime[1] / 1e6).toBeGreaterThanOrEqual(before);

    expect(byName.get('mmgen_queue_oldest_age_seconds')).toMatchObject({ dataPointType: DataPointType.GAUGE, dataPoints: [{ attributes: {}, value: 3.5 }] });

    const http = byName.get('mmgen_http_request_duration_seconds') as HistogramMetricData;
    expect(http.dataPointType).toBe(DataPointType.HISTOGRAM);
    const bounds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
    expect(http.dataPoints.map((d) => [d.attributes, d.value])).toEqual([
      [{ method: 'POST', route: '/v1/images', status_code: '200' }, { buckets: { boundaries: bounds, counts: [1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0] }, sum: 0.304, count: 2 }],
      [{ method: 'GET', route: '/v1/generations/:id', status_code: '404' }, { buckets: { boundaries: bounds, counts: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1] }, sum: 70, count: 1 }],
    ]);
  });

  it('labels given as numbers are attributes with the text the exposition prints', async () => {
    const m = new Metrics(db, { processMetrics: false });
    m.httpDuration.observe({ method: 'GET', route: '/x', status_code: 503 as unknown as string }, 1);
    expect(await m.text()).toContain('status_code="503"');
    const { resourceMetrics } = await new PrometheusProducer(() => m.read(), '0.1.0').collect();
    const http = resourceMetrics.scopeMetrics[0]!.metrics.find((x) => x.descriptor.name === 'mmgen_http_request_duration_seconds') as HistogramMetricData;
    expect(http.dataPoints[0]!.attributes).toEqual({ method: 'GET', route: '/x', status_code: '503' });
  });
});
