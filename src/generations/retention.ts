import type { Logger } from 'pino';
import { DAY_MS, type Clock } from '../clock.js';
import { MAX_DELETE_BATCH, type BlobStore } from '../files/types.js';
import { selectRetainingPolicies, type DataPolicyRow } from '../store/data-policies.js';
import type { Db } from '../store/db.js';
import {
  blobsStillHeld,
  lockGenerationsWithFiles,
  lockUploadsWithFiles,
  markGenerationFilesExpired,
  markUploadsExpired,
  reduceComparisonRecords,
  reduceGenerationRecords,
} from '../store/retention.js';
import { incomingUploadKey } from '../files/links.js';

/**
 * The request fields a generation keeps in its params that carry what the caller wrote (or where their input was),
 * removed when its record expires. Every free-text field of a modality's request must be here: the unit test
 * test/unit/retention-fields.test.ts walks the request schemas and fails on one that is not.
 */
export const REQUEST_TEXT_FIELDS = ['prompt', 'negative_prompt', 'messages', 'text', 'lyrics', 'instructions', 'image_url', 'audio_url'] as const;

/** Rows a batch takes: one statement (records) or one transaction and at most a few DeleteObjects requests (files). */
export const RETENTION_BATCH = 500;

export interface GenerationRetentionPorts {
  db: Db;
  log: Logger;
  clock: Clock;
  blobs: BlobStore;
}

export interface GenerationRetentionResult {
  /** Generations and comparisons whose prompts were removed. */
  recordsReduced: number;
  /** Generations whose files were deleted (or, shared with a copy still kept, let go). */
  generationFilesExpired: number;
  uploadsExpired: number;
  blobsDeleted: number;
}

/**
 * Applies every organization's `generation_days` and `file_days`: batch after batch until nothing is left past them.
 * Safe on every node at once: records are taken with SKIP LOCKED, and an organization's file batches take turns, so
 * each blob is deleted by one node and a second run finds nothing to do.
 */
export async function runGenerationRetention(deps: GenerationRetentionPorts, batch = RETENTION_BATCH): Promise<GenerationRetentionResult> {
  const total: GenerationRetentionResult = { recordsReduced: 0, generationFilesExpired: 0, uploadsExpired: 0, blobsDeleted: 0 };
  for (const policy of await selectRetainingPolicies(deps.db)) {
    try {
      await applyPolicy(deps, policy, batch, total);
    } catch (err) {
      // One organization's failure (the blob store refusing, say) leaves the others' retention running; it is retried next run.
      deps.log.warn({ err, organizationId: policy.organization_id }, 'generation retention failed for an organization');
    }
  }
  return total;
}

async function applyPolicy(deps: GenerationRetentionPorts, p: DataPolicyRow, batch: number, total: GenerationRetentionResult): Promise<void> {
  const org = p.organization_id;
  if (p.generation_days !== null) {
    const before = new Date(deps.clock.now() - p.generation_days * DAY_MS);
    total.recordsReduced += await untilDone(batch, () => reduceGenerationRecords(deps.db, org, before, REQUEST_TEXT_FIELDS, batch));
    total.recordsReduced += await untilDone(batch, () => reduceComparisonRecords(deps.db, org, before, REQUEST_TEXT_FIELDS, batch));
  }
  if (p.file_days !== null) {
    const before = new Date(deps.clock.now() - p.file_days * DAY_MS);
    total.generationFilesExpired += await untilDone(batch, () =>
      deps.db.tx(async (q) => {
        const rows = await lockGenerationsWithFiles(q, org, before, batch);
        if (rows.length === 0) return 0;
        const ids = rows.map((r) => r.id);
        const keys = [...new Set(rows.flatMap((r) => r.keys))];
        const cacheKeys = [...new Set(rows.flatMap((r) => (r.cache_key ? [r.cache_key] : [])))];
        const held = await blobsStillHeld(q, org, cacheKeys, ids, keys);
        const gone = keys.filter((k) => !held.has(k));
        // Deleted before the rows are stamped, inside their transaction: a failure leaves them to the next run, and a
        // blob deleted twice (a crash between the two) is no error.
        await deleteAll(deps.blobs, gone);
        await markGenerationFilesExpired(q, ids);
        total.blobsDeleted += gone.length;
        return rows.length;
      }),
    );
    total.uploadsExpired += await untilDone(batch, () =>
      deps.db.tx(async (q) => {
        const rows = await lockUploadsWithFiles(q, org, before, batch);
        if (rows.length === 0) return 0;
        // A direct (S3) upload's bytes may still sit where the presigned PUT left them.
        const keys = rows.flatMap((r) => [...(r.blob_key ? [r.blob_key] : []), incomingUploadKey(r.id)]);
        await deleteAll(deps.blobs, keys);
        await markUploadsExpired(q, rows.map((r) => r.id));
        total.blobsDeleted += rows.filter((r) => r.blob_key).length;
        return rows.length;
      }),
    );
  }
}

/** Runs batches until one comes back short; the sum of their counts. */
async function untilDone(batch: number, step: () => Promise<number>): Promise<number> {
  let sum = 0;
  for (;;) {
    const n = await step();
    sum += n;
    if (n < batch) return sum;
  }
}

async function deleteAll(blobs: BlobStore, keys: readonly string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += MAX_DELETE_BATCH) await blobs.deleteMany(keys.slice(i, i + MAX_DELETE_BATCH));
}
