import { Type } from '@sinclair/typebox';
import { PLANS } from '../../domain/access.js';
import { getOrganization, setPaused } from '../../domain/organizations.js';
import { defineRoute } from '../route.js';
import { Nullable, Timestamp } from '../schemas.js';

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
          kind: Type.String({ enum: ['anomaly', 'owner'], description: 'anomaly: the spending anomaly detector; owner: an owner key paused it.' }),
          window_minutes: Type.Optional(Type.Integer({ description: 'anomaly: the window judged' })),
          spent_usd: Type.Optional(Type.Number({ description: 'anomaly: live spend in that window' })),
          baseline_usd: Type.Optional(Type.Number({ description: 'anomaly: the usual spend of such a window' })),
        },
        { title: 'PauseReason' },
      ),
    ),
    created_at: Timestamp,
  },
  { title: 'Organization' },
);

export const retrieveOrganization = defineRoute({
  method: 'GET',
  path: '/v1/organization',
  operationId: 'getOrganization',
  summary: 'The organization of the calling key',
  tag: 'Organization',
  auth: { role: 'viewer' },
  schema: { response: { 200: Organization } },
  handler: async ({ principal, deps }) => ({ status: 200, body: await getOrganization(deps.db, principal.organizationId) }),
});

export const updateOrganization = defineRoute({
  method: 'PATCH',
  path: '/v1/organization',
  operationId: 'updateOrganization',
  summary: 'Pause or unpause the organization (owner keys only)',
  description: 'Setting `paused: false` lifts a pause set by the spending anomaly detector; the queued generations that waited then start.',
  tag: 'Organization',
  auth: { role: 'owner' },
  schema: {
    body: Type.Object({ paused: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
    response: { 200: Organization },
  },
  handler: async ({ principal, body, deps }) => {
    if (body.paused !== undefined) await setPaused(deps, principal.organizationId, body.paused);
    return { status: 200, body: await getOrganization(deps.db, principal.organizationId) };
  },
});
