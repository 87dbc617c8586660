import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { exportAuditEvents, listAuditEvents, type AuditQuery } from '../../domain/audit.js';
import { defineRoute } from '../route.js';
import { ListOf, Nullable, PageQuery, Timestamp } from '../schemas.js';

const ACTOR_TYPES = ['member', 'api_key', 'operator', 'system'] as const;

export const AuditEvent = Type.Object(
  {
    id: Type.String({ description: 'aud_…' }),
    object: Type.Literal('audit_event'),
    seq: Type.Integer({ description: "The entry's place in its organization's hash chain, from 1." }),
    organization_id: Nullable(Type.String()),
    created_at: Timestamp,
    mode: Nullable(Type.String({ enum: ['live', 'test'], description: "The mode of the key that made the change (keys of that mode read it); null for the operator's and the system's, which both modes read." })),
    actor: Type.Object(
      {
        type: Type.String({ enum: [...ACTOR_TYPES] }),
        id: Type.String({ description: 'usr_… (member), key_… (API key), the operator\'s name, or the part of mmgen (system).' }),
        user_id: Nullable(Type.String({ description: 'The member behind the actor (an API key\'s owner).' })),
      },
      { title: 'AuditActor' },
    ),
    client_address: Nullable(Type.String({ description: 'The address the request came from; null outside HTTP (the CLI, the system).' })),
    request_id: Nullable(Type.String({ description: 'The request id (X-Request-Id, the error envelope\'s request_id); null outside HTTP.' })),
    action: Type.String({ description: 'A dotted name, e.g. `api_key.created`, `wallet.topped_up` (docs/contract-addenda.md lists them).' }),
    target: Type.Object({ type: Type.String(), id: Type.String() }, { title: 'AuditTarget' }),
    before: Type.Unknown({ description: 'The target\'s values before the change (null: it did not exist). Secrets are never recorded.' }),
    after: Type.Unknown({ description: 'The target\'s values after the change (null: it no longer exists).' }),
    prev_hash: Type.String({ description: 'SHA-256 (hex) of the previous entry of the chain; 64 zeros for the first.' }),
    hash: Type.String({ description: "SHA-256 (hex) of this entry's canonical serialization (RFC 8785), which includes prev_hash." }),
  },
  { title: 'AuditEvent' },
);

const Filters = {
  action: Type.Optional(Type.String({ maxLength: 100, pattern: '^[a-z0-9_.]+(\\.\\*)?$', description: 'An action (`api_key.revoked`), or a prefix ending in `.*` (`api_key.*`).' })),
  actor: Type.Optional(Type.String({ maxLength: 200, description: "An actor's id (key_…, usr_…, an operator's name), or the member behind a key." })),
  actor_type: Type.Optional(Type.String({ enum: [...ACTOR_TYPES] })),
  target_type: Type.Optional(Type.String({ maxLength: 100 })),
  target_id: Type.Optional(Type.String({ maxLength: 200 })),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'Entries at or after this time.' })),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'Entries before this time.' })),
};

/** Owners and admins of the organization; a key reads the entries of its own mode's keys and the operator's and system's. */
const auth = { role: 'admin' } as const;
const tag = 'Audit';

export const listAuditEventsRoute = defineRoute({
  method: 'GET',
  path: '/v1/audit-events',
  operationId: 'listAuditEvents',
  summary: "The organization's audit log, newest first",
  description:
    'Who changed what, when and from where, with the values before and after: keys, budgets, webhooks, the moderation policy, the organization\'s settings, its model access, wallet top-ups. Filtered by action, actor, target and time; paged with `limit` and `starting_after`. A key reads the entries made by keys of its own mode, and the operator\'s and the system\'s. Owners and admins only.',
  tag,
  auth,
  schema: {
    querystring: Type.Object({ ...PageQuery, ...Filters }, { additionalProperties: false }),
    response: { 200: ListOf(AuditEvent) },
  },
  handler: async ({ principal, query, deps }) => ({
    status: 200,
    body: await listAuditEvents(deps.db, principal, { ...(query as AuditQuery), limit: query.limit ?? 20, starting_after: query.starting_after }),
  }),
});

export const exportAuditEventsRoute = defineRoute({
  method: 'GET',
  path: '/v1/audit-events/export',
  operationId: 'exportAuditEvents',
  summary: "The organization's audit log as JSON Lines, streamed",
  description:
    'Every entry the filters match (the same filters as the list), newest first, one AuditEvent JSON object per line (`application/x-ndjson`), streamed as it is read, so any length can be exported. Owners and admins only.',
  tag,
  auth,
  schema: {
    querystring: Type.Object(Filters, { additionalProperties: false }),
    response: { 200: Type.String({ description: 'application/x-ndjson: one AuditEvent per line', 'x-raw': true } as never) },
  },
  handler: async ({ principal, query, deps, reply }) => {
    const events = exportAuditEvents(deps.db, principal, query as AuditQuery);
    const lines = Readable.from(
      (async function* () {
        for await (const e of events) yield `${JSON.stringify(e)}\n`;
      })(),
    );
    void reply
      .status(200)
      .header('Content-Type', 'application/x-ndjson; charset=utf-8')
      .header('Content-Disposition', 'attachment; filename="audit-events.jsonl"')
      .header('Cache-Control', 'no-store')
      .send(lines);
    return 'sent';
  },
});

export const auditRoutes = [listAuditEventsRoute, exportAuditEventsRoute];
