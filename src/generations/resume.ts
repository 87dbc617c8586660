import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import type { Principal } from '../domain/access.js';
import { isTerminal, type GenerationRow } from './model.js';
import { generationOf, loadGeneration } from './store.js';

const WAIT_MIN_MS = 50;
const WAIT_MAX_MS = 1_000;

/**
 * The generation that an earlier request with the same Idempotency-Key accepted, before its node died or
 * before it ended without a kept answer (store/idempotency.ts). A request is answered from it instead of
 * accepting again: one key, one generation, one charge. With `untilTerminal` (the synchronous endpoints) it
 * waits as the first request would have, while a worker finishes what the dead node left running
 * (node-liveness.ts hands its job back); otherwise it is the generation as it is now.
 */
export async function resumedGeneration(
  deps: Pick<AppDeps, 'db' | 'config'>,
  principal: Principal,
  id: string,
  opts: { untilTerminal: boolean },
): Promise<GenerationRow> {
  let g = await generationOf(deps.db, principal, id);
  if (!opts.untilTerminal) return g;
  // Within the request's own bound, so the answer (or this 409) comes before the server cuts the request.
  const deadline = Date.now() + Math.max(1_000, deps.config.requestTimeoutMs - 5_000);
  let delay = WAIT_MIN_MS;
  while (!isTerminal(g.status)) {
    if (Date.now() > deadline) {
      throw new ApiError(
        'idempotency_key_in_use',
        `The generation ${id}, accepted by an earlier request with this Idempotency-Key, is still running. Retry to get its answer.`,
        'Idempotency-Key',
      );
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, WAIT_MAX_MS);
    g = (await loadGeneration(deps.db, id)) ?? g;
  }
  return g;
}
