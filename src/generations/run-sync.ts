import type { InflightWork } from '../jobs/inflight.js';
import type { Queryable } from '../store/db.js';
import { ApiError } from '../errors.js';
import type { UpstreamStatus } from '../providers/types.js';
import type { Principal } from '../domain/access.js';
import { cacheEntryKey } from './accept.js';
import type { EarlyDispatch } from './early-dispatch.js';
import { chargeOf, finishFailed, type RunResult } from './finish.js';
import { isTerminal, type GenerationRow, type OutputRow } from './views.js';
import { resumedGeneration, untilTerminal } from './resume.js';
import { runGeneration, type RunPorts } from './runner.js';
import { selectGeneration, selectOutputs } from '../store/generations.js';

/** resume.ts declares what its wait reads; whatever it names, a synchronous run passes on. */
type UntilTerminalPorts = Parameters<typeof untilTerminal>[0];

/**
 * A run in the request (RunPorts), tracked so that shutdown awaits it and a repeat on this node can wait for it
 * (inflight); a run that lost its lease waits for the other runner as resume.ts does, on that module's port.
 */
export type RunSyncPorts = RunPorts & UntilTerminalPorts & { inflight: InflightWork };

/** The answer reads outputs it was not handed: one statement. */
interface AnswerPorts {
  db: Queryable;
}

/**
 * Runs a synchronous generation in the request; a failure at the provider is a 502 (it was refunded).
 * With `replyEarly`, a file-less reply (chat) comes back as soon as the provider answers (`early`), and
 * its settlement runs on, tracked under the generation id (a GET of it on this node waits for it).
 */
export async function finishSynchronously(
  deps: RunSyncPorts,
  g: GenerationRow,
  opts: { replyEarly?: boolean; early?: EarlyDispatch } = {},
): Promise<{ row: GenerationRow; outputs: OutputRow[]; early?: UpstreamStatus }> {
  let row: GenerationRow;
  let outputs: OutputRow[] | undefined;
  if (g.cache_hit) {
    row = g;
  } else {
    let run: RunResult;
    try {
      run = await deps.inflight.track(runGeneration(deps, g.id, { row: g, fresh: true, replyEarly: opts.replyEarly === true, early: opts.early }));
    } catch (err) {
      // The caller gets an error, so the generation must not run on and be charged later: fail it (refunded).
      await finishFailed(deps, g, 'mmgen failed while running this generation.').catch(() => {});
      throw err;
    }
    if (run.early) {
      const settled = deps.inflight.track(
        run.early.settled.catch((err: unknown) => {
          // The lease runs out and a worker finishes the generation: charged once, whatever happened here.
          deps.log.error({ err, generationId: g.id }, 'settling a reply failed; the job is left to a worker');
          return { outcome: 'finished' } as RunResult;
        }),
        g.id,
      );
      // A repeat of a cacheable request on this node waits for it too (createGeneration), to be answered from the cache.
      if (g.cache_key !== null) deps.inflight.track(settled, cacheEntryKey(g.organization_id, g.mode, g.cache_key));
      // Its charge is what the settlement running on writes (chargeOf), so the reply can say what it cost.
      const charged = g.price_credits > 0 ? chargeOf(deps, g, [], run.early.status) : 0;
      return { row: { ...g, status: 'succeeded', charged_credits: charged, refunded_credits: g.price_credits - charged }, outputs: [], early: run.early.status };
    }
    // Finished by this run: its state is known. Otherwise (canceled meanwhile, …) read it; a run that lost its lease
    // (another node took the job) leaves it running: the request waits for that runner, as a resumed one does.
    row = run.row ?? (await selectGeneration(deps.db, g.id))!;
    outputs = run.row ? run.outputs : undefined;
    if (run.outcome === 'lost_lease' && !isTerminal(row.status) && !deps.lifecycle.halted) row = await untilTerminal(deps, row);
  }
  return answered(deps, row, outputs);
}

/**
 * A synchronous endpoint's answer for a generation an earlier request with the same Idempotency-Key accepted
 * (resume.ts): the same as that request's, once the generation is finished.
 */
export async function resumeSynchronously(
  deps: Parameters<typeof resumedGeneration>[0] & AnswerPorts,
  principal: Principal,
  id: string,
): Promise<{ row: GenerationRow; outputs: OutputRow[] }> {
  return answered(deps, await resumedGeneration(deps, principal, id, { untilTerminal: true }));
}

async function answered(deps: AnswerPorts, row: GenerationRow, outputs?: OutputRow[]): Promise<{ row: GenerationRow; outputs: OutputRow[] }> {
  if (row.status === 'failed') {
    // Moderation blocked all it made: 451, as for its files (contract §11). Anything else failed upstream: 502.
    if (row.error?.code === 'content_blocked') throw new ApiError('content_blocked', `The generation ${row.id} was refunded: ${row.error.message}`);
    throw new ApiError('upstream_error', `The generation ${row.id} failed at the provider and was refunded: ${row.error?.message ?? 'unknown error'}`);
  }
  return { row, outputs: outputs ?? (await selectOutputs(deps.db, [row.id])).get(row.id) ?? [] };
}
