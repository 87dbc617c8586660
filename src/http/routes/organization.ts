import { Type } from '@sinclair/typebox';
import { PLANS } from '../../domain/access.js';
import { MODELS_PER_COMPARISON } from '../../domain/comparisons.js';
import { getOrganization, setBudget, setPaused, type OrganizationView } from '../../domain/organizations.js';
import { requestOrigin } from '../audit-origin.js';
import { defineRoute } from '../route.js';
import { Budget, BudgetAction, Nullable, SpentUsd, Timestamp } from '../schemas.js';

export const Organization = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('organization'),
    name: Type.String(),
    plan: Type.String({ enum: [...PLANS] }),
    enterprise: Type.Boolean(),
    paused: Type.Boolean(),
    paused_at: Nullable(Timestamp),
    pause_reason: Nullable(
      Type.Object(
        {
          kind: Type.String({ enum: ['anomaly', 'owner', 'billing'], description: 'anomaly: the spending anomaly detector; owner: an owner key paused it; billing: a refund or dispute left the wallet below zero (a payment that brings it back lifts it).' }),
          balance_credits: Type.Optional(Type.Integer({ description: 'billing: the balance that paused it' })),
          window_minutes: Type.Optional(Type.Integer({ description: 'anomaly: the window judged' })),
          spent_usd: Type.Optional(Type.Number({ description: 'anomaly: live spend in that window' })),
          baseline_usd: Type.Optional(Type.Number({ description: 'anomaly: the usual spend of such a window' })),
        },
        { title: 'PauseReason' },
      ),
    ),
    monthly_budget_usd: Nullable(Type.Number()),
    budget_action: Type.String({ enum: ['notify', 'block'] }),
    spent_usd: SpentUsd,
    created_at: Timestamp,
    limits: Type.Object(
      { models_per_comparison: Type.Integer({ minimum: 1, description: 'How many models one comparison may hold on this plan.' }) },
      { title: 'PlanLimits', description: "The plan's limits, as the API enforces them." },
    ),
  },
  { title: 'Organization' },
);

/** The organization with its plan's limits, which clients show rather than keep a copy of. */
function withLimits(view: OrganizationView) {
  return { ...view, limits: { models_per_comparison: MODELS_PER_COMPARISON[view.plan] } };
}

export const retrieveOrganization = defineRoute({
  method: 'GET',
  path: '/v1/organization',
  operationId: 'getOrganization',
  summary: 'The organization of the calling key',
  description:
    'Its name, plan and the plan\'s limits, whether it is paused and why, and its monthly budget.',
  tag: 'Organization',
  auth: { role: 'viewer' },
  schema: { response: { 200: Organization } },
  handler: async ({ principal, deps }) => ({ status: 200, body: withLimits(await getOrganization(deps.db, principal.organizationId)) }),
});

export const updateOrganization = defineRoute({
  method: 'PATCH',
  path: '/v1/organization',
  operationId: 'updateOrganization',
  summary: 'Pause or unpause the organization, or set its monthly budget (owner keys only)',
  description:
    "Setting `paused: false` lifts a pause set by the spending anomaly detector; the queued generations that waited then start. `monthly_budget_usd` and `budget_action` set the organization's budget, which counts the spend of all its keys (contract §7).",
  tag: 'Organization',
  auth: { role: 'owner', mode: 'live' },
  schema: {
    body: Type.Object(
      { paused: Type.Optional(Type.Boolean()), monthly_budget_usd: Type.Optional(Budget), budget_action: Type.Optional(BudgetAction) },
      { additionalProperties: false },
    ),
    response: { 200: Organization },
  },
  handler: async ({ principal, body, deps, request }) => {
    const b = body as { paused?: boolean; monthly_budget_usd?: number | null; budget_action?: 'notify' | 'block' };
    // Each change answers with the organization as it left it; the last one made is the answer (no third read).
    let view = null;
    const origin = requestOrigin(principal, request);
    if (b.monthly_budget_usd !== undefined || b.budget_action !== undefined) view = await setBudget(deps.db, principal.organizationId, b, origin);
    if (b.paused !== undefined) view = await setPaused(deps, principal.organizationId, b.paused, origin);
    return { status: 200, body: withLimits(view ?? (await getOrganization(deps.db, principal.organizationId))) };
  },
});
