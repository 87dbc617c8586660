import { Type } from '@sinclair/typebox';
import { getUsage, type UsageGroup } from '../../domain/usage.js';
import { defineRoute } from '../route.js';

const Numbers = {
  generations: Type.Integer(),
  charged_credits: Type.Integer(),
  refunded_credits: Type.Integer(),
  cost_usd: Type.Number({ description: 'charged_credits × 0.001' }),
};

export const usageRoute = defineRoute({
  method: 'GET',
  path: '/v1/usage',
  operationId: 'getUsage',
  summary: 'Usage aggregated by day, model or API key over a date range',
  description: 'Dates are UTC days, inclusive; by default the current calendar month up to today. Usage of the calling key\'s mode (test keys see test usage, which costs nothing).',
  tag: 'Usage',
  auth: { role: 'viewer', scope: 'usage:read' },
  schema: {
    querystring: Type.Object(
      {
        group_by: Type.Optional(Type.String({ enum: ['day', 'model', 'api_key'], default: 'day' })),
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
          start: Type.String(),
          end: Type.String(),
          data: Type.Array(Type.Object({ key: Type.String(), ...Numbers })),
          totals: Type.Object(Numbers),
        },
        { title: 'Usage' },
      ),
    },
  },
  handler: async ({ query, principal, deps }) => ({
    status: 200,
    body: await getUsage(deps.db, principal, { group_by: (query.group_by ?? 'day') as UsageGroup, start: query.start, end: query.end }),
  }),
});
