import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { stringify } from 'csv-stringify/sync';
import type { RequestLogRow } from '../../store/request-log.js';
import { exportRequests, listRequests, RequestRecord, toRequestView, type RequestSearch } from '../../request-log/reads.js';
import { defineRoute } from '../route.js';
import { ListOf, PageQuery } from '../schemas.js';

const SEARCH = {
  request_id: Type.Optional(Type.String({ maxLength: 100, description: 'One request, by its id.' })),
  status: Type.Optional(Type.String({ pattern: '^([1-5][0-9]{2}|[1-5]xx)$', description: 'A status (`429`) or a class (`4xx`).' })),
  route: Type.Optional(Type.String({ maxLength: 200, description: 'A path template (`/v1/images`), or method and template (`POST /v1/images`).' })),
  model: Type.Optional(Type.String({ maxLength: 200, description: 'A model id.' })),
  key_id: Type.Optional(Type.String({ maxLength: 100, description: 'An API key id.' })),
  generation_id: Type.Optional(Type.String({ maxLength: 100, description: 'A generation id.' })),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'Requests at or after this time.' })),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'Requests before this time.' })),
};

export const listRequestsRoute = defineRoute({
  method: 'GET',
  path: '/v1/requests',
  operationId: 'listRequests',
  summary: 'Search the request log, newest first',
  description:
    "Every /v1 call of the organization in the caller's mode, refused ones included, within the organization's request log retention. " +
    'The filters search every row, not only a page; page with `limit` and `starting_after` (the last request id of the previous page).',
  tag: 'Requests',
  auth: { role: 'viewer', scope: 'usage:read' },
  schema: {
    querystring: Type.Object({ ...PageQuery, ...SEARCH }, { additionalProperties: false }),
    response: { 200: ListOf(RequestRecord) },
  },
  handler: async ({ query, principal, deps }) => {
    const { rows, hasMore } = await listRequests(deps, principal, { ...(query as RequestSearch), limit: query.limit ?? 20, startingAfter: query.starting_after });
    return { status: 200, body: { object: 'list', data: rows.map(toRequestView), has_more: hasMore } };
  },
});

const CSV_COLUMNS = ['id', 'created_at', 'route', 'status', 'error_code', 'key_id', 'model', 'generation_id', 'latency_ms', 'cost_credits', 'payload_captured'] as const;

const CSV_CAST = { cast: { boolean: (v: boolean) => String(v) } };

export const exportRequestsRoute = defineRoute({
  method: 'GET',
  path: '/v1/requests/export',
  operationId: 'exportRequests',
  summary: 'Export the request log as JSON Lines or CSV',
  description:
    'The rows a search with the same filters finds, all of them, newest first, streamed: one JSON object a line (`format=jsonl`, the default) or CSV with a header line (`format=csv`). ' +
    'The export is read a page at a time as the client reads it, so its size is not limited.',
  tag: 'Requests',
  auth: { role: 'viewer', scope: 'usage:read' },
  schema: {
    querystring: Type.Object(
      { format: Type.Optional(Type.String({ enum: ['jsonl', 'csv'], default: 'jsonl', description: 'jsonl (default) or csv.' })), ...SEARCH },
      { additionalProperties: false },
    ),
    response: { 200: Type.String({ description: 'application/x-ndjson or text/csv', 'x-raw': true } as never) },
  },
  handler: async ({ query, principal, deps, reply }) => {
    const csv = query.format === 'csv';
    const pages = exportRequests(deps, principal, query as RequestSearch);
    // The first page is read before the head is sent, so a bad filter still answers with the error envelope.
    const first = await pages.next();
    async function* lines(): AsyncGenerator<string> {
      if (csv) yield stringify([[...CSV_COLUMNS]]);
      let page: IteratorResult<RequestLogRow[], void> = first;
      while (!page.done) {
        const views = page.value.map(toRequestView);
        yield csv ? stringify(views.map((v) => CSV_COLUMNS.map((c) => v[c])), CSV_CAST) : views.map((v) => JSON.stringify(v)).join('\n') + '\n';
        page = await pages.next();
      }
    }
    void reply
      .status(200)
      .header('Content-Type', csv ? 'text/csv; charset=utf-8' : 'application/x-ndjson')
      .header('Content-Disposition', `attachment; filename="requests.${csv ? 'csv' : 'jsonl'}"`)
      .send(Readable.from(lines()));
    return 'sent';
  },
});
