import type { Logger } from 'pino';
import type { Catalog } from './catalog/index.js';
import type { Config } from './config.js';
import type { BlobStore, UrlSigner } from './files/types.js';
import type { InflightWork } from './jobs/inflight.js';
import type { ProviderRegistry } from './providers/registry.js';
import type { Db } from './store/db.js';

/** Everything a use case or route may need, built once from config (composition root: main.ts). */
export interface AppDeps {
  config: Config;
  db: Db;
  catalog: Catalog;
  log: Logger;
  blobs: BlobStore;
  signer: UrlSigner;
  providers: ProviderRegistry;
  /** Identifies this process in job leases. */
  nodeId: string;
  /** Synchronous runs in flight in this process, awaited on shutdown. */
  inflight: InflightWork;
  /** Tells this process's worker, if it runs one, that a job was enqueued. */
  jobsAvailable?: () => void;
}
