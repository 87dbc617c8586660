import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { DestinationStream, Logger } from 'pino';
import { startAdminSocket } from './admin/socket.js';
import { Catalog } from './catalog/index.js';
import { CATALOG } from './catalog/models.js';
import { CatalogFollower } from './catalog-follower.js';
import { PROVIDER_DECLARATIONS } from './providers/index.js';
import { recordedLifecycle } from './providers/lifecycle.js';
import { RecordsOverlay } from './providers/upstream-record.js';
import { classifiersFor } from './moderation/classifiers.js';
import { Moderator } from './moderation/moderator.js';
import { PolicyCache } from './moderation/policy.js';
import type { Config } from './config.js';
import type { AppDeps } from './deps.js';
import { countOrganizations, insertOrganization, type CreatedOrganization } from './domain/organizations.js';
import { createOwnerLink } from './domain/people/invitations.js';
import { createMailer } from './mail.js';
import { DiskBlobStore } from './files/disk-store.js';
import { createFileLinks } from './files/links.js';
import { S3BlobStore } from './files/s3-store.js';
import { HmacUrlSigner, loadSigningSecret } from './files/signing.js';
import type { BlobStore } from './files/types.js';
import { buildApp } from './http/app.js';
import { createKeyRateLimiter } from './rate-limit.js';
import { randomBase62 } from './ids.js';
import { InflightWork } from './jobs/inflight.js';
import { Batcher } from './jobs/batcher.js';
import { chargeAndFinish, MAX_FINISH_BATCH } from './billing/statements.js';
import { releaseNodeLeases } from './store/jobs.js';
import { Settler } from './billing/settler.js';
import { createStripeClient } from './billing/stripe.js';
import { Headroom } from './generations/headroom.js';
import { NodeLiveness } from './node-liveness.js';
import { Lifecycle } from './lifecycle.js';
import { createLogger as createPinoLogger } from './log.js';
import { Metrics, type MetricsExport } from './metrics.js';
import { WebhookDispatcher } from './jobs/webhooks.js';
import { simulatorJobsIn } from './store/simulator-jobs.js';
import { batchedSimulatorJobs } from './providers/simulator/jobs.js';
import { Worker } from './jobs/worker.js';
import { Wakeup } from './wakeup.js';
import { ProviderRegistry } from './providers/registry.js';
import { advisoryXactLock, openDb, type Db } from './store/db.js';
import { acquireDataDirLock } from './store/lock.js';
import { migrate } from './store/migrate.js';
import { systemOrigin } from './domain/audit.js';
import { systemClock, type Clock } from './clock.js';
import { DataPolicyCache } from './request-log/policies.js';
import { RequestLogRecorder } from './request-log/recorder.js';
import { RetentionLoop } from './request-log/retention.js';
import { logTraceIds, NO_TRACING, type Tracing } from './tracing.js';

/** Composition root: config → dependencies → HTTP server (and, later, workers). */
export interface Runtime {
  deps: AppDeps;
  /** This process's webhook dispatcher, started with the worker (startWorker); idle until then. */
  webhooks: WebhookDispatcher;
  /**
   * The OTLP metrics export, started by the processes that serve or work (startServer, `mmgen worker`), not by a
   * one-off command; null until then, and always when not configured.
   */
  readonly metricsExport: MetricsExport | null;
  exportMetrics(): Promise<void>;
  /** The retention loop this process runs (started here; a test that moves the clock stops it and runs retention itself). */
  readonly retention: RetentionLoop;
  close(): Promise<void>;
}

/** The process logger; `destination` (default stdout) lets tests read what an operator would. */
export function createLogger(config: Config, destination?: DestinationStream): Logger {
  // With tracing on, every line logged inside a span carries its trace_id and span_id.
  return createPinoLogger({ level: config.logLevel, ...(config.tracing ? { mixin: logTraceIds } : {}) }, destination);
}

/**
 * The OpenTelemetry SDK is imported only when tracing is configured: off, no module of it is loaded, no exporter
 * made, nothing sent.
 */
async function tracingFor(config: Config, log: Logger): Promise<Tracing> {
  if (!config.tracing) return NO_TRACING;
  const { createOtelTracing } = await import('./tracing-otel.js');
  return createOtelTracing(config.tracing, MMGEN_VERSION, log);
}

const MMGEN_VERSION = '0.1.0';

/** Opens the database (locking an embedded data directory to this process), migrates it, and builds the dependencies. */
export async function openRuntime(config: Config, log: Logger = createLogger(config)): Promise<Runtime> {
  if (!config.databaseUrl) mkdirSync(config.dataDir, { recursive: true });
  const releaseLock = config.databaseUrl ? () => {} : acquireDataDirLock(config.dataDir);
  try {
    const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: join(config.dataDir, 'pgdata'), poolSize: config.dbPoolSize });
    return await runtimeOn(config, db, log, releaseLock);
  } catch (err) {
    releaseLock();
    throw err;
  }
}

function moderatorFor(config: Config): Moderator {
  const c = classifiersFor(config);
  return new Moderator(c.image, { text: c.text, close: c.close, saturated: c.saturated });
}

/** Files on S3 when MMGEN_S3_BUCKET is set (required with several nodes unless they share a disk), else under the data directory. */
export function openBlobStore(config: Config): BlobStore {
  return config.s3 ? new S3BlobStore(config.s3) : new DiskBlobStore(join(config.dataDir, 'files'));
}

/** Builds the runtime on an open database (tests bring their own); migrates it first. */
export async function runtimeOn(config: Config, db: Db, log: Logger, onClose: () => void = () => {}, clock: Clock = systemClock): Promise<Runtime> {
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  const signer = new HmacUrlSigner(await loadSigningSecret(db, config.signingSecret), config.publicUrl);
  const blobs = openBlobStore(config);
  const tracing = await tracingFor(config, log);
  // The operator's records, this runtime's own (another in the process has its own): its catalog follower replaces
  // them, its providers' adapters, routing, parameters and prices read them.
  const records = new RecordsOverlay();
  // Each provider call carries the trace context of the attempt that makes it (W3C traceparent).
  const providers = new ProviderRegistry(config, batchedSimulatorJobs(simulatorJobsIn(db)), PROVIDER_DECLARATIONS, {
    records,
    ...(tracing.on ? { propagate: (headers: Record<string, string>) => tracing.inject(headers) } : {}),
  });
  const nodeId = `${hostname()}:${process.pid}:${randomBase62(6)}`;
  const rateLimiter = createKeyRateLimiter(config, log);
  const links = createFileLinks(config, signer, blobs);
  const catalog = new Catalog(CATALOG, recordedLifecycle(config.catalogDate, providers.records));
  // The operator's catalog changes, followed from the database before the first request.
  const catalogFollower = new CatalogFollower({ db, catalog, records, log }, PROVIDER_DECLARATIONS.map((p) => p.name));
  await catalogFollower.start();
  const metrics = new Metrics(db);
  const dataPolicies = new DataPolicyCache(db);
  const requestLog = new RequestLogRecorder(
    { db, log, clock, dataPolicies, rows: metrics.requestLogRows },
    { enabled: config.requestLog.enabled, delayMs: config.requestLog.batchMs, maxItems: config.requestLog.maxBatch },
  );
  const deps: AppDeps = {
    config, db, catalog, catalogFollower, log, blobs, signer, links, providers, nodeId, inflight: new InflightWork(), rateLimiter,
    metrics, lifecycle: new Lifecycle(), settler: new Settler(db, log, { delayMs: config.settleDelayMs, sweepMs: config.settleSweepMs }),
    headroom: new Headroom(), jobsAvailable: new Wakeup(), webhooksDue: new Wakeup(),
    policies: new PolicyCache(), moderator: moderatorFor(config), stripe: config.stripe ? createStripeClient(config.stripe) : undefined, mailer: createMailer(config.smtp),
    finishes: new Batcher((items) => chargeAndFinish(db, items), { delayMs: config.finishBatchMs, maxItems: MAX_FINISH_BATCH }),
    clock, dataPolicies, requestLog, tracing,
  };
  const retention = new RetentionLoop(deps, config.retentionIntervalMs);
  retention.start();
  // Beats before the first request: the Idempotency-Key claims this node makes are held by a live node.
  const liveness = new NodeLiveness(db, nodeId, log);
  await liveness.start();
  let metricsExport: MetricsExport | null = null;
  return {
    deps,
    webhooks: new WebhookDispatcher(deps),
    retention,
    get metricsExport() {
      return metricsExport;
    },
    async exportMetrics() {
      if (!config.metricsExport || metricsExport) return;
      // As for tracing: off, no module of the SDK is loaded.
      const { startOtlpMetrics } = await import('./metrics-otel.js');
      metricsExport ??= startOtlpMetrics(config.metricsExport, MMGEN_VERSION, nodeId, log, () => metrics.read());
    },
    close: async () => {
      catalogFollower.stop();
      await retention.stop();
      await deps.finishes.flush();
      await requestLog.flush();
      await liveness.stop();
      await deps.settler.stop();
      await rateLimiter.close();
      deps.mailer?.close();
      await providers.close();
      await deps.moderator.close();
      if (blobs instanceof S3BlobStore) blobs.close();
      // The last export, of the figures the drain above settled, while the queue gauges can still read the database.
      await metricsExport?.close();
      await db.close();
      // Last: the spans of the work drained above are sent before the process goes.
      await tracing.close();
      onClose();
    },
  };
}

/**
 * On an empty database, the `default` organization with one live and one test owner key, and the one-time link
 * that gives its owner membership a person (an account that signs in to the dashboard).
 */
export async function bootstrapDefaultOrganization(deps: AppDeps): Promise<(CreatedOrganization & { ownerLink: string }) | null> {
  if ((await countOrganizations(deps.db)) > 0) return null;
  // Several nodes starting at once on an empty PostgreSQL: one of them creates it.
  return deps.db.tx(async (q) => {
    await advisoryXactLock(q, BOOTSTRAP_LOCK);
    if ((await countOrganizations(q)) > 0) return null;
    const created = await insertOrganization(q, { name: 'default', plan: 'team', enterprise: true, credits: 0 }, systemOrigin('first-start'));
    const ownerLink = await createOwnerLink(q, deps.config.publicUrl, created.organization.id, created.user.id, deps.config.accounts.invitationTtlS);
    // audit: invitation.created (the owner link; actor: system); organization.created is recorded by insertOrganization
    return { ...created, ownerLink };
  });
}

// Any constant works; it only has to be the same in every mmgen process.
const BOOTSTRAP_LOCK = 7_262_002;

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

/**
 * Hands this process's unfinished jobs back at once (instead of when their
 * leases run out), so another worker, or this one restarted, resumes them.
 */
export async function releaseLeases(deps: AppDeps): Promise<void> {
  await releaseNodeLeases(deps.db, deps.nodeId).catch((err: unknown) => deps.log.warn({ err }, 'could not release job leases'));
}

/** Starts a generation worker in this process; `deps.jobsAvailable` then wakes it when a job is enqueued here. */
export function startWorker(runtime: Runtime): Worker {
  const worker = new Worker(runtime.deps);
  worker.start();
  runtime.deps.settler.startSweeping();
  // Webhook deliveries run wherever generations do (serve, and `mmgen worker`).
  runtime.webhooks.start();
  return worker;
}

/**
 * Graceful stop of a worker process: stop claiming, let the generations and
 * webhook attempts in flight finish within the grace period, then hand back
 * whatever is still held so another worker resumes it at once.
 */
export async function stopWorker(runtime: Runtime, worker: Worker | null): Promise<void> {
  const { deps } = runtime;
  const grace = deps.config.shutdownGraceMs;
  await Promise.all([worker?.stop(grace), runtime.webhooks.stop(grace)]);
}

export async function startServer(runtime: Runtime, opts: { port?: number; host?: string; worker?: boolean } = {}): Promise<RunningServer> {
  const { deps } = runtime;
  const worker = opts.worker === false ? null : startWorker(runtime);
  // API nodes settle what they finish, and sweep up what a node lost before settling.
  deps.settler.startSweeping();
  const app = await buildApp(deps);
  await runtime.exportMetrics();
  // A node that works the queue says so (readiness, metrics) from its first request on.
  await worker?.firstBeat;
  await app.listen({ port: opts.port ?? deps.config.port, host: opts.host ?? deps.config.host });
  let admin: Server | undefined;
  if (!deps.config.databaseUrl) admin = await startAdminSocket(deps.config.dataDir, deps);
  const port = (app.server.address() as { port: number }).port;
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      // Drain: /readyz turns 503, new requests get 503 + Connection: close, event streams end.
      deps.lifecycle.beginDrain();
      const grace = deps.config.shutdownGraceMs;
      const workerStopped = stopWorker(runtime, worker);
      await new Promise<void>((resolve) => (admin ? admin.close(() => resolve()) : resolve()));
      // Stops accepting connections and waits for the requests in flight (sync generations answer);
      // past the grace period the connections still open are cut.
      const closed = app.close();
      let timer: NodeJS.Timeout | undefined;
      const inTime = await Promise.race([
        closed.then(() => true),
        new Promise<false>((resolve) => {
          timer = setTimeout(() => resolve(false), grace);
        }),
      ]);
      clearTimeout(timer);
      if (!inTime) {
        deps.log.warn({ graceMs: grace }, 'requests still open after the grace period are cut');
        app.server.closeAllConnections();
        await closed;
      }
      // Work started by requests whose clients are gone still finishes, within the grace period.
      // Replies already sent are finished now, and those still to come without the batching delay.
      void deps.finishes.hurry();
      await Promise.all([workerStopped, deps.inflight.drain(grace)]);
      await deps.finishes.flush();
      await deps.settler.flush();
      await deps.requestLog.flush();
      deps.lifecycle.halt();
      await releaseLeases(deps);
    },
  };
}
