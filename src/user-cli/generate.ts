import {
  isTerminal,
  MODALITY_ENDPOINTS,
  type ChatCompletionCreateParams,
  type Comparison,
  type Generation,
  type GenerationCreateParams,
  type Modality,
  type RequestOptions,
} from '../../sdk/src/index.js';
import { defined, int, list, num, params, parse, str, UsageError, type OptionSpec, type Values } from './args.js';
import { note, printJson, say, table, type Context } from './context.js';
import { warnIfDeprecated } from './deprecation.js';
import { download, extensionOf, outPaths, primaryOutputs, readInput } from './files.js';
import { progress } from './progress.js';

type FieldKind = 'string' | 'int' | 'number' | 'bool';
interface Field {
  flag: string;
  field: string;
  kind: FieldKind;
}

const f = (flag: string, kind: FieldKind = 'string', field = flag.replace(/-/g, '_')): Field => ({ flag, field, kind });

/** The dedicated flags of each modality; anything else goes through --param key=value. */
const FIELDS: Record<Modality, Field[]> = {
  image: [f('prompt'), f('negative-prompt'), f('num-outputs', 'int'), f('width', 'int'), f('height', 'int')],
  video: [f('prompt'), f('duration', 'int', 'duration_s'), f('aspect-ratio')],
  voice: [f('text'), f('prompt', 'string', 'text'), f('voice-id'), f('language'), f('speed', 'number')],
  music: [f('prompt'), f('duration', 'int', 'duration_s'), f('with-vocals', 'bool'), f('lyrics')],
  avatar: [f('text'), f('prompt', 'string', 'text'), f('voice-id'), f('audio-url')],
  chat: [f('max-tokens', 'int'), f('temperature', 'number')],
  '3d': [f('prompt'), f('format')],
  upscale: [f('scale', 'int'), f('face-restore', 'bool')],
};

const MODALITY_NAMES: Record<string, Modality> = {
  image: 'image', images: 'image', video: 'video', videos: 'video', voice: 'voice', tts: 'voice', music: 'music',
  avatar: 'avatar', avatars: 'avatar', chat: 'chat', '3d': '3d', 'three-d': '3d', upscale: 'upscale',
};

/** Flags of `generate` whatever the modality. */
const COMMON: OptionSpec = {
  model: { type: 'string', short: 'm' },
  seed: { type: 'string' },
  param: { type: 'string', multiple: true },
  simulate: { type: 'string' },
  input: { type: 'string', short: 'i' },
  'image-url': { type: 'string' },
  'no-cache': { type: 'boolean' },
  wait: { type: 'boolean', short: 'w' },
  timeout: { type: 'string' },
  out: { type: 'string', short: 'o' },
  'out-dir': { type: 'string' },
  'idempotency-key': { type: 'string' },
};

export const GENERATE_USAGE = `mmgen generate <modality> --model M [flags]      modality: image video voice music avatar chat 3d upscale
  --prompt P                 the prompt (voice, avatar: the text to speak; chat: the user message)
  --input FILE               an image input (uploaded first: upscale, avatars, image-to-image/video/3D)
  --image-url URL            an image input mmgen fetches itself
  --seed N  --no-cache       reproducible results; --no-cache never answers from the cache
  --param key=value          any other request field (value read as JSON when it is JSON)
  --simulate JSON            steer the simulator, e.g. '{"outcome":"failure"}' or '{"delay_ms":3000}'
  --wait                     wait for asynchronous work to finish, with a progress indicator on stderr
  --timeout SECONDS          give up waiting after this long (default 1800)
  --out FILE                 save the result there (FILE-1.png, FILE-2.png… for several); implies --wait
  --out-dir DIR              save every output, thumbnails included, into DIR; implies --wait
  --idempotency-key K        your own key, to retry this very command safely
  --json                     print the API's JSON (the generation) on stdout
  --quiet                    no progress, no remarks
  image: --negative-prompt --num-outputs --width --height    video: --duration --aspect-ratio
  voice: --text --voice-id --language --speed                 music: --duration --with-vocals --lyrics
  avatar: --text --voice-id --audio-url                       chat: --system --max-tokens --temperature --stream
  3d: --format                                                upscale: --scale --face-restore`;

export const COMPARE_USAGE = `mmgen compare --models A,B[,C…] [--prompt P] [--param key=value…] [--input FILE] [--wait] [--out-dir DIR] [--json]
  one prompt to several models of one modality; --param fields apply to every model`;

function fieldValue(v: Values[string], field: Field): unknown {
  if (v === undefined) return undefined;
  switch (field.kind) {
    case 'int':
      return int(v, field.flag);
    case 'number':
      return num(v, field.flag);
    case 'bool':
      return v === true;
    default:
      return v;
  }
}

function simulateOf(v: Values[string]): unknown {
  const raw = str(v);
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new UsageError('--simulate takes JSON, e.g. \'{"delay_ms":3000}\'');
  }
}

function waitTimeout(v: Values[string]): number {
  const seconds = num(v, 'timeout');
  return seconds === undefined ? 30 * 60_000 : seconds * 1000;
}

/** Creates the generation; a deprecated model's answer says so on stderr (its Deprecation header). */
async function create(ctx: Context, modality: Modality, body: Record<string, unknown>, opts: RequestOptions): Promise<Generation> {
  // The server validates the body; the cast only hands the CLI's assembled fields over. The SDK posts it to the
  // modality's endpoint as the server declares it (MODALITY_ENDPOINTS).
  const { data, response } = await ctx.sdk().generations.create({ ...body, modality } as GenerationCreateParams, opts).withResponse();
  warnIfDeprecated(ctx, response);
  return data;
}

/** Uploads `--input FILE` and gives its upload id. */
async function uploadInput(ctx: Context, path: string): Promise<string> {
  const upload = await ctx.sdk().uploads.upload(readInput(path));
  note(ctx, `uploaded ${path} as ${upload.id} (${upload.width}×${upload.height})`);
  return upload.id;
}

/** Waits on a generation with the progress indicator. */
export async function waitWithProgress(ctx: Context, g: Generation, timeout: number): Promise<Generation> {
  if (isTerminal(g.status)) return g;
  const p = progress(ctx.stderr, { quiet: ctx.quiet });
  p.update(g.id, g.status);
  try {
    return await ctx.sdk().generations.wait(g, { timeout, onUpdate: (x) => p.update(x.id, x.status) });
  } finally {
    p.done();
  }
}

export function describeGeneration(g: Generation): string {
  const credits = g.livemode ? `charged ${g.charged_credits} credits` : 'test mode, no credits';
  return `${g.id}  ${g.status}  ${g.modality}  ${g.model}  ${credits}${g.cache_hit ? '  (cache hit)' : ''}`;
}

/** Saves outputs as --out / --out-dir ask, and reports the paths. */
export async function saveOutputs(ctx: Context, g: Generation, out: string | undefined, outDir: string | undefined, name = g.id): Promise<string[]> {
  const saved: string[] = [];
  if (out) {
    const outputs = primaryOutputs(g);
    const paths = outPaths(out, outputs);
    for (const [i, o] of outputs.entries()) {
      const size = await download(o.url, paths[i]!);
      saved.push(paths[i]!);
      note(ctx, `saved ${paths[i]} (${o.mime}, ${size} bytes)`);
    }
  }
  if (outDir) {
    for (const [i, o] of g.outputs.entries()) {
      const path = `${outDir.replace(/\/+$/, '')}/${name}-${i + 1}-${o.type}${extensionOf(o.mime)}`;
      const size = await download(o.url, path);
      saved.push(path);
      note(ctx, `saved ${path} (${o.mime}, ${size} bytes)`);
    }
  }
  return saved;
}

/** Prints a generation (JSON or a summary), saves what was asked, and gives the exit code: 1 when it failed. */
export async function report(ctx: Context, g: Generation, out?: string, outDir?: string): Promise<number> {
  if (ctx.json) printJson(ctx, g);
  else {
    say(ctx, describeGeneration(g));
    if (g.message) say(ctx, g.message.content);
    if (!out && !outDir) for (const o of g.outputs) say(ctx, `  ${o.type.padEnd(9)} ${o.mime.padEnd(17)} ${o.url}`);
  }
  if (g.status === 'succeeded') {
    await saveOutputs(ctx, g, out, outDir);
    return 0;
  }
  if (!isTerminal(g.status)) {
    note(ctx, `${g.id} is ${g.status}; follow it with: mmgen generations wait ${g.id}`);
    return 0;
  }
  ctx.stderr.write(`mmgen: ${g.id} ${g.status}${g.error ? `: ${g.error.message}` : ''}${g.status === 'failed' ? ' (its credits were refunded)' : ''}\n`);
  return 1;
}

export async function generate(ctx: Context, args: string[]): Promise<number> {
  const [name, ...rest] = args;
  const modality = name ? MODALITY_NAMES[name] : undefined;
  if (!modality) throw new UsageError(name ? `unknown modality: ${name}` : 'which modality? mmgen generate image|video|voice|music|avatar|chat|3d|upscale');
  const own: OptionSpec = Object.fromEntries(FIELDS[modality].map((fl) => [fl.flag, { type: fl.kind === 'bool' ? 'boolean' : 'string' }]));
  if (modality === 'chat') Object.assign(own, { prompt: { type: 'string' }, system: { type: 'string' }, stream: { type: 'boolean' } });
  const { values: v } = parse(rest, { ...COMMON, ...own }, { min: 0, max: 0, names: '' });
  const model = str(v.model);
  if (!model) throw new UsageError('--model is required (see: mmgen models list)');

  const body: Record<string, unknown> = defined({
    model,
    seed: int(v.seed, 'seed'),
    cache: v['no-cache'] === true ? false : undefined,
    image_url: str(v['image-url']),
    simulate: simulateOf(v.simulate),
  });
  for (const fl of FIELDS[modality]) {
    const value = fieldValue(v[fl.flag], fl);
    if (value !== undefined) body[fl.field] = value;
  }
  if (modality === 'chat') {
    const prompt = str(v.prompt);
    if (!prompt) throw new UsageError('--prompt is required for chat (the user message)');
    const system = str(v.system);
    body.messages = [...(system ? [{ role: 'system', content: system }] : []), { role: 'user', content: prompt }];
  }
  Object.assign(body, params(v.param));
  const inputPath = str(v.input);
  if (inputPath) body.upload_id = await uploadInput(ctx, inputPath);
  const opts: RequestOptions = defined({ idempotencyKey: str(v['idempotency-key']) });

  if (modality === 'chat' && v.stream === true) return streamChat(ctx, body, opts);

  const out = str(v.out);
  const outDir = str(v['out-dir']);
  let g = await create(ctx, modality, body, opts);
  if ((v.wait === true || out || outDir) && !MODALITY_ENDPOINTS[modality].sync) g = await waitWithProgress(ctx, g, waitTimeout(v.timeout));
  return report(ctx, g, out, outDir);
}

/**
 * `generate chat --stream`: the reply printed as it is written, through /v1/chat/completions. No deprecation warning:
 * the SDK's ChatCompletionStream does not expose its response's headers (only its request id).
 */
async function streamChat(ctx: Context, body: Record<string, unknown>, opts: RequestOptions): Promise<number> {
  const { model, messages, max_tokens, temperature, seed, simulate, ...rest } = body;
  const request = { ...rest, ...defined({ model, messages, max_tokens, temperature, seed, simulate }), stream: true, stream_options: { include_usage: true } };
  const stream = await ctx.sdk().chat.completions.create(request as ChatCompletionCreateParams & { stream: true }, opts);
  const chunks: unknown[] = [];
  for await (const chunk of stream) {
    if (ctx.json) chunks.push(chunk);
    else ctx.stdout.write(chunk.choices[0]?.delta.content ?? '');
  }
  if (ctx.json) printJson(ctx, chunks);
  else ctx.stdout.write('\n');
  return 0;
}

export async function compare(ctx: Context, args: string[]): Promise<number> {
  const { values: v } = parse(
    args,
    {
      models: { type: 'string', multiple: true },
      prompt: { type: 'string', short: 'p' },
      param: { type: 'string', multiple: true },
      simulate: { type: 'string' },
      input: { type: 'string', short: 'i' },
      wait: { type: 'boolean', short: 'w' },
      timeout: { type: 'string' },
      'out-dir': { type: 'string' },
      'idempotency-key': { type: 'string' },
    },
    { min: 0, max: 0, names: '' },
  );
  const models = list(v.models);
  if (!models || models.length < 2) throw new UsageError('--models needs two or more model slugs, e.g. --models flux-schnell,recraft-v3');
  const childParams = params(v.param);
  const inputPath = str(v.input);
  if (inputPath) childParams.upload_id = await uploadInput(ctx, inputPath);
  const body = defined({ models, prompt: str(v.prompt), params: Object.keys(childParams).length ? childParams : undefined, simulate: simulateOf(v.simulate) });
  const outDir = str(v['out-dir']);
  const created = await ctx.sdk().comparisons.create(body as never, defined({ idempotencyKey: str(v['idempotency-key']) })).withResponse();
  warnIfDeprecated(ctx, created.response);
  let cmp = created.data;
  if (v.wait === true || outDir) cmp = await waitComparison(ctx, cmp, waitTimeout(v.timeout));
  return reportComparison(ctx, cmp, outDir);
}

export async function waitComparison(ctx: Context, cmp: Comparison, timeout: number): Promise<Comparison> {
  if (cmp.status === 'completed') return cmp;
  const p = progress(ctx.stderr, { quiet: ctx.quiet });
  for (const g of cmp.generations) p.update(g.model, g.status);
  try {
    return await ctx.sdk().comparisons.wait(cmp, { timeout, onChildDone: (c) => p.update(c.model, c.status) });
  } finally {
    p.done();
  }
}

export async function reportComparison(ctx: Context, cmp: Comparison, outDir?: string): Promise<number> {
  if (ctx.json) printJson(ctx, cmp);
  else {
    say(ctx, `${cmp.id}  ${cmp.status}  ${cmp.modality}  reserved ${cmp.reserved_credits} credits`);
    say(ctx, table(cmp.generations.map((g) => [`  ${g.model}`, g.id, g.status, g.livemode ? `${g.charged_credits} credits` : 'test mode', g.outputs[0]?.url ?? ''])));
  }
  if (cmp.status !== 'completed') {
    note(ctx, `${cmp.id} is ${cmp.status}; follow it with: mmgen comparisons wait ${cmp.id}`);
    return 0;
  }
  if (outDir) for (const g of cmp.generations) if (g.status === 'succeeded') await saveOutputs(ctx, g, undefined, outDir, g.model);
  return cmp.generations.every((g) => g.status === 'succeeded') ? 0 : 1;
}
