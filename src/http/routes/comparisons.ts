import { Type } from '@sinclair/typebox';
import { comparisonView, MODELS_PER_COMPARISON } from '../../domain/comparisons.js';
import { acceptRequest } from '../../generations/accept-request.js';
import { announceDeprecation } from '../deprecation-headers.js';
import { Simulate } from '../../generations/modalities/fields.js';
import { defineRoute } from '../route.js';
import { IdParams, Nullable, Timestamp } from '../schemas.js';
import { Generation } from './generation-schema.js';

const Comparison = Type.Object(
  {
    id: Type.String({ description: 'cmp_…' }),
    object: Type.Literal('comparison'),
    status: Type.String({ enum: ['queued', 'running', 'completed'] }),
    modality: Type.String(),
    prompt: Nullable(Type.String()),
    models: Type.Array(Type.String()),
    generations: Type.Array(Generation),
    reserved_credits: Type.Integer(),
    created_at: Timestamp,
    completed_at: Nullable(Timestamp),
  },
  { title: 'Comparison' },
);

export const createComparisonRoute = defineRoute({
  method: 'POST',
  path: '/v1/comparisons',
  operationId: 'createComparison',
  summary: 'Send one prompt to several models side by side (asynchronous)',
  description:
    `Models must be distinct and of one modality; at most ${Object.entries(MODELS_PER_COMPARISON).map(([p, n]) => `${p} ${n}`).join(', ')} by plan. ` +
    'The credits of every child are reserved together, or nothing is (402). Needs the write scope of the models\' modality.',
  tag: 'Comparisons',
  auth: { role: 'developer', consumesCredits: true },
  errors: [402, 404, 410, 503],
  schema: {
    body: Type.Object(
      {
        // No maxItems: the plan sets the width (403 plan_limit_exceeded, after the models are checked); the body's size limit bounds the list.
        models: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 2, uniqueItems: true }),
        prompt: Type.Optional(Type.String({ minLength: 1, maxLength: 5000 })),
        params: Type.Optional(Type.Object({}, { additionalProperties: true, description: "The modality's request fields (as for its own endpoint), applied to every model." })),
        simulate: Type.Optional(Simulate),
      },
      { additionalProperties: false },
    ),
    response: { 202: Comparison },
  },
  handler: async ({ body, principal, deps, request, reply }) => {
    const { comparisonId } = await acceptRequest(deps, principal, {
      kind: 'comparison', models: body.models, prompt: body.prompt, params: body.params ?? {}, simulate: body.simulate, claim: request.idempotency ?? undefined,
    });
    const view = await comparisonView(deps, principal, comparisonId);
    // From the models the answer names (comparisonView's `models`: the slugs), which a resumed comparison's answer names too.
    const find = (name: string) => deps.catalog.find(name);
    announceDeprecation(reply, deps.providers.records, (view.models as readonly string[]).map((slug) => find(slug) ?? null), 'comparison', find);
    return { status: 202, body: view };
  },
});

export const getComparisonRoute = defineRoute({
  method: 'GET',
  path: '/v1/comparisons/{id}',
  operationId: 'getComparison',
  summary: 'A comparison with all its child generations',
  description:
    'Its status and each child generation as GET /v1/generations/{id} shows it, with its cost and time; poll it until the comparison completes.',
  tag: 'Comparisons',
  auth: { role: 'viewer', scope: 'generations:read' },
  schema: { params: IdParams, response: { 200: Comparison } },
  handler: async ({ params, principal, deps }) => ({ status: 200, body: await comparisonView(deps, principal, params.id) }),
});
