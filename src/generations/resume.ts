import type { Config } from '../config.js';
import type { Db } from '../store/db.js';
import { ApiError } from '../errors.js';
import type { Principal } from '../domain/access.js';
import { isTerminal, type GenerationRow } from './views.js';
import { generationOf } from './reads.js';
import { selectGeneration } from '../store/generations.js';

/** Reading an earlier request's generation, and waiting for it within the request's own bound. */
export interface ResumePorts {
  config: Config;
  db: Db;
}

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
  deps: ResumePorts,
  principal: Principal,
  id: string,
  opts: { untilTerminal: boolean },
): Promise<GenerationRow> {
  const g = await generationOf(deps.db, principal, id);
  if (!opts.untilTerminal) return g;
  const now = await untilTerminal(deps, g);
  if (!isTerminal(now.status)) {
    throw new ApiError(
      'idempotency_key_in_use',
      `The generation ${id}, accepted by an earlier request with this Idempotency-Key, is still running. Retry to get its answer.`,
      'Idempotency-Key',
    );
  }
  return now;
}

/**
 * The generation once it is terminal, read every 50 ms to 1 s while another runner (a worker) finishes it; as it
 * is at the request's own bound (so an answer comes before the server cuts the request) if it is still running.
 */
export async function untilTerminal(deps: ResumePorts, from: GenerationRow): Promise<GenerationRow> {
  let g = from;
  const deadline = Date.now() + Math.max(1_000, deps.config.requestTimeoutMs - 5_000);
  let delay = WAIT_MIN_MS;
  while (!isTerminal(g.status) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, WAIT_MAX_MS);
    g = (await selectGeneration(deps.db, g.id)) ?? g;
  }
  return g;
}
