import { Type } from '@sinclair/typebox';
import { PLANS } from '../../domain/access.js';
import { getOrganization, setPaused } from '../../domain/organizations.js';
import { defineRoute } from '../route.js';
import { Timestamp } from '../schemas.js';

export const Organization = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('organization'),
    name: Type.String(),
    plan: Type.String({ enum: [...PLANS] }),
    enterprise: Type.Boolean(),
    paused: Type.Boolean(),
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
  description: 'Setting `paused: false` lifts a pause set by the spending anomaly detector.',
  tag: 'Organization',
  auth: { role: 'owner' },
  schema: {
    body: Type.Object({ paused: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
    response: { 200: Organization },
  },
  handler: async ({ principal, body, deps }) => {
    if (body.paused !== undefined) await setPaused(deps.db, principal.organizationId, body.paused);
    return { status: 200, body: await getOrganization(deps.db, principal.organizationId) };
  },
});
