import { randomUUID } from 'node:crypto';
import { FakeServer, type FakeRequest, type Reply } from './base.js';
import { recordOf, schemaViolations, type Violation } from './schemas.js';
import type { UpstreamModelRecord } from '../../src/providers/upstream-record.js';
import { blackPng, fakeGlb, fakeMp3, fakeMp4, fakePng, fakeUpscale, type FakeKind } from './media.js';
import { JobTimeline, runLog, type JobStage, type ProgressSteps } from './progress.js';
import { UpstreamListing, type ListedState } from './listing.js';

/**
 * A loopback fal queue (https://docs.fal.ai/model-apis/model-endpoints/queue)
 * at the queue host: submit (`POST /{endpoint}`), status
 * (`GET /{app}/requests/{id}/status`), result (`GET /{app}/requests/{id}`) and
 * cancel (`PUT /{app}/requests/{id}/cancel`). As on fal, the status, result
 * and cancel URLs are under the app ("owner/alias"), not the full endpoint
 * path: asking under the endpoint path is a 404. Requests go IN_QUEUE (with
 * a falling `queue_position`) → IN_PROGRESS → COMPLETED over `jobMs`, or one
 * step a status read with `progressSteps` (progress.ts). As fal does, the
 * status carries the run's `logs` (`[{message, level, source, timestamp}]`, a
 * diffusion model's tqdm bars) only when asked with `logs=1`. Results carry files as
 * `{url, content_type, …}` objects on the fake's CDN; a prompt containing
 * "nsfw" comes back as a black image with `has_nsfw_concepts: [true]`, as
 * fal's safety checker does.
 *
 * Its platform API's model search (`GET /v1/models`, https://docs.fal.ai/platform-apis/v1/models) lists
 * `listing` (listing.ts): without a key or with the right one (a wrong one is a 401); `limit` (at least 1,
 * `pageSize` by default) and a `cursor` encoding the page number; `endpoint_id` (1–50, repeated) finds those;
 * `status` active or deprecated; `expand=openapi-3.0` inlines each endpoint's OpenAPI document. Its search by
 * `q` and `category` is not played here. A removed endpoint's OpenAPI document is a 404.
 */
interface QueueRequest {
  id: string;
  app: string;
  endpoint: string;
  input: Record<string, unknown>;
  createdAt: number;
  timeline: JobTimeline;
  canceled: boolean;
  fail: string | null;
  result?: unknown;
}

function detail(status: number, message: string | unknown[]): Reply {
  return { status, body: { detail: message } };
}

export interface FalFakeOptions {
  key?: string;
  kindOf: (endpoint: string) => FakeKind;
  jobMs?: number;
  /** Each status read moves a request one step (queued, then running), instead of the clock (progress.ts). */
  progressSteps?: ProgressSteps;
}

const NAMESPACES = new Set(['workflows', 'comfy']);

export class FalFake extends FakeServer {
  readonly queue = new Map<string, QueueRequest>();
  /** What the fake publishes as an endpoint's schema, changed from the record (an upstream change mmgen has not recorded). */
  readonly drifted = new Map<string, (input: UpstreamModelRecord['input']) => UpstreamModelRecord['input']>();
  /** The requests refused for breaking their endpoint's documented schema, with why. */
  readonly refused: Array<{ endpoint: string; input: Record<string, unknown>; violations: Violation[] }> = [];
  jobMs: number;
  /** For requests submitted from now on (see FalFakeOptions). */
  progressSteps: ProgressSteps | undefined;
  hold = false;
  private failNext: string[] = [];

  constructor(private readonly opts: FalFakeOptions) {
    super(opts.key ?? 'fal-fake-key');
    this.jobMs = opts.jobMs ?? 30;
    this.progressSteps = opts.progressSteps;
  }

  get baseUrl(): string {
    return this.url;
  }

  /** What the platform API's `GET /v1/models` lists. */
  readonly listing = new UpstreamListing('fal');
  /** Models a page of that list holds when the request names no `limit`. */
  pageSize = 20;

  failNextRequests(n: number, message = 'Internal server error'): void {
    for (let i = 0; i < n; i++) this.failNext.push(message);
  }

  protected async route(req: FakeRequest): Promise<Reply> {
    // The platform API takes a key for higher rate limits, and answers without one.
    if (req.method === 'GET' && req.path === '/v1/models') {
      if (req.headers.authorization !== undefined && req.headers.authorization !== `Key ${this.key}`) return detail(401, 'Unauthorized');
      return this.models(req);
    }
    if (req.headers.authorization !== `Key ${this.key}`) return detail(401, 'Unauthorized');
    const m = /^\/(.+)\/requests\/([^/]+)(\/status|\/cancel)?$/.exec(req.path);
    if (m) {
      const q = this.queue.get(m[2]!);
      if (!q || q.app !== m[1]) return detail(404, 'Request not found');
      const status = m[3] === '/status' && req.method === 'GET';
      const stage = q.timeline.stage(status);
      const state = this.state(q, stage);
      if (status) {
        const body: Record<string, unknown> = { status: state, request_id: q.id, response_url: `${this.url}/${q.app}/requests/${q.id}` };
        if (state === 'IN_QUEUE' && stage.state === 'queued') body.queue_position = stage.ahead;
        // fal sends the run's log lines only to a status request that asks for them.
        const logs = req.query.get('logs') === '1';
        body.logs = !logs ? null : state === 'IN_QUEUE' ? [] : this.logs(q, stage);
        if (state === 'COMPLETED') body.metrics = { inference_time: this.jobMs / 1000 };
        return { status: state === 'COMPLETED' ? 200 : 202, body };
      }
      if (m[3] === '/cancel' && req.method === 'PUT') {
        if (state === 'COMPLETED') return { status: 400, body: { status: 'ALREADY_COMPLETED' } };
        q.canceled = true;
        return { status: 202, body: { status: 'CANCELLATION_REQUESTED' } };
      }
      if (!m[3] && req.method === 'GET') {
        if (state !== 'COMPLETED') return detail(400, 'Request is still in progress');
        if (q.canceled) return detail(400, 'Request was cancelled');
        if (q.fail) return detail(500, q.fail);
        q.result ??= await this.render(q);
        return { status: 200, body: q.result, headers: { 'x-fal-request-id': q.id } };
      }
      return detail(405, 'Method not allowed');
    }
    // fal's per-endpoint OpenAPI document (served at fal.ai/api in production; here beside the queue).
    if (req.method === 'GET' && req.path === '/openapi/queue/openapi.json') {
      const endpoint = req.query.get('endpoint_id') ?? '';
      const doc = this.openapi(endpoint);
      return doc ? { status: 200, body: doc } : detail(404, `Endpoint '${endpoint}' not found`);
    }
    if (req.method !== 'POST') return detail(404, 'Not found');
    const endpoint = req.path.slice(1);
    // An endpoint released upstream (listing.add) is fal's whatever mmgen records: its published schema judges.
    const schema = this.listing.judgedBy(endpoint) ?? recordOf('fal', endpoint)?.input;
    if (!endpoint.includes('/') || !schema) return detail(404, `Application '${endpoint}' not found`);
    if (typeof req.json !== 'object' || req.json === null) return detail(422, [{ loc: ['body'], msg: 'field required', type: 'value_error.missing' }]);
    // As fal does, the input is checked against the endpoint's schema (pydantic-style detail: one entry per fault).
    const bad = schemaViolations(schema, req.json);
    if (bad.length > 0) {
      this.refused.push({ endpoint, input: req.json as Record<string, unknown>, violations: bad });
      return detail(422, bad.map((v) => ({ loc: ['body', ...(v.field ? v.field.split('.') : [])], msg: v.message, type: `value_error.${v.keyword}` })));
    }
    const parts = endpoint.split('/');
    const app = (NAMESPACES.has(parts[0]!) ? parts.slice(0, 3) : parts.slice(0, 2)).join('/');
    const id = randomUUID();
    const now = Date.now();
    const timeline = new JobTimeline(now, this.jobMs, this.progressSteps);
    this.queue.set(id, { id, app, endpoint, input: req.json as Record<string, unknown>, createdAt: now, timeline, canceled: false, fail: this.failNext.shift() ?? null });
    const base = `${this.url}/${app}/requests/${id}`;
    const first = timeline.stage(false);
    return { status: 200, body: { request_id: id, response_url: base, status_url: `${base}/status`, cancel_url: `${base}/cancel`, queue_position: first.state === 'queued' ? first.ahead : 0 } };
  }

  /** An endpoint's OpenAPI document: its record's input (or the drifted one), or what an added endpoint publishes. */
  private openapi(endpoint: string): object | undefined {
    if (this.listing.removed(endpoint)) return undefined;
    const record = recordOf('fal', endpoint);
    const published = record?.input ?? this.listing.get(endpoint)?.input;
    if (!published) return undefined;
    const input = this.drifted.get(endpoint)?.(structuredClone(published)) ?? published;
    return {
      openapi: '3.0.4',
      paths: { [`/${endpoint}`]: { post: { requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Input' } } } } } } },
      components: { schemas: { ...(this.listing.get(endpoint)?.components ?? {}), Input: input } },
    };
  }

  private models(req: FakeRequest): Reply {
    const invalid = (loc: string, msg: string) => detail(422, [{ loc: ['query', loc], msg, type: 'value_error' }]);
    const limitText = req.query.get('limit');
    const limit = limitText === null ? this.pageSize : Number(limitText);
    if (limitText !== null && (!/^\d+$/.test(limitText) || limit < 1)) return invalid('limit', 'ensure this value is greater than or equal to 1');
    const cursor = req.query.get('cursor');
    const pageNumber = cursor === null ? 1 : Number(Buffer.from(cursor, 'base64').toString('utf8'));
    if (!Number.isInteger(pageNumber) || pageNumber < 1) return invalid('cursor', 'invalid cursor');
    const status = req.query.get('status');
    if (status !== null && status !== 'active' && status !== 'deprecated') return invalid('status', "value is not a valid enumeration member; permitted: 'active', 'deprecated'");
    const ids = req.query.getAll('endpoint_id');
    if (ids.length > 50) return invalid('endpoint_id', 'at most 50 endpoint ids');
    const expand = req.query.getAll('expand');
    const wrong = expand.find((e) => e !== 'openapi-3.0' && e !== 'enterprise_status');
    if (wrong !== undefined) return invalid('expand', `unknown expansion '${wrong}'`);
    // fal's statuses are active and deprecated: a retired endpoint is no longer listed.
    const all = this.listing.all().filter((m) => m.status !== 'retired' && (status === null || m.status === status) && (ids.length === 0 || ids.includes(m.id)));
    const page = all.slice((pageNumber - 1) * limit, pageNumber * limit);
    const more = pageNumber * limit < all.length;
    const view = (m: ListedState) => ({
      endpoint_id: m.id,
      metadata: {
        display_name: m.id, category: null, description: '', status: m.status, tags: [], updated_at: new Date(m.created * 1000).toISOString(),
        is_favorited: false, thumbnail_url: null, model_url: `https://fal.run/${m.id}`, date: new Date(m.created * 1000).toISOString(), highlighted: false, pinned: false,
      },
      ...(expand.includes('openapi-3.0') ? { openapi: this.openapi(m.id) ?? null } : {}),
    });
    return { status: 200, body: { models: page.map(view), next_cursor: more ? Buffer.from(String(pageNumber + 1)).toString('base64') : null, has_more: more } };
  }

  private state(q: QueueRequest, stage: JobStage): 'IN_QUEUE' | 'IN_PROGRESS' | 'COMPLETED' {
    if (q.canceled) return 'COMPLETED';
    if (stage.state === 'queued') return 'IN_QUEUE';
    if (this.hold || stage.state === 'running') return 'IN_PROGRESS';
    return 'COMPLETED';
  }

  /** The run's log lines so far, as fal's status lists them. */
  private logs(q: QueueRequest, stage: JobStage): Array<{ message: string; level: string; source: string; timestamp: string }> {
    const done = stage.state === 'running' ? stage.done : 1;
    const started = q.createdAt + this.jobMs / 3;
    return runLog(done, Number(q.input.seed ?? 42)).map((message, i) => ({ message, level: 'INFO', source: 'USER', timestamp: new Date(started + i).toISOString() }));
  }

  private async render(q: QueueRequest): Promise<unknown> {
    const i = q.input;
    const prompt = String(i.prompt ?? i.text ?? 'fal');
    const file = (bytes: Buffer, mime: string, ext: string, extra: Record<string, unknown> = {}) => ({
      url: this.hostFile(bytes, mime, ext), content_type: mime, file_name: `output.${ext}`, file_size: bytes.length, ...extra,
    });
    switch (this.opts.kindOf(q.endpoint)) {
      case 'image': {
        const n = Number(i.num_images ?? 1);
        const size = (i.image_size ?? { width: 512, height: 512 }) as { width: number; height: number };
        const nsfw = /nsfw/i.test(prompt);
        const images = [];
        for (let k = 0; k < n; k++) {
          const png = nsfw ? await blackPng(size.width, size.height) : await fakePng(prompt, size.width, size.height, k);
          images.push(file(png, 'image/png', 'png', { width: size.width, height: size.height }));
        }
        return { images, seed: Number(i.seed ?? 42), has_nsfw_concepts: images.map(() => nsfw), prompt, timings: { inference: 0.01 } };
      }
      case 'video':
        return { video: file(await fakeMp4(prompt, parseFloat(String(i.duration ?? 1))), 'video/mp4', 'mp4') };
      case 'audio':
        return { audio: file(await fakeMp3({ prompt, durationS: parseFloat(String(i.duration ?? i.seconds_total ?? 2)) }), 'audio/mpeg', 'mp3') };
      case 'speech':
        return { audio: file(await fakeMp3({ text: String(i.text ?? 'hello') }), 'audio/mpeg', 'mp3') };
      case 'mesh': {
        const m = await fakeGlb(prompt);
        return { model_mesh: file(m.glb, 'model/gltf-binary', 'glb'), timings: { inference: 0.01 } };
      }
      case 'upscale': {
        const src = typeof i.image_url === 'string' ? i.image_url : undefined;
        const scale = Number(i.scale ?? i.upscale_factor ?? 2);
        const png = src ? await fakeUpscale(src, scale) : await blackPng(64, 64);
        return { image: file(png, 'image/png', 'png') };
      }
    }
  }
}
