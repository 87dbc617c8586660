import type { Modality } from '../catalog/index.js';
import type { AppDeps } from '../deps.js';
import { ApiError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { ImageInput, SimulateOptions } from '../providers/types.js';
import type { Plan, Principal } from './access.js';
import { acceptStatement, prepareGeneration, withStoredInputs } from './generations/create.js';
import { toGenerationView, type GenerationRow } from './generations/model.js';
import { loadOutputs } from './generations/store.js';
import { retryAfterSettling } from './credits.js';

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
}

interface ComparisonRow {
  id: string;
  organization_id: string;
  mode: string;
  modality: Modality;
  prompt: string | null;
  models: string[];
  status: 'queued' | 'running' | 'completed';
  remaining: number;
  reserved_credits: number;
  created_at: Date;
  completed_at: Date | null;
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
  deps: AppDeps,
  principal: Principal,
  c: { modality: Modality; prompt: string | null; params: Record<string, unknown>; children: ComparisonChild[]; simulate?: SimulateOptions | undefined; image?: ImageInput | undefined },
): Promise<ComparisonRow> {
  const id = newId('cmp');
  const prepared = await Promise.all(
    c.children.map((child) =>
      prepareGeneration(deps, principal, {
        modality: c.modality, model: child.model, prompt: child.prompt, params: child.params,
        simulate: c.simulate, cache: false, image: c.image, comparisonId: id,
      }),
    ),
  );
  const reserved = prepared.reduce((sum, p) => sum + p.price, 0);
  const row = await withStoredInputs(deps, prepared, () => retryAfterSettling(deps.db, principal.organizationId, () => deps.db.tx(async (q) => {
    const r = await q.query<ComparisonRow>(
      `INSERT INTO comparisons (id, organization_id, api_key_id, mode, modality, prompt, models, params, status, remaining, reserved_credits)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'queued', $9, $10) RETURNING *`,
      [id, principal.organizationId, principal.keyId, principal.mode, c.modality, c.prompt, prepared.map((p) => p.model), JSON.stringify(c.params), prepared.length, reserved],
    );
    for (const p of prepared) {
      if (!(await acceptStatement(q, deps, p))) {
        throw new ApiError('insufficient_credits', `Insufficient credits: this comparison needs ${reserved} credits for its ${prepared.length} models; nothing was charged.`);
      }
    }
    return r.rows[0]!;
  })));
  for (const p of prepared) deps.metrics.generationsAccepted.inc({ modality: p.modality, cache_hit: 'false' });
  deps.jobsAvailable?.();
  return row!;
}

export async function comparisonView(deps: AppDeps, principal: Principal, id: string): Promise<Record<string, unknown>> {
  const r = await deps.db.query<ComparisonRow>('SELECT * FROM comparisons WHERE id = $1 AND organization_id = $2 AND mode = $3', [id, principal.organizationId, principal.mode]);
  const cmp = r.rows[0];
  if (!cmp) throw notFound('comparison', id);
  const children = (await deps.db.query<GenerationRow>('SELECT * FROM generations WHERE comparison_id = $1 ORDER BY seq', [id])).rows;
  const outputs = await loadOutputs(deps.db, children.map((g) => g.id));
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
