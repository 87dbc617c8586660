import { Type } from '@sinclair/typebox';
import { MODALITIES } from '../../catalog/index.js';
import { cancelGeneration, retryGeneration } from '../../generations/control.js';
import { toGenerationView } from '../../generations/views.js';
import { generationOf, listGenerations } from '../../generations/reads.js';
import { selectOutputs } from '../../store/generations.js';
import { resumedGeneration } from '../../generations/resume.js';
import { defineRoute } from '../route.js';
import { IdParams, ListOf, PageQuery } from '../schemas.js';
import { generationView } from './generation-route.js';
import { Generation } from './generation-schema.js';

export const getGeneration = defineRoute({
  method: 'GET',
  path: '/v1/generations/{id}',
  operationId: 'getGeneration',
  summary: 'Get a generation (poll this for asynchronous work)',
  description: 'Output URLs are signed afresh on every read.',
  tag: 'Generations',
  auth: { role: 'viewer', scope: 'generations:read' },
  schema: { params: IdParams, response: { 200: Generation } },
  handler: async ({ params, principal, deps }) => {
    // A reply handed back before its settlement (chat completions) is read settled on this node, without waiting out the batch.
    if (deps.inflight.has(params.id)) void deps.finishes.flush();
    await deps.inflight.settled(params.id);
    return { status: 200, body: await generationView(deps, await generationOf(deps.db, principal, params.id)) };
  },
});

export const listGenerationsRoute = defineRoute({
  method: 'GET',
  path: '/v1/generations',
  operationId: 'listGenerations',
  summary: 'List generations, newest first',
  description:
    'The organization\'s generations of the caller\'s mode, filtered by `status` and `modality`, paged with `limit` and `starting_after`. Output URLs are signed afresh.',
  tag: 'Generations',
  auth: { role: 'viewer', scope: 'generations:read' },
  schema: {
    querystring: Type.Object(
      {
        ...PageQuery,
        status: Type.Optional(Type.String({ enum: ['queued', 'running', 'succeeded', 'failed', 'canceled'] })),
        modality: Type.Optional(Type.String({ enum: [...MODALITIES] })),
      },
      { additionalProperties: false },
    ),
    response: { 200: ListOf(Generation) },
  },
  handler: async ({ query, principal, deps }) => {
    const { rows, hasMore } = await listGenerations(deps.db, principal, {
      limit: query.limit ?? 20, startingAfter: query.starting_after, status: query.status, modality: query.modality,
    });
    const outputs = await selectOutputs(deps.db, rows.map((r) => r.id));
    return {
      status: 200,
      body: { object: 'list', data: await Promise.all(rows.map((r) => toGenerationView(r, outputs.get(r.id) ?? [], deps.links))), has_more: hasMore },
    };
  },
});

export const cancelGenerationRoute = defineRoute({
  method: 'POST',
  path: '/v1/generations/{id}/cancel',
  operationId: 'cancelGeneration',
  summary: 'Cancel a queued or running generation; its reservation is refunded in full',
  description:
    'The generation ends canceled in the statement that refunds it, then its provider is told to stop (best effort). One that has already ended answers 409 generation_not_cancelable.',
  tag: 'Generations',
  auth: { role: 'developer', scope: 'generations:write' },
  errors: [409],
  schema: { params: IdParams, response: { 200: Generation } },
  handler: async ({ params, principal, deps }) => ({
    status: 200,
    body: await generationView(deps, await cancelGeneration(deps, principal, params.id)),
  }),
});

export const retryGenerationRoute = defineRoute({
  method: 'POST',
  path: '/v1/generations/{id}/retry',
  operationId: 'retryGeneration',
  summary: 'Retry a failed asynchronous generation',
  description: 'Reserves again and queues the generation. The provider is asked about the earlier attempt first: if it finished, its result is used and nothing is submitted again, so the caller is charged once.',
  tag: 'Generations',
  auth: { role: 'developer', scope: 'generations:write', consumesCredits: true },
  errors: [402, 409],
  schema: { params: IdParams, response: { 202: Generation } },
  handler: async ({ params, principal, deps, request }) => {
    const claim = request.idempotency ?? undefined;
    // An earlier request with this Idempotency-Key made the retry and died: the generation as it is now, not a second retry.
    const g = claim?.resume ? await resumedGeneration(deps, principal, claim.resume, { untilTerminal: false }) : await retryGeneration(deps, principal, params.id, claim);
    return { status: 202, body: await generationView(deps, g) };
  },
});
