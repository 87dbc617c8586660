import { Type } from '@sinclair/typebox';
import { MAX_BLOCKLIST_ENTRIES, MAX_BLOCKLIST_ENTRY_LENGTH, policyView } from '../../moderation/policy.js';
import { requestOrigin } from '../audit-origin.js';
import { defineRoute } from '../route.js';

const Policy = Type.Object(
  {
    object: Type.Literal('moderation_policy'),
    action: Type.String({ enum: ['flag', 'block'], description: 'What happens to an output scored at or above `threshold`: flagged (served, marked) or blocked (never served, not charged).' }),
    threshold: Type.Number({ minimum: 0, maximum: 1, description: 'The classifier score (0–1) at or above which an output is acted on.' }),
    prompt_blocklist: Type.Array(Type.String(), { description: 'Words and phrases a prompt may not contain (case-insensitive, whole words).' }),
  },
  { title: 'ModerationPolicy' },
);

export const getModerationPolicy = defineRoute({
  method: 'GET',
  path: '/v1/organization/moderation',
  operationId: 'getModerationPolicy',
  summary: "The organization's moderation policy",
  description:
    'What happens to an output a classifier scores above `threshold` (`flag`: served and marked; `block`: never served, not charged), and the words that refuse a prompt before anything is reserved.',
  tag: 'Organization',
  auth: { role: 'viewer' },
  schema: { response: { 200: Policy } },
  handler: async ({ principal, deps }) => ({ status: 200, body: policyView(await deps.policies.get(deps.db, principal.organizationId)) }),
});

export const updateModerationPolicyRoute = defineRoute({
  method: 'PATCH',
  path: '/v1/organization/moderation',
  operationId: 'updateModerationPolicy',
  summary: "Change the organization's moderation policy (owner keys only)",
  description: 'Fields left out keep their value. Takes effect on every node within two seconds.',
  tag: 'Organization',
  auth: { role: 'owner', mode: 'live' },
  schema: {
    body: Type.Object(
      {
        action: Type.Optional(Type.String({ enum: ['flag', 'block'] })),
        threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
        prompt_blocklist: Type.Optional(
          Type.Array(Type.String({ minLength: 1, maxLength: MAX_BLOCKLIST_ENTRY_LENGTH }), { maxItems: MAX_BLOCKLIST_ENTRIES }),
        ),
      },
      { additionalProperties: false },
    ),
    response: { 200: Policy },
  },
  handler: async ({ principal, body, deps, request }) => {
    const patch = {
      ...(body.action !== undefined ? { action: body.action as 'flag' | 'block' } : {}),
      ...(body.threshold !== undefined ? { threshold: body.threshold } : {}),
      ...(body.prompt_blocklist !== undefined ? { prompt_blocklist: body.prompt_blocklist } : {}),
    };
    return { status: 200, body: policyView(await deps.policies.update(deps.db, principal.organizationId, patch, requestOrigin(principal, request))) };
  },
});
