import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.js';

export const healthz = defineRoute({
  method: 'GET',
  path: '/healthz',
  operationId: 'healthz',
  summary: 'Liveness: the process answers',
  tag: 'Operations',
  auth: null,
  schema: { response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
  handler: async () => ({ status: 200, body: { status: 'ok' } }),
});

export const readyz = defineRoute({
  method: 'GET',
  path: '/readyz',
  operationId: 'readyz',
  summary: 'Readiness: the database answers',
  tag: 'Operations',
  auth: null,
  schema: {
    response: {
      200: Type.Object({ status: Type.String(), checks: Type.Record(Type.String(), Type.String()) }),
      503: Type.Object({ status: Type.String(), checks: Type.Record(Type.String(), Type.String()) }),
    },
  },
  handler: async ({ deps }) => {
    const checks: Record<string, string> = {};
    try {
      await deps.db.query('SELECT 1');
      checks.database = 'ok';
    } catch {
      checks.database = 'unavailable';
    }
    const ok = Object.values(checks).every((v) => v === 'ok');
    return { status: ok ? 200 : 503, body: { status: ok ? 'ok' : 'unavailable', checks } };
  },
});
