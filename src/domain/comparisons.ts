import type { Modality } from '../catalog/index.js';
import type { AppDeps } from '../deps.js';
import { ApiError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { ImageInput, SimulateOptions } from '../providers/types.js';
import type { Plan, Principal } from './access.js';
import { acceptStatement, claimLost, prepareGeneration, withStoredInputs, type AudioInput } from '../generations/accept.js';
import { linkIdempotencyClaim, type IdempotencyClaim } from '../store/idempotency.js';
import { toGenerationView } from '../generations/views.js';
import { selectOutputs, selectComparisonChildren } from '../store/generations.js';
import { insertComparison, selectComparison, type ComparisonRow } from '../store/comparisons.js';
import { retryAfterSettling } from '../billing/credits.js';
import { checkBudgetsOf } from '../billing/budgets.js';

/** Accepting a comparison: its children are prepared and accepted as generations are. */
export type CreateComparisonPorts = Pick<AppDeps, 'blobs' | 'catalog' | 'config' | 'db' | 'headroom' | 'jobsAvailable' | 'metrics' | 'nodeId' | 'providers'>;
export type ComparisonViewPorts = Pick<AppDeps, 'db' | 'links'>;

/**
 * Comparison glossary
 * - comparison: one prompt sent to several models of one modality at once, to
 *   see them side by side. Its children are ordinary generations, always run
 *   asynchronously, with `comparison_id` set.
 * - width: how many models one comparison may hold, set by the plan.
 * - completed: every child has reached its first terminal state; the
 *   comparison.completed event fires once, then. A child retried later does
 *   not reopen it.
 */
export const MODELS_PER_COMPARISON: Record<Plan, number> = { free: 2, pro: 3, studio: 6, team: 12 };

export interface ComparisonChild {
  model: string;
  prompt: string | null;
  params: Record<string, unknown>;
  /** The fields the client sent (the others are defaults), as for a generation of its own. */
  sent?: ReadonlySet<string> | undefined;
}

export function assertPlanWidth(plan: Plan, count: number): void {
  const limit = MODELS_PER_COMPARISON[plan];
  if (count > limit) {
    throw new ApiError('plan_limit_exceeded', `The ${plan} plan compares at most ${limit} models at once; this request has ${count}.`, 'models');
  }
}

/**
 * Creates the comparison and all its children in ONE transaction: every
 * child's credits are reserved, or none are and nothing is created (402).
 */
export async function createComparison(
  deps: CreateComparisonPorts,
  principal: Principal,
  c: { modality: Modality; prompt: string | null; params: Record<string, unknown>; children: ComparisonChild[]; simulate?: SimulateOptions | undefined; image?: ImageInput | undefined; audio?: AudioInput | undefined; claim?: IdempotencyClaim | undefined },
): Promise<ComparisonRow> {
  const id = newId('cmp');
  const prepared = await Promise.all(
    c.children.map((child) =>
      prepareGeneration(deps, principal, {
        modality: c.modality, model: child.model, prompt: child.prompt, params: child.params,
        simulate: c.simulate, cache: false, image: c.image, audio: c.audio, comparisonId: id, sent: child.sent,
      }),
    ),
  );
  const reserved = prepared.reduce((sum, p) => sum + p.price, 0);
  const row = await withStoredInputs(deps, prepared, () => retryAfterSettling(deps.db, principal.organizationId, () => deps.db.tx(async (q) => {
    // Every child's credits count against the budgets at once, checked before anything of the transaction is written.
    await checkBudgetsOf(q, principal, reserved);
    // The Idempotency-Key and the comparison are one fact (store/idempotency.ts), written in this transaction.
    if (c.claim && !(await linkIdempotencyClaim(q, c.claim, id))) throw claimLost();
    const cmp = await insertComparison(q, {
      id, organizationId: principal.organizationId, apiKeyId: principal.keyId, mode: principal.mode, modality: c.modality,
      prompt: c.prompt, models: prepared.map((p) => p.model), params: c.params, reservedCredits: reserved,
    });
    for (const p of prepared) {
      if (!(await acceptStatement(q, deps, p))) {
        throw new ApiError('insufficient_credits', `Insufficient credits: this comparison needs ${reserved} credits for its ${prepared.length} models; nothing was charged.`);
      }
    }
    return cmp;
  })));
  for (const p of prepared) deps.metrics.generationsAccepted.inc({ modality: p.modality, cache_hit: 'false' });
  deps.jobsAvailable.notify();
  return row!;
}

export async function comparisonView(deps: ComparisonViewPorts, principal: Principal, id: string): Promise<Record<string, unknown>> {
  const cmp = await selectComparison(deps.db, id, principal.organizationId, principal.mode);
  if (!cmp) throw notFound('comparison', id);
  const children = await selectComparisonChildren(deps.db, id);
  const outputs = await selectOutputs(deps.db, children.map((g) => g.id));
  const status = cmp.remaining === 0 ? 'completed' : children.some((g) => g.status !== 'queued') ? 'running' : 'queued';
  return {
    id: cmp.id,
    object: 'comparison',
    status,
    modality: cmp.modality,
    prompt: cmp.prompt,
    models: cmp.models,
    generations: await Promise.all(children.map((g) => toGenerationView(g, outputs.get(g.id) ?? [], deps.links))),
    reserved_credits: Number(cmp.reserved_credits),
    created_at: cmp.created_at.toISOString(),
    completed_at: cmp.completed_at ? cmp.completed_at.toISOString() : null,
  };
}
