import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { startAdminSocket } from './admin/socket.js';
import { Catalog } from './catalog/index.js';
import type { Config } from './config.js';
import type { AppDeps } from './deps.js';
import { countOrganizations, createOrganization, type CreatedOrganization } from './domain/organizations.js';
import { DiskBlobStore } from './files/disk-store.js';
import { HmacUrlSigner, loadSigningSecret } from './files/signing.js';
import { buildApp } from './http/app.js';
import { randomBase62 } from './ids.js';
import { InflightWork } from './jobs/inflight.js';
import { Worker } from './jobs/worker.js';
import { ProviderRegistry } from './providers/registry.js';
import { openDb, type Db } from './store/db.js';
import { acquireDataDirLock } from './store/lock.js';
import { migrate } from './store/migrate.js';

/** Composition root: config → dependencies → HTTP server (and, later, workers). */
export interface Runtime {
  deps: AppDeps;
  close(): Promise<void>;
}

export function createLogger(config: Config): Logger {
  return pino({
    level: config.logLevel,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.secret', '*.key', 'key', 'secret'],
      censor: '[redacted]',
    },
  });
}

/** Opens the database (locking an embedded data directory to this process), migrates it, and builds the dependencies. */
export async function openRuntime(config: Config, log: Logger = createLogger(config)): Promise<Runtime> {
  if (!config.databaseUrl) mkdirSync(config.dataDir, { recursive: true });
  const releaseLock = config.databaseUrl ? () => {} : acquireDataDirLock(config.dataDir);
  try {
    const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: join(config.dataDir, 'pgdata') });
    return await runtimeOn(config, db, log, releaseLock);
  } catch (err) {
    releaseLock();
    throw err;
  }
}

/** Builds the runtime on an open database (tests bring their own); migrates it first. */
export async function runtimeOn(config: Config, db: Db, log: Logger, onClose: () => void = () => {}): Promise<Runtime> {
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  const signer = new HmacUrlSigner(await loadSigningSecret(db, config.signingSecret), config.publicUrl);
  const blobs = new DiskBlobStore(join(config.dataDir, 'files'));
  const providers = new ProviderRegistry(config, db);
  const nodeId = `${hostname()}:${process.pid}:${randomBase62(6)}`;
  const deps: AppDeps = { config, db, catalog: new Catalog(), log, blobs, signer, providers, nodeId, inflight: new InflightWork() };
  return {
    deps,
    close: async () => {
      await db.close();
      onClose();
    },
  };
}

/** On an empty database, the `default` organization with one live and one test owner key. */
export async function bootstrapDefaultOrganization(deps: AppDeps): Promise<CreatedOrganization | null> {
  if ((await countOrganizations(deps.db)) > 0) return null;
  return createOrganization(deps.db, { name: 'default', plan: 'team', enterprise: true, credits: 0 });
}

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

/** How long shutdown waits for generations in flight before handing their jobs back. */
const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Hands this process's unfinished jobs back at once (instead of when their
 * leases run out), so another worker, or this one restarted, resumes them.
 */
export async function releaseLeases(deps: AppDeps): Promise<void> {
  await deps.db
    .query('UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = $1', [deps.nodeId])
    .catch((err: unknown) => deps.log.warn({ err }, 'could not release job leases'));
}

/** Starts a generation worker in this process; `deps.jobsAvailable` then wakes it when a job is enqueued here. */
export function startWorker(runtime: Runtime): Worker {
  const worker = new Worker(runtime.deps);
  runtime.deps.jobsAvailable = () => worker.notify();
  worker.start();
  return worker;
}

export async function startServer(runtime: Runtime, opts: { port?: number; host?: string; worker?: boolean } = {}): Promise<RunningServer> {
  const { deps } = runtime;
  const worker = opts.worker === false ? null : startWorker(runtime);
  const app = await buildApp(deps);
  await app.listen({ port: opts.port ?? deps.config.port, host: opts.host ?? deps.config.host });
  let admin: Server | undefined;
  if (!deps.config.databaseUrl) admin = await startAdminSocket(deps.config.dataDir, deps.db, deps.catalog);
  const port = (app.server.address() as { port: number }).port;
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await new Promise<void>((resolve) => (admin ? admin.close(() => resolve()) : resolve()));
      await app.close();
      await Promise.all([worker?.stop(SHUTDOWN_GRACE_MS), deps.inflight.drain(SHUTDOWN_GRACE_MS)]);
      await releaseLeases(deps);
    },
  };
}
