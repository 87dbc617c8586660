import { createHash, randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { bearer, FakeServer, type FakeRequest, type Reply } from './base.js';
import { formValues, recordOf, violations, type Violation } from './schemas.js';
import { fakeMp3, fakePng, words } from './media.js';
import { UpstreamListing, type ListedState } from './listing.js';

/**
 * A loopback OpenAI (https://platform.openai.com/docs/api-reference), under
 * `/v1` like the real base URL: chat completions (plain and streamed, with
 * `stream_options.include_usage`), image generations and edits (b64_json, or
 * url for DALL·E with response_format "url"), and speech. It checks what the
 * real API checks that mmgen could get wrong: the bearer key, required fields,
 * the sizes each image model accepts, multipart edits with an image file
 * (checked against the model's recorded edits form, `edits_input`).
 * A prompt containing "forbidden" is refused as the safety system does.
 * Moderations (`POST /v1/moderations`, text and images) score deterministically: see `moderate`.
 * The model list (`GET /v1/models`, one page, each model with its `shutdown_date`) and a model
 * (`GET /v1/models/{model}`) are `listing`'s (listing.ts).
 *
 * `fast: true` answers chat with a canned reply without any work (benches).
 */
const IMAGE_SIZES: Record<string, string[]> = {
  'gpt-image-1': ['1024x1024', '1536x1024', '1024x1536', 'auto'],
  'gpt-image-1-mini': ['1024x1024', '1536x1024', '1024x1536', 'auto'],
  'dall-e-3': ['1024x1024', '1792x1024', '1024x1792'],
  'dall-e-2': ['256x256', '512x512', '1024x1024'],
};

function error(status: number, message: string, type = 'invalid_request_error', code: string | null = null, param: string | null = null): Reply {
  return { status, body: { error: { message, type, param, code } } };
}

export interface OpenAiFakeOptions {
  key?: string;
  fast?: boolean;
  /** The assistant's reply (default: an echo of the last user message). */
  reply?: (messages: Array<{ role: string; content: string }>) => string;
  /**
   * Moderation: a text containing one of these words (whole, any case) scores 0.97 for the OpenAI category it maps
   * to (default: `fakeviolence` → `violence`). Everything else scores under 0.01.
   */
  moderationMarkers?: Record<string, OpenAiModerationCategory>;
}

/** OpenAI's moderation categories (omni-moderation), in its own spelling. */
export const OPENAI_MODERATION_CATEGORIES = [
  'harassment', 'harassment/threatening', 'hate', 'hate/threatening', 'illicit', 'illicit/violent', 'self-harm',
  'self-harm/intent', 'self-harm/instructions', 'sexual', 'sexual/minors', 'violence', 'violence/graphic',
] as const;
export type OpenAiModerationCategory = (typeof OPENAI_MODERATION_CATEGORIES)[number];
/** The categories omni-moderation scores images for (the rest apply to text only). */
const IMAGE_MODERATION_CATEGORIES: ReadonlySet<string> = new Set(['self-harm', 'self-harm/intent', 'self-harm/instructions', 'sexual', 'violence', 'violence/graphic']);
/** The documented moderation models and the snapshot each answers as. */
const MODERATION_MODELS: Record<string, string> = {
  'omni-moderation-latest': 'omni-moderation-2024-09-26',
  'omni-moderation-2024-09-26': 'omni-moderation-2024-09-26',
  'text-moderation-latest': 'text-moderation-007',
  'text-moderation-stable': 'text-moderation-007',
};
/** An image whose top-left pixel is this (pure magenta, within a few levels) scores 0.98 for `sexual`: a marker that needs no such content. */
export const MODERATION_IMAGE_MARKER = { r: 255, g: 0, b: 255 } as const;

export class OpenAiFake extends FakeServer {
  constructor(private readonly opts: OpenAiFakeOptions = {}) {
    super(opts.key ?? 'sk-fake-openai');
  }

  /** The base URL mmgen and the SDK are pointed at. */
  get baseUrl(): string {
    return `${this.url}/v1`;
  }

  /** What `GET /v1/models` lists. */
  readonly listing = new UpstreamListing('openai');

  protected async route(req: FakeRequest): Promise<Reply> {
    if (bearer(req) !== this.key) return error(401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
    const headers = { 'x-request-id': `req_${randomUUID().replace(/-/g, '')}` };
    let reply: Reply;
    const refusal = req.method === 'POST' && req.path !== '/v1/images/edits' && req.path !== '/v1/moderations' ? this.checkModel(req) : null;
    if (refusal) reply = refusal;
    else if (req.method === 'POST' && req.path === '/v1/moderations') reply = await this.moderate(req);
    else if (req.method === 'POST' && req.path === '/v1/chat/completions') reply = this.chat(req);
    else if (req.method === 'POST' && req.path === '/v1/images/generations') reply = await this.images(req, req.json as Record<string, unknown>);
    else if (req.method === 'POST' && req.path === '/v1/images/edits') reply = await this.edits(req);
    else if (req.method === 'POST' && req.path === '/v1/audio/speech') reply = await this.speech(req);
    else if (req.method === 'GET' && req.path.startsWith('/v1/models')) reply = this.models(req.path);
    else reply = error(404, `Invalid URL (${req.method} ${req.path})`);
    return { ...reply, headers: { ...headers, ...reply.headers } };
  }

  /** The requests refused for breaking their model's documented schema, with why. */
  readonly refused: Array<{ model: string; body: unknown; violations: Violation[] }> = [];

  /** The documented list (`{object: "list", data}`, no pagination "yet") and retrieve; a model is {id, object, created, owned_by, shutdown_date}. */
  private models(path: string): Reply {
    const view = (m: ListedState) => ({ id: m.id, object: 'model', created: m.created, owned_by: 'system', shutdown_date: m.shutdown });
    if (path === '/v1/models') return { status: 200, body: { object: 'list', data: this.listing.all().map(view) } };
    const one = /^\/v1\/models\/(.+)$/.exec(path);
    const m = one ? this.listing.get(one[1]!) : undefined;
    if (!m) return error(404, `The model '${one?.[1] ?? ''}' does not exist`, 'invalid_request_error', 'model_not_found', 'model');
    return { status: 200, body: view(m) };
  }

  /**
   * As OpenAI does: an unknown model is a 404, a body outside the model's documented parameters a 400 naming one
   * (an image edit's form is held to the record's edits form).
   */
  private checkModel(req: FakeRequest, form?: Record<string, unknown>): Reply | null {
    const b = form ?? (req.json as Record<string, unknown> | undefined);
    if (!b || typeof b.model !== 'string') return null;
    const record = recordOf('openai', b.model);
    if (!record) return error(404, `The model \`${b.model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found', null);
    if (form && !record.edits_input) return error(400, `The model \`${b.model}\` does not support image edits.`, 'invalid_request_error', 'invalid_value', 'model');
    const bad = violations(record, b, form ? record.edits_input : record.input);
    if (bad.length === 0) return null;
    this.refused.push({ model: b.model, body: b, violations: bad });
    const first = bad[0]!;
    const code = first.keyword === 'additionalProperties' ? 'unknown_parameter' : first.keyword === 'required' ? 'missing_required_parameter' : 'invalid_value';
    const message = code === 'unknown_parameter' ? `Unknown parameter: '${first.field}'.` : `Invalid '${first.field}': ${first.message}.`;
    return error(400, message, 'invalid_request_error', code, first.field);
  }

  private chat(req: FakeRequest): Reply {
    const b = req.json as Record<string, unknown> | undefined;
    if (!b || typeof b.model !== 'string') return error(400, 'you must provide a model parameter', 'invalid_request_error', null, 'model');
    if (!Array.isArray(b.messages) || b.messages.length === 0) return error(400, "Missing required parameter: 'messages'.", 'invalid_request_error', 'missing_required_parameter', 'messages');
    const messages = b.messages as Array<{ role: string; content: string }>;
    const id = `chatcmpl-${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    const created = Math.floor(Date.now() / 1000);
    if (this.opts.fast && !b.stream) {
      return { status: 200, body: { id, object: 'chat.completion', created, model: b.model, choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop', logprobs: null }], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } } };
    }
    const lastUser = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const full = words(this.opts.reply?.(messages) ?? `You said: ${lastUser}`);
    const max = Number(b.max_completion_tokens ?? b.max_tokens ?? Infinity);
    const out = full.slice(0, max);
    const finish = out.length < full.length ? 'length' : 'stop';
    const promptTokens = messages.reduce((n, m) => n + words(String(m.content)).length + 4, 3);
    const usage = { prompt_tokens: promptTokens, completion_tokens: out.length, total_tokens: promptTokens + out.length };
    if (!b.stream) {
      return { status: 200, body: { id, object: 'chat.completion', created, model: b.model, choices: [{ index: 0, message: { role: 'assistant', content: out.join(' ') }, finish_reason: finish, logprobs: null }], usage } };
    }
    const model = b.model;
    const includeUsage = (b.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    const chunk = (delta: unknown, finishReason: string | null) => `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }] })}\n\n`;
    async function* events() {
      yield chunk({ role: 'assistant', content: '' }, null);
      for (const [i, w] of out.entries()) yield chunk({ content: i === 0 ? w : ` ${w}` }, null);
      yield chunk({}, finish);
      if (includeUsage) yield `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage })}\n\n`;
      yield 'data: [DONE]\n\n';
    }
    return { status: 200, stream: events() };
  }

  private async images(req: FakeRequest, b: Record<string, unknown> | undefined, input?: Buffer): Promise<Reply> {
    if (!b || typeof b.prompt !== 'string') return error(400, "Missing required parameter: 'prompt'.", 'invalid_request_error', 'missing_required_parameter', 'prompt');
    const model = String(b.model ?? 'dall-e-2');
    if (b.prompt.includes('forbidden')) return error(400, 'Your request was rejected as a result of our safety system.', 'image_generation_user_error', 'moderation_blocked');
    const size = String(b.size ?? '1024x1024');
    const allowed = IMAGE_SIZES[model];
    if (allowed && !allowed.includes(size)) return error(400, `Invalid value: '${size}'. Supported values are: ${allowed.map((s) => `'${s}'`).join(', ')}.`, 'invalid_request_error', 'invalid_value', 'size');
    if (model.startsWith('gpt-image') && b.response_format !== undefined) return error(400, "Unknown parameter: 'response_format'.", 'invalid_request_error', 'unknown_parameter', 'response_format');
    const [w, h] = (size === 'auto' ? '1024x1024' : size).split('x').map(Number) as [number, number];
    const n = Number(b.n ?? 1);
    const data = [];
    for (let i = 0; i < n; i++) {
      const png = await fakePng(`${b.prompt}${input ? ' (edit)' : ''}`, w, h, i);
      data.push(b.response_format === 'url' ? { url: this.hostFile(png, 'image/png', 'png') } : { b64_json: png.toString('base64') });
    }
    void req;
    return { status: 200, body: { created: Math.floor(Date.now() / 1000), data } };
  }

  private async edits(req: FakeRequest): Promise<Reply> {
    const ct = String(req.headers['content-type'] ?? '');
    if (!ct.startsWith('multipart/form-data')) return error(400, 'The edits endpoint takes multipart/form-data.');
    const form = await new Request('http://fake/', { method: 'POST', headers: { 'content-type': ct }, body: req.body }).formData();
    const image = form.get('image') ?? form.get('image[]');
    if (!(image instanceof Blob)) return error(400, "Missing required parameter: 'image'.", 'invalid_request_error', 'missing_required_parameter', 'image');
    const model = form.get('model');
    const schema = (typeof model === 'string' ? recordOf('openai', model)?.edits_input : undefined) ?? { properties: {} };
    const fields = formValues(form, schema);
    const refusal = this.checkModel(req, fields);
    if (refusal) return refusal;
    if (!['image/png', 'image/jpeg', 'image/webp'].includes(image.type)) return error(400, `Invalid file 'image': unsupported mimetype ('${image.type}').`, 'invalid_request_error', 'unsupported_file', 'image');
    return this.images(req, fields, Buffer.from(await image.arrayBuffer()));
  }

  private async speech(req: FakeRequest): Promise<Reply> {
    const b = req.json as Record<string, unknown> | undefined;
    if (!b || typeof b.input !== 'string' || !b.input) return error(400, "Missing required parameter: 'input'.", 'invalid_request_error', 'missing_required_parameter', 'input');
    if (typeof b.voice !== 'string') return error(400, "Missing required parameter: 'voice'.", 'invalid_request_error', 'missing_required_parameter', 'voice');
    if (b.response_format !== undefined && b.response_format !== 'mp3') return error(400, 'The fake only speaks mp3.');
    return { status: 200, headers: { 'content-type': 'audio/mpeg' }, body: await fakeMp3({ text: b.input }) };
  }

  /**
   * POST /v1/moderations, as documented (openai-node's ModerationCreateParams / ModerationCreateResponse): `input`
   * is a string, an array of strings (one result each), or an array of `{type:'text',text}` and
   * `{type:'image_url',image_url:{url}}` items (one result for all); `model` is optional, one of the documented
   * moderation models; anything else is refused in OpenAI's 400 shape. Images are data URLs here (the fake
   * fetches nothing), and only the omni models take them.
   *
   * Scores: a text with a marker word (`moderationMarkers`) scores 0.97 for its category; an image whose top-left
   * pixel is MODERATION_IMAGE_MARKER scores 0.98 for `sexual`; everything else under 0.01, from a hash of the
   * content. A category is flagged at 0.5 or more; `category_applied_input_types` names the kinds of input
   * that scored it (an image never scores the text-only categories).
   */
  private async moderate(req: FakeRequest): Promise<Reply> {
    const b = req.json;
    const refuse = (status: number, field: string, message: string, code: string | null, keyword: string): Reply => {
      this.refused.push({ model: String((b as { model?: unknown } | undefined)?.model ?? 'omni-moderation-latest'), body: b, violations: [{ field, message, keyword }] });
      return error(status, message, 'invalid_request_error', code, field || null);
    };
    if (b === null || typeof b !== 'object' || Array.isArray(b)) {
      return refuse(400, '', 'We could not parse the JSON body of your request. (HINT: This likely means you aren\'t using your HTTP library correctly.)', null, 'type');
    }
    const body = b as Record<string, unknown>;
    for (const key of Object.keys(body)) if (key !== 'input' && key !== 'model') return refuse(400, key, `Unknown parameter: '${key}'.`, 'unknown_parameter', 'additionalProperties');
    const model = body.model ?? 'omni-moderation-latest';
    if (typeof model !== 'string' || !MODERATION_MODELS[model]) {
      return refuse(400, 'model', `Invalid value for 'model': ${JSON.stringify(model)} is not a moderation model. Supported values are: ${Object.keys(MODERATION_MODELS).map((m) => `'${m}'`).join(', ')}.`, 'invalid_value', 'enum');
    }
    const omni = model.startsWith('omni');
    if (body.input === undefined) return refuse(400, 'input', "Missing required parameter: 'input'.", 'missing_required_parameter', 'required');

    // Each result is scored from parts: a text or an image.
    type Part = { kind: 'text'; text: string } | { kind: 'image'; bytes: Buffer };
    const results: Part[][] = [];
    const input = body.input;
    if (typeof input === 'string') results.push([{ kind: 'text', text: input }]);
    else if (Array.isArray(input) && input.length > 0 && input.every((x) => typeof x === 'string')) {
      for (const text of input as string[]) results.push([{ kind: 'text', text }]);
    } else if (Array.isArray(input) && input.length > 0 && input.every((x) => x !== null && typeof x === 'object' && !Array.isArray(x))) {
      const parts: Part[] = [];
      for (const [i, raw] of (input as Array<Record<string, unknown>>).entries()) {
        const at = `input[${i}]`;
        if (raw.type === 'text') {
          const extra = Object.keys(raw).find((k) => k !== 'type' && k !== 'text');
          if (extra) return refuse(400, `${at}.${extra}`, `Unknown parameter: '${at}.${extra}'.`, 'unknown_parameter', 'additionalProperties');
          if (typeof raw.text !== 'string') return refuse(400, `${at}.text`, `Invalid type for '${at}.text': expected a string.`, 'invalid_type', 'type');
          parts.push({ kind: 'text', text: raw.text });
        } else if (raw.type === 'image_url') {
          const extra = Object.keys(raw).find((k) => k !== 'type' && k !== 'image_url');
          if (extra) return refuse(400, `${at}.${extra}`, `Unknown parameter: '${at}.${extra}'.`, 'unknown_parameter', 'additionalProperties');
          const image = raw.image_url as Record<string, unknown> | undefined;
          if (image === null || typeof image !== 'object' || Array.isArray(image) || typeof image.url !== 'string') {
            return refuse(400, `${at}.image_url.url`, `Missing required parameter: '${at}.image_url.url'.`, 'missing_required_parameter', 'required');
          }
          const extraUrl = Object.keys(image).find((k) => k !== 'url');
          if (extraUrl) return refuse(400, `${at}.image_url.${extraUrl}`, `Unknown parameter: '${at}.image_url.${extraUrl}'.`, 'unknown_parameter', 'additionalProperties');
          if (!omni) return refuse(400, 'input', `The model '${model}' does not support image inputs.`, 'invalid_value', 'model');
          const m = /^data:image\/(png|jpeg|webp|gif);base64,([A-Za-z0-9+/]+={0,2})$/.exec(image.url);
          if (!m) {
            const why = /^https?:\/\//.test(image.url) ? 'the fake classifies data URLs only' : 'expected an image URL or a base64 data URL of a PNG, JPEG, WebP or GIF image';
            return refuse(400, `${at}.image_url.url`, `Invalid '${at}.image_url.url': ${why}.`, 'invalid_value', 'format');
          }
          const bytes = Buffer.from(m[2]!, 'base64');
          const format = await sharp(bytes).metadata().then((meta) => meta.format, () => undefined);
          if (!format) return refuse(400, `${at}.image_url.url`, `Invalid '${at}.image_url.url': the data URL is not a valid image.`, 'invalid_image', 'format');
          parts.push({ kind: 'image', bytes });
        } else {
          return refuse(400, `${at}.type`, `Invalid value: '${String(raw.type)}'. Supported values are: 'text' and 'image_url'.`, 'invalid_value', 'enum');
        }
      }
      results.push(parts);
    } else {
      return refuse(400, 'input', "Invalid type for 'input': expected a string, an array of strings, or an array of objects with `type` 'text' or 'image_url'.", 'invalid_type', 'type');
    }
    return { status: 200, body: { id: `modr-${randomUUID().replace(/-/g, '')}`, model: MODERATION_MODELS[model], results: await Promise.all(results.map((parts) => this.moderationResult(parts, omni))) } };
  }

  private async moderationResult(parts: Array<{ kind: 'text'; text: string } | { kind: 'image'; bytes: Buffer }>, omni: boolean) {
    const markers = Object.entries(this.opts.moderationMarkers ?? { fakeviolence: 'violence' });
    const scores = Object.fromEntries(OPENAI_MODERATION_CATEGORIES.map((c) => [c, 0])) as Record<OpenAiModerationCategory, number>;
    const applied = Object.fromEntries(OPENAI_MODERATION_CATEGORIES.map((c) => [c, [] as string[]])) as Record<OpenAiModerationCategory, string[]>;
    for (const part of parts) {
      const seed = part.kind === 'text' ? part.text : part.bytes.toString('base64');
      const high = new Map<string, number>();
      if (part.kind === 'text') {
        for (const [word, category] of markers) if (new RegExp(`\\b${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i').test(part.text)) high.set(category, 0.97);
      } else {
        const { data } = await sharp(part.bytes).toColourspace('srgb').removeAlpha().extract({ left: 0, top: 0, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true });
        const { r, g, b } = MODERATION_IMAGE_MARKER;
        // Near enough: a JPEG (an upscale's output) shifts a pure colour by a few levels.
        const near = (x: number | undefined, y: number) => x !== undefined && Math.abs(x - y) <= 16;
        if (near(data[0], r) && near(data[1], g) && near(data[2], b)) high.set('sexual', 0.98);
      }
      for (const c of OPENAI_MODERATION_CATEGORIES) {
        if (part.kind === 'image' && !IMAGE_MODERATION_CATEGORIES.has(c)) continue;
        // Under 0.01, the same for the same content.
        const low = createHash('sha256').update(`${c}\u0000${seed}`).digest().readUInt16BE(0) / 65535 / 100;
        scores[c] = Math.max(scores[c], high.get(c) ?? low);
        if (!applied[c].includes(part.kind)) applied[c].push(part.kind);
      }
    }
    // The text models predate `illicit`: OpenAI answers null for it there.
    const categories = Object.fromEntries(OPENAI_MODERATION_CATEGORIES.map((c) => [c, !omni && c.startsWith('illicit') ? null : scores[c] >= 0.5]));
    return {
      flagged: Object.values(categories).some((v) => v === true),
      categories,
      category_scores: Object.fromEntries(OPENAI_MODERATION_CATEGORIES.map((c) => [c, Number(scores[c].toFixed(6))])),
      category_applied_input_types: applied,
    };
  }
}
