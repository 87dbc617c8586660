import { Type } from '@sinclair/typebox';
import { getUsage, USAGE_GROUPS, type UsageGroup } from '../../domain/usage.js';
import { defineRoute } from '../route.js';

const Numbers = {
  generations: Type.Integer(),
  charged_credits: Type.Integer(),
  refunded_credits: Type.Integer(),
  cost_usd: Type.Number({ description: 'charged_credits × 0.001' }),
};
const Line = Type.Object({ key: Type.String(), ...Numbers });

export const usageRoute = defineRoute({
  method: 'GET',
  path: '/v1/usage',
  operationId: 'getUsage',
  summary: 'Usage aggregated by day, model, API key or modality over a date range',
  description:
    "Dates are UTC days, inclusive; by default the current calendar month up to today. Usage of the calling key's mode (test keys see test usage, which costs nothing). " +
    '`breakdown` splits each row by a second dimension, e.g. `group_by=day&breakdown=modality` for a daily chart by modality.',
  tag: 'Usage',
  auth: { role: 'viewer', scope: 'usage:read' },
  schema: {
    querystring: Type.Object(
      {
        group_by: Type.Optional(Type.String({ enum: [...USAGE_GROUPS], default: 'day' })),
        breakdown: Type.Optional(Type.String({ enum: [...USAGE_GROUPS], description: 'A second dimension: each row gets `breakdown`, its numbers split by it.' })),
        start: Type.Optional(Type.String({ description: 'YYYY-MM-DD' })),
        end: Type.Optional(Type.String({ description: 'YYYY-MM-DD' })),
      },
      { additionalProperties: false },
    ),
    response: {
      200: Type.Object(
        {
          object: Type.Literal('usage'),
          group_by: Type.String(),
          breakdown: Type.Optional(Type.String()),
          start: Type.String(),
          end: Type.String(),
          data: Type.Array(Type.Object({ key: Type.String(), ...Numbers, breakdown: Type.Optional(Type.Array(Line)) })),
          totals: Type.Object(Numbers),
        },
        { title: 'Usage' },
      ),
    },
  },
  handler: async ({ query, principal, deps }) => ({
    status: 200,
    body: await getUsage(deps.db, principal, {
      group_by: (query.group_by ?? 'day') as UsageGroup,
      breakdown: query.breakdown as UsageGroup | undefined,
      start: query.start,
      end: query.end,
    }),
  }),
});
