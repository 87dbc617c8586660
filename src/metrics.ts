import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type MetricObjectWithValues, type MetricValueWithName } from 'prom-client';
import { queueStats, type QueueStats } from './store/queue-stats.js';
import type { Queryable } from './store/db.js';

let processMetricsRegistry: Registry | null = null;
/** When the process metrics began counting: the process's start (CPU seconds and GC counts run from there). */
const processStartMs = Math.round(performance.timeOrigin);

/** Process metrics are collected once per process, however many runtimes it holds (tests hold many). */
function processRegistry(): Registry {
  if (!processMetricsRegistry) {
    processMetricsRegistry = new Registry();
    collectDefaultMetrics({ register: processMetricsRegistry });
  }
  return processMetricsRegistry;
}

/** The metrics of one registry as prom-client reads them, and since when its counters have counted (epoch ms). */
export interface MetricsReading {
  sinceMs: number;
  metrics: Array<MetricObjectWithValues<MetricValueWithName<string>>>;
}

/** The same figures pushed over OTLP (metrics-otel.ts), when the operator configured it. */
export interface MetricsExport {
  /** Collects and sends now; a refused export is logged, never thrown. */
  flush(): Promise<void>;
  /** Stops the timer after one last export. */
  close(): Promise<void>;
}

/**
 * Prometheus metrics of one mmgen process (prom-client), served at /metrics,
 * and read by the OTLP export (metrics-otel.ts) from the same registries.
 *
 * Counters and the latency histogram are this process's own: sum them over
 * nodes. The queue gauges are read from the shared database at each scrape,
 * so every node reports the same installation-wide value: take max(), not sum().
 */
export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  readonly generationsAccepted: Counter<'modality' | 'cache_hit'>;
  readonly generationsFinished: Counter<'modality' | 'status'>;
  readonly webhookAttempts: Counter<'outcome'>;
  readonly creditsCharged: Counter<'modality'>;
  readonly creditsRefunded: Counter<'modality'>;
  readonly requestLogRows: Counter<'outcome'>;

  /** When this runtime's counters started from zero. */
  private readonly sinceMs = Date.now();

  constructor(db: Queryable, opts: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.httpDuration = new Histogram({
      name: 'mmgen_http_request_duration_seconds',
      help: 'HTTP request latency by route template and status (streamed responses excluded).',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.generationsAccepted = new Counter({
      name: 'mmgen_generations_accepted_total',
      help: 'Generations accepted by this node (cache_hit="true": answered from the cache, nothing run).',
      labelNames: ['modality', 'cache_hit'],
      registers,
    });
    this.generationsFinished = new Counter({
      name: 'mmgen_generations_total',
      help: 'Generations this node moved to a terminal status (succeeded, failed, canceled), by modality.',
      labelNames: ['modality', 'status'],
      registers,
    });
    this.webhookAttempts = new Counter({
      name: 'mmgen_webhook_attempts_total',
      help: 'Webhook delivery attempts made by this node, by outcome (success, http_error, timeout, network_error, refused).',
      labelNames: ['outcome'],
      registers,
    });
    this.creditsCharged = new Counter({
      name: 'mmgen_credits_charged_total',
      help: 'Credits charged (live mode) by generations this node settled (1 credit = US$0.001).',
      labelNames: ['modality'],
      registers,
    });
    this.creditsRefunded = new Counter({
      name: 'mmgen_credits_refunded_total',
      help: 'Credits reserved and given back (failures, cancels, actual cost below the reservation) by generations this node settled.',
      labelNames: ['modality'],
      registers,
    });

    this.requestLogRows = new Counter({
      name: 'mmgen_request_log_rows_total',
      help: 'Request log rows this node wrote (outcome="written") or lost (outcome="dropped": the database could not take them, or too many waited).',
      labelNames: ['outcome'],
      registers,
    });

    // One read of the database per scrape serves every queue gauge.
    let pending: Promise<QueueStats | null> | null = null;
    const stats = (): Promise<QueueStats | null> => {
      pending ??= queueStats(db)
        .catch(() => null)
        .finally(() => setTimeout(() => (pending = null), 0));
      return pending;
    };
    const gauge = (name: string, help: string, pick: (s: QueueStats) => number) =>
      new Gauge({
        name,
        help,
        registers,
        async collect() {
          const s = await stats();
          if (s) this.set(pick(s));
        },
      });
    gauge('mmgen_queue_depth', 'Generation jobs due and waiting for a worker (installation-wide).', (s) => s.waiting);
    gauge('mmgen_queue_running', 'Generation jobs held by a worker or a synchronous request (installation-wide).', (s) => s.running);
    gauge('mmgen_queue_oldest_age_seconds', 'How long the longest-waiting due job has waited (installation-wide).', (s) => s.oldestWaitingS);
    gauge('mmgen_workers_live', 'Worker processes that beat within the last 30 seconds (installation-wide).', (s) => s.liveWorkers);
    gauge('mmgen_webhook_deliveries_due', 'Webhook deliveries due and waiting for a dispatcher (installation-wide).', (s) => s.webhooksDue);
    gauge('mmgen_webhook_oldest_due_age_seconds', 'How long the longest-waiting due webhook delivery has waited (installation-wide).', (s) => s.oldestWebhookDueS);

    this.processMetrics = opts.processMetrics !== false;
  }

  private readonly processMetrics: boolean;

  readonly contentType = Registry.PROMETHEUS_CONTENT_TYPE;

  /** The exposition text: this runtime's metrics and the process's own (CPU, memory, event loop, GC). */
  async text(): Promise<string> {
    if (!this.processMetrics) return this.registry.metrics();
    return Registry.merge([processRegistry(), this.registry]).metrics();
  }

  /**
   * What text() shows, as data: the same registries, each collected anew (the queue gauges read the database, as for
   * a scrape). The OTLP export reads this; nothing is recorded twice.
   */
  async read(): Promise<MetricsReading[]> {
    const own = { sinceMs: this.sinceMs, metrics: await this.registry.getMetricsAsJSON() };
    if (!this.processMetrics) return [own];
    return [{ sinceMs: processStartMs, metrics: await processRegistry().getMetricsAsJSON() }, own];
  }

  /** A generation this node settled: by status, and the credits the settlement moved. */
  settled(g: { modality: string; status: string; price_credits: number }, charged: number): void {
    this.generationsFinished.inc({ modality: g.modality, status: g.status });
    if (g.price_credits > 0) {
      if (charged > 0) this.creditsCharged.inc({ modality: g.modality }, charged);
      if (g.price_credits - charged > 0) this.creditsRefunded.inc({ modality: g.modality }, g.price_credits - charged);
    }
  }
}
