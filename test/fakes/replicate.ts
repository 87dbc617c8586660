import { randomBytes } from 'node:crypto';
import { bearer, FakeServer, type FakeRequest, type Reply } from './base.js';
import { recordOf, replicateRecordByVersion, schemaViolations, type Violation } from './schemas.js';
import type { UpstreamModelRecord } from '../../src/providers/upstream-record.js';
import { blackPng, fakeGlb, fakeMp3, fakeMp4, fakePng, fakeUpscale, type FakeKind } from './media.js';
import { JobTimeline, runLog, type ProgressSteps } from './progress.js';
import { UpstreamListing } from './listing.js';

/**
 * A loopback Replicate predictions API (https://replicate.com/docs/reference/http)
 * under `/v1`: create by model (`POST /v1/models/{owner}/{name}/predictions`)
 * or by version (`POST /v1/predictions`), get, cancel and list. Predictions
 * go starting → processing → succeeded (or failed) over `jobMs`, or one step
 * a read with `progressSteps` (progress.ts); while processing, `logs` holds
 * what the model printed (its tqdm bars, as Replicate relays them). Outputs are
 * URLs on the fake's CDN, shaped as Replicate models shape them (a list of
 * image URLs, one video URL, an object of files for 3D). Errors are
 * problem+json bodies (`{title, detail, status}`). A prompt containing "nsfw"
 * fails the way Replicate's safety checker fails a prediction.
 * A model (`GET /v1/models/{owner}/{name}`, its latest version's OpenAPI schema) is its record's, or
 * `listing`'s (listing.ts): a removed model is a 404, an added one publishes the input it was added with.
 */
interface Prediction {
  id: string;
  model: string;
  version: string | null;
  input: Record<string, unknown>;
  status: 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled';
  created_at: string;
  completed_at: string | null;
  output: unknown;
  error: string | null;
  logs: string;
  timeline: JobTimeline;
  fail: string | null;
}

function problem(status: number, title: string, detail: string): Reply {
  return { status, headers: { 'content-type': 'application/problem+json' }, body: { title, detail, status } };
}

export interface ReplicateFakeOptions {
  key?: string;
  /** What each model produces (the tests derive it from the catalog). */
  kindOf: (model: string) => FakeKind;
  /** How long a prediction runs. */
  jobMs?: number;
  /** Each read of a prediction moves it one step (starting, then processing), instead of the clock (progress.ts). */
  progressSteps?: ProgressSteps;
}

export class ReplicateFake extends FakeServer {
  readonly predictions = new Map<string, Prediction>();
  /** The requests refused for breaking their model's documented schema, with why. */
  readonly refused: Array<{ model: string; input: Record<string, unknown>; violations: Violation[] }> = [];
  jobMs: number;
  /** For predictions created from now on (see ReplicateFakeOptions). */
  progressSteps: ProgressSteps | undefined;
  /** Predictions a list page holds (Replicate: 100); smaller in tests of paging. */
  pageSize = 100;
  /** While true, predictions stay `processing` (an upstream that takes its time). */
  hold = false;
  private failNext: string[] = [];

  constructor(private readonly opts: ReplicateFakeOptions) {
    super(opts.key ?? 'r8_fake');
    this.jobMs = opts.jobMs ?? 30;
    this.progressSteps = opts.progressSteps;
  }

  get baseUrl(): string {
    return `${this.url}/v1`;
  }

  /** The models Replicate has: the records', less those removed, and those added (their pages; it lists no lifecycle). */
  readonly listing = new UpstreamListing('replicate');

  /** What the fake publishes as a model's schema, changed from the record (an upstream change mmgen has not recorded). */
  readonly drifted = new Map<string, (input: UpstreamModelRecord['input']) => UpstreamModelRecord['input']>();

  /** The next `n` predictions fail with this error. */
  failNextPredictions(n: number, error = 'CUDA out of memory'): void {
    for (let i = 0; i < n; i++) this.failNext.push(error);
  }

  protected async route(req: FakeRequest): Promise<Reply> {
    if (bearer(req) !== this.key && req.headers.authorization !== `Token ${this.key}`) {
      return problem(401, 'Unauthenticated', 'You did not pass a valid authentication token');
    }
    const byModel = /^\/v1\/models\/([^/]+)\/([^/]+)\/predictions$/.exec(req.path);
    if (req.method === 'POST' && byModel) {
      const model = `${decodeURIComponent(byModel[1]!)}/${decodeURIComponent(byModel[2]!)}`;
      const record = recordOf('replicate', model);
      // A model released upstream (listing.add) is Replicate's whatever mmgen records: its published schema judges.
      const published = this.listing.judgedBy(model);
      if (published) return this.create(req, model, null, published);
      // This endpoint serves official models only: a community model (or one Replicate does not have) is not found here.
      if (!record || record.call.official === false) return problem(404, 'Not found', 'The requested resource could not be found.');
      return this.create(req, model, null, record.input);
    }
    if (req.method === 'POST' && req.path === '/v1/predictions') {
      const b = req.json as { version?: unknown } | undefined;
      if (typeof b?.version !== 'string') return problem(422, 'Input validation failed', '- version: version is required');
      const record = replicateRecordByVersion(b.version);
      if (!record) return problem(422, 'Invalid version or not permitted', 'The specified version does not exist (or perhaps you don\'t have permission to use it?)');
      return this.create(req, record.upstream, b.version, record.input);
    }
    // The model's published schema, as Replicate serves it with the model (official) or the version (community).
    const published = /^\/v1\/models\/([^/]+)\/([^/]+)(?:\/versions\/([0-9a-f]{64}))?$/.exec(req.path);
    if (req.method === 'GET' && published) {
      const model = `${published[1]}/${published[2]}`;
      const record = recordOf('replicate', model);
      const schema = record?.input ?? this.listing.get(model)?.input;
      if (!schema || this.listing.removed(model) || (published[3] && record?.call.version !== published[3])) return problem(404, 'Not found', 'The requested resource could not be found.');
      const input = this.drifted.get(model)?.(structuredClone(schema)) ?? schema;
      const components = this.listing.get(model)?.components ?? {};
      const version = { id: record?.call.version ?? 'a'.repeat(64), openapi_schema: { openapi: '3.0.2', components: { schemas: { ...components, Input: input } } } };
      return { status: 200, body: published[3] ? version : { owner: published[1], name: published[2], latest_version: version } };
    }
    if (req.method === 'GET' && req.path === '/v1/predictions') return this.list(req);
    const one = /^\/v1\/predictions\/([^/]+)(\/cancel)?$/.exec(req.path);
    if (one) {
      const p = this.predictions.get(one[1]!);
      if (!p) return problem(404, 'Not found', 'The requested resource could not be found.');
      if (one[2] && req.method === 'POST') {
        await this.advance(p);
        if (p.status === 'starting' || p.status === 'processing') {
          p.status = 'canceled';
          p.completed_at = new Date().toISOString();
        }
        return { status: 200, body: await this.view(p) };
      }
      if (!one[2] && req.method === 'GET') return { status: 200, body: await this.view(p, true) };
    }
    return problem(404, 'Not found', `No route for ${req.method} ${req.path}`);
  }

  private create(req: FakeRequest, model: string, version: string | null, schema: object): Reply {
    const b = req.json as { input?: unknown } | undefined;
    if (!b || typeof b.input !== 'object' || b.input === null) return problem(422, 'Input validation failed', '- input: Invalid type. Expected: object, given: null');
    const input = b.input as Record<string, unknown>;
    // As Replicate does, the input is checked against the model's schema: every fault listed, nothing created.
    const bad = schemaViolations(schema, input);
    if (bad.length > 0) {
      this.refused.push({ model, input, violations: bad });
      return {
        status: 422,
        headers: { 'content-type': 'application/problem+json' },
        body: {
          title: 'Input validation failed',
          detail: bad.map((v) => `- input${v.field ? `.${v.field}` : ''}: ${v.message}`).join('\n'),
          status: 422,
          invalid_fields: bad.map((v) => ({ type: v.keyword, field: `input${v.field ? `.${v.field}` : ''}`, description: v.message })),
        },
      };
    }
    const id = randomBytes(13).toString('base64url').toLowerCase().replace(/[^a-z0-9]/g, 'a').slice(0, 26);
    const prompt = String(input.prompt ?? '');
    const p: Prediction = {
      id, model, version, input, status: 'starting', created_at: new Date().toISOString(), completed_at: null,
      output: null, error: null, logs: '', timeline: new JobTimeline(Date.now(), this.jobMs, this.progressSteps),
      fail: this.failNext.shift() ?? (/nsfw/i.test(prompt) ? 'NSFW content detected. Try running it again, or try a different prompt.' : null),
    };
    this.predictions.set(id, p);
    return { status: 201, body: this.viewSync(p) };
  }

  /**
   * The documented list (predictions.list): the account's predictions, most
   * recent first, `pageSize` (Replicate: 100) a page, `next`/`previous` as
   * URLs carrying an opaque `cursor`, filtered by `created_after` (at or
   * after) and `created_before` (before), ISO 8601; `source=web` is the only
   * source filter Replicate takes (API predictions are then left out).
   */
  private async list(req: FakeRequest): Promise<Reply> {
    const bound = (name: string): number | null | 'bad' => {
      const v = req.query.get(name);
      if (v === null) return null;
      const t = Date.parse(v);
      return Number.isNaN(t) ? 'bad' : t;
    };
    const after = bound('created_after');
    const before = bound('created_before');
    if (after === 'bad' || before === 'bad') return problem(400, 'Invalid query', '- created_after, created_before: must be ISO 8601 date-times');
    const source = req.query.get('source');
    if (source !== null && source !== 'web') return problem(400, 'Invalid query', '- source: must be one of [web]');
    const cursor = req.query.get('cursor');
    const offset = cursor === null ? 0 : Number(Buffer.from(cursor, 'base64url').toString('utf8').replace(/^o=/, ''));
    if (!Number.isInteger(offset) || offset < 0) return problem(400, 'Invalid cursor', 'The cursor is not valid.');
    // Every prediction here was created through the API: a `source=web` list is empty.
    const all = (source === 'web' ? [] : [...this.predictions.values()])
      .filter((p) => (after === null || Date.parse(p.created_at) >= after) && (before === null || Date.parse(p.created_at) < before))
      .reverse();
    const page = all.slice(offset, offset + this.pageSize);
    const link = (at: number) => {
      const u = new URL(`${this.baseUrl}/predictions`);
      for (const name of ['created_after', 'created_before']) if (req.query.get(name) !== null) u.searchParams.set(name, req.query.get(name)!);
      u.searchParams.set('cursor', Buffer.from(`o=${at}`).toString('base64url'));
      return u.toString();
    };
    const results = await Promise.all(page.map((p) => this.view(p)));
    return {
      status: 200,
      body: { next: offset + this.pageSize < all.length ? link(offset + this.pageSize) : null, previous: offset > 0 ? link(Math.max(0, offset - this.pageSize)) : null, results },
    };
  }

  /** Moves a prediction along its timeline (`read`: a get, which moves a stepped one on); renders its output when it succeeds. */
  private async advance(p: Prediction, read = false): Promise<void> {
    if (p.status !== 'starting' && p.status !== 'processing') return;
    const stage = p.timeline.stage(read);
    if (stage.state === 'queued') return;
    p.status = 'processing';
    p.logs = runLog(stage.state === 'running' ? stage.done : 1, Number(p.input.seed ?? 42)).join('\n') + '\n';
    if (this.hold || stage.state !== 'finished') return;
    if (p.fail) {
      p.status = 'failed';
      p.error = p.fail;
    } else {
      p.output = await this.render(p);
      p.status = 'succeeded';
    }
    p.completed_at = new Date().toISOString();
  }

  private async render(p: Prediction): Promise<unknown> {
    const i = p.input;
    const prompt = String(i.prompt ?? 'replicate');
    switch (this.opts.kindOf(p.model)) {
      case 'image': {
        const n = Number(i.num_outputs ?? 1);
        const urls = [];
        for (let k = 0; k < n; k++) urls.push(this.hostFile(await fakePng(prompt, 512, 512, k), 'image/png', 'png'));
        return urls;
      }
      case 'video':
        return this.hostFile(await fakeMp4(prompt, parseFloat(String(i.duration ?? 1))), 'video/mp4', 'mp4');
      case 'audio':
        return this.hostFile(await fakeMp3({ prompt, durationS: parseFloat(String(i.duration ?? 2)) }), 'audio/mpeg', 'mp3');
      case 'speech':
        return this.hostFile(await fakeMp3({ text: String(i.text ?? 'hello') }), 'audio/mpeg', 'mp3');
      case 'mesh': {
        const m = await fakeGlb(prompt);
        return {
          model_file: this.hostFile(m.glb, 'model/gltf-binary', 'glb'),
          color_video: this.hostFile(await fakeMp4(prompt, 1), 'video/mp4', 'mp4'),
          no_background_images: [this.hostFile(m.preview, 'image/png', 'png')],
        };
      }
      case 'upscale':
        if (typeof i.image !== 'string') return this.hostFile(await blackPng(64, 64), 'image/png', 'png');
        return this.hostFile(await fakeUpscale(i.image, Number(i.scale ?? 2)), 'image/png', 'png');
    }
  }

  private viewSync(p: Prediction): Record<string, unknown> {
    return {
      id: p.id, model: p.model, version: p.version ?? 'dp-4d0bcc010b3049749a251855f12800be', input: p.input, logs: p.logs,
      output: p.output, data_removed: false, error: p.error, status: p.status, source: 'api',
      created_at: p.created_at, started_at: p.status === 'starting' ? null : p.created_at, completed_at: p.completed_at,
      urls: { get: `${this.baseUrl}/predictions/${p.id}`, cancel: `${this.baseUrl}/predictions/${p.id}/cancel` },
      metrics: p.completed_at ? { predict_time: this.jobMs / 1000 } : {},
    };
  }

  private async view(p: Prediction, read = false): Promise<Record<string, unknown>> {
    await this.advance(p, read);
    return this.viewSync(p);
  }
}
