import type { ProviderRegistry } from '../providers/registry.js';
import type { Db } from '../store/db.js';
import type { Wakeup } from '../wakeup.js';
import { ApiError } from '../errors.js';
import type { Principal } from '../domain/access.js';
import { reserve, retryAfterSettling } from '../billing/credits.js';
import { checkBudgetsOf } from '../billing/budgets.js';
import { isTerminal, type GenerationRow } from './views.js';
import { finish, type FinishPorts } from './finish.js';
import { clientRef } from './upstream-request.js';
import { requeueForAttempt, selectGeneration } from '../store/generations.js';
import { enqueueJob } from '../store/jobs.js';
import { linkIdempotencyClaim, type IdempotencyClaim } from '../store/idempotency.js';
import { claimLost } from './accept.js';
import { generationOf } from './reads.js';

/** A cancel is the finishing statement of any end (FinishPorts), then a word to the provider that runs the job. */
export interface CancelPorts extends FinishPorts {
  providers: ProviderRegistry;
}

/** A retry is one transaction (a new reservation, the requeued attempt, its job), then a nudge to the worker. */
export interface RetryPorts {
  db: Db;
  jobsAvailable: Wakeup;
}

/**
 * Cancel: a queued or running generation becomes canceled and its whole
 * reservation is refunded at once, by the same one-statement finish that
 * success and failure use (so a cancel racing a finish can never both
 * happen); then the upstream job is told to stop.
 */
export async function cancelGeneration(deps: CancelPorts, principal: Principal, id: string): Promise<GenerationRow> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const g = await generationOf(deps.db, principal, id);
    if (isTerminal(g.status)) {
      throw new ApiError('generation_not_cancelable', `The generation ${id} is ${g.status} and can no longer be canceled.`, 'id');
    }
    const { row } = await finish(deps, g, { status: 'canceled', charged: 0, result: null, error: null, upstreamId: null, outputs: [] });
    if (row) {
      if (row.upstream_id) {
        // The refund is done; telling the provider is best effort (a runner still polling also cancels it).
        await deps.providers.byName(row.provider ?? '')?.cancel(row.upstream_id).catch((err: unknown) => deps.log.warn({ err, id }, 'upstream cancel failed'));
      }
      return row;
    }
    // Finished or retried between our read and our write: look again.
  }
  throw new ApiError('generation_not_cancelable', `The generation ${id} changed while it was being canceled; try again.`, 'id');
}

/**
 * Retry: a failed asynchronous generation goes back to queued as a new
 * attempt with a new reservation. The runner first asks the provider about the
 * earlier attempts' upstream jobs and adopts one that finished, so the caller
 * pays once.
 */
export async function retryGeneration(deps: RetryPorts, principal: Principal, id: string, claim?: IdempotencyClaim): Promise<GenerationRow> {
  // The answer is the generation as this retry left it (queued), read in its transaction: read after the worker is
  // woken, it could already be running.
  const queued = await retryAfterSettling(deps.db, principal.organizationId, () => deps.db.tx(async (q) => {
    // The Idempotency-Key names the retried generation in the retry's own transaction (store/idempotency.ts).
    if (claim && !(await linkIdempotencyClaim(q, claim, id))) throw claimLost();
    const g = await generationOf(q, principal, id, true);
    if (g.status !== 'failed' || g.sync) {
      throw new ApiError(
        'generation_not_retryable',
        g.sync ? `The generation ${id} is synchronous; send the request again instead.` : `Only failed generations can be retried; ${id} is ${g.status}.`,
        'id',
      );
    }
    // Its outputs were made and judged: a retry would adopt the same upstream result and be judged the same. A new
    // request (or another model) is the way on; its blocked files stay listed on it.
    if (g.error?.code === 'content_blocked') {
      throw new ApiError('generation_not_retryable', `Moderation blocked every output of ${id}; send a new request instead.`, 'id');
    }
    // Its request's text or input files are gone (the organization's retention): there is nothing left to send again.
    if (g.prompt_expired_at || g.files_expired_at) {
      throw new ApiError('generation_not_retryable', `The prompt or files of ${id} were removed under the organization's retention; send a new request instead.`, 'id');
    }
    const attempt = g.attempt + 1;
    const history = [...g.upstream_history, { attempt: g.attempt, provider: g.provider, upstream_id: g.upstream_id }];
    if (g.price_credits > 0) {
      // The new attempt's hold counts against the retrying key's and the organization's budgets.
      await checkBudgetsOf(q, principal, g.price_credits);
      await reserve(q, {
        organizationId: g.organization_id, credits: g.price_credits, reference: clientRef(id, attempt),
        generationId: id, apiKeyId: principal.keyId, model: g.model, modality: g.modality,
      });
    }
    await requeueForAttempt(q, id, attempt, history);
    await enqueueJob(q, id);
    return (await selectGeneration(q, id))!;
  }));
  deps.jobsAvailable.notify();
  return queued;
}
