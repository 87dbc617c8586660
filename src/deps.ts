import type { Logger } from 'pino';
import type { Lifecycle } from './lifecycle.js';
import type { Metrics } from './metrics.js';
import type { Catalog } from './catalog/index.js';
import type { CatalogFollower } from './catalog-follower.js';
import type { Config } from './config.js';
import type { FileLinks } from './files/links.js';
import type { BlobStore, UrlSigner } from './files/types.js';
import type { KeyRateLimiter } from './rate-limit.js';
import type { InflightWork } from './jobs/inflight.js';
import type { Batcher } from './jobs/batcher.js';
import type { Settler } from './billing/settler.js';
import type { ProviderRegistry } from './providers/registry.js';
import type { Db } from './store/db.js';
import type { Headroom } from './generations/headroom.js';
import type { Finishing, GenerationRow } from './generations/views.js';
import type { Wakeup } from './wakeup.js';
import type { Moderator } from './moderation/moderator.js';
import type { PolicyCache } from './moderation/policy.js';
import type Stripe from 'stripe';
import type { Clock } from './clock.js';
import type { DataPolicyCache } from './request-log/policies.js';
import type { RequestLogRecorder } from './request-log/recorder.js';
import type { Mailer } from './mail.js';
import type { Tracing } from './tracing.js';

/**
 * Everything the composition root (main.ts) builds once from config. The http layer (routes, auth,
 * idempotency) gets it whole and hands it on; a use case never imports this type: it declares the
 * part it reaches as an interface beside its code naming exactly what it uses (AcceptRequestPorts,
 * RunPorts, …), which this one satisfies structurally, so what it can touch is in its signature.
 */
export interface AppDeps {
  config: Config;
  db: Db;
  catalog: Catalog;
  /** Keeps `catalog` equal to the shipped catalog under the operator's changes in the database (every node). */
  catalogFollower: CatalogFollower;
  log: Logger;
  blobs: BlobStore;
  signer: UrlSigner;
  /** The URLs handed out for files: mmgen-signed, or presigned straight to S3. */
  links: FileLinks;
  providers: ProviderRegistry;
  /** Identifies this process in job leases. */
  nodeId: string;
  /** Synchronous runs in flight in this process, awaited on shutdown. */
  inflight: InflightWork;
  /** Per-key request budgets (contract §8), shared across nodes through Redis when configured. */
  rateLimiter: KeyRateLimiter;
  /** Prometheus metrics of this process. */
  metrics: Metrics;
  /** Whether this process is shutting down (readiness, new requests, open event streams). */
  lifecycle: Lifecycle;
  /** Applies finished generations' pending settlements to wallets and usage rollups, in batches. */
  settler: Settler;
  /** Finishes chat completions already answered, a few at a time in one statement (runner.ts, `finish`). */
  finishes: Batcher<Finishing, GenerationRow | null>;
  /** Each organization's free credits as this node last saw them, for early dispatch. */
  headroom: Headroom;
  /** A job was enqueued here: wakes this process's worker, if it runs one, instead of its next poll. */
  jobsAvailable: Wakeup;
  /** An event or delivery was made here: wakes this process's webhook dispatcher, if it runs one, instead of its next poll. */
  webhooksDue: Wakeup;
  /** Organizations' moderation policies, read through a short cache (contract §11). */
  policies: PolicyCache;
  /** The verdict stage of every output: the classifiers (moderation/moderator.ts). */
  moderator: Moderator;
  /** The Stripe client when the operator configured Stripe (config.stripe); undefined: credits come from the CLI only. */
  stripe: Stripe | undefined;
  /** The time retention acts on (tests move it forward). */
  clock: Clock;
  /** Organizations' data policies (capture, redaction, retention), read through a short cache. */
  dataPolicies: DataPolicyCache;
  /** Queues a row of the request log per /v1 call; written in batches, off the request's path. */
  requestLog: RequestLogRecorder;
  /** Outgoing mail over SMTP (invitations); null when none is configured. */
  mailer: Mailer | null;
  /** Spans of requests and their stages (OpenTelemetry when configured; NO_TRACING otherwise: src/tracing.ts). */
  tracing: Tracing;
}
