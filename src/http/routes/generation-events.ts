import { Type } from '@sinclair/typebox';
import { isTerminal } from '../../generations/views.js';
import { generationOf } from '../../generations/reads.js';
import { selectGeneration } from '../../store/generations.js';
import { generationWatch } from '../../jobs/generation-watch.js';
import { ApiError } from '../../errors.js';
import { defineRoute } from '../route.js';
import { IdParams } from '../schemas.js';
import { generationView } from './generation-route.js';

const PING_MS = 15_000;
const MAX_STREAM_MS = 30 * 60_000;

/**
 * Server-sent events for one generation (contract §5): the current state at
 * once, then each change, as `event: generation` with the generation's
 * version as the event id; the stream ends after a terminal state. A client
 * that reconnects with Last-Event-ID gets only what changed after it.
 *
 * Changes are seen by reading the generation's version from the database
 * (one query per node for all its streams: GenerationWatch), so a stream on
 * one node sees work finished by a worker on any other node.
 *
 * Progress (what the provider reports of a running job) is written on the
 * generation by its runner and bumps the version too; such a change is sent
 * as `event: progress` with that version as its id. When a state change and
 * a later progress write arrive in one look, the state goes first, with the
 * id below the progress's: ids stay increasing, and a resume after either
 * sends only what came after it.
 */
export const generationEvents = defineRoute({
  method: 'GET',
  path: '/v1/generations/{id}/events',
  operationId: 'streamGenerationEvents',
  summary: 'Server-sent events of a generation until it is terminal',
  description:
    'Events `generation` (data: the generation JSON, id: an increasing integer), `progress` while it runs, where the provider reports it ' +
    '(data: `{generation_id, stage, percent?, queue_position?}`), and `: ping` comments. Resume with Last-Event-ID.',
  tag: 'Generations',
  auth: { role: 'viewer', scope: 'generations:read' },
  schema: {
    params: IdParams,
    response: { 200: Type.String({ description: 'text/event-stream', 'x-raw': true } as never) },
  },
  handler: async ({ params, principal, deps, request, reply }) => {
    let g = await generationOf(deps.db, principal, params.id);
    const header = request.headers['last-event-id'];
    let lastSent = 0;
    if (header !== undefined) {
      const raw = Array.isArray(header) ? header[0]! : header;
      if (!/^\d{1,9}$/.test(raw)) throw new ApiError('parameter_invalid', 'Last-Event-ID must be an event id this stream sent (a non-negative integer).', 'Last-Event-ID');
      lastSent = Number(raw);
    }
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      'x-request-id': request.id,
    });
    // Ends the wait for a change when the client goes away or the node starts draining. Linked by hand, and unlinked
    // in `finally`: AbortSignal.any with the process-long drain signal keeps every stream's signal alive for as long
    // as the process runs (nodejs/node#55351, measured here on Node 20.20: about 2.6 kB per stream, never collected).
    const stopping = new AbortController();
    const stop = stopping.signal;
    const end = () => stopping.abort();
    request.raw.on('close', end);
    deps.lifecycle.signal.addEventListener('abort', end, { once: true });
    if (deps.lifecycle.signal.aborted) stopping.abort();
    const watch = generationWatch(deps);
    const started = Date.now();
    let lastWrite = Date.now();
    // The state (status and attempt) of the last generation event sent: a change without a new state is progress only.
    let sentState: string | null = null;
    const send = async () => {
      const p = g.status === 'running' ? g.progress : null;
      const progressIsLatest = p != null && p.version === g.version;
      const state = `${g.status}:${g.attempt}`;
      const stateId = progressIsLatest ? g.version - 1 : g.version;
      if ((!progressIsLatest || state !== sentState) && stateId > lastSent) {
        const view = await generationView(deps, g);
        res.write(`id: ${stateId}\nevent: generation\ndata: ${JSON.stringify(view)}\n\n`);
        lastSent = stateId;
      }
      // Sent now, or seen by the client before it resumed.
      sentState = state;
      if (progressIsLatest && p.version > lastSent) {
        const data = { generation_id: g.id, stage: p.stage, percent: p.percent, queue_position: p.queue_position };
        res.write(`id: ${p.version}\nevent: progress\ndata: ${JSON.stringify(data)}\n\n`);
        lastSent = p.version;
      }
      lastWrite = Date.now();
    };
    try {
      if (g.version > lastSent) await send();
      // A draining node ends its streams; clients reconnect (Last-Event-ID) to another node.
      while (!stop.aborted && !isTerminal(g.status) && Date.now() - started < MAX_STREAM_MS) {
        const untilPing = Math.max(0, PING_MS - (Date.now() - lastWrite));
        const changed = await watch.changed(g.id, g.version, Math.min(untilPing, MAX_STREAM_MS - (Date.now() - started)), stop);
        if (stop.aborted) break;
        if (changed) {
          const fresh = await selectGeneration(deps.db, g.id);
          if (!fresh) break;
          g = fresh;
          if (g.version > lastSent) await send();
        } else if (Date.now() - lastWrite >= PING_MS) {
          res.write(': ping\n\n');
          lastWrite = Date.now();
        }
      }
    } catch (err) {
      request.log.warn({ err, generationId: g.id }, 'event stream ended early');
    } finally {
      deps.lifecycle.signal.removeEventListener('abort', end);
      request.raw.off('close', end);
      res.end();
    }
    return 'sent';
  },
});
