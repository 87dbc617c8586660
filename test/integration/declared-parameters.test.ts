import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Modality } from '../../src/catalog/index.js';
import { fakePng } from '../fakes/media.js';
import { modalityPaths } from '../helpers/catalog.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';
import { putToUploadUrl } from '../helpers/uploads.js';

/**
 * A model's `parameters` are exactly what it accepts (contract §3a, issue 28 item 5): for every active model, as
 * GET /v1/models serves it, every declared field at each of its boundaries (minimum, maximum, every enum value, the
 * default, the shortest and longest text) is accepted; a value just outside each range, an enum value the model
 * does not declare, a text one character too long or too short, a field it does not declare, a made-up field, a
 * request missing one of "one of these" fields (a prompt or an input image; an avatar's text or audio) or giving
 * two exclusive ones is refused with 400 naming the field. And the declared schema itself, checked by a JSON Schema
 * validator as a client would, gives the same verdict as the server for each request.
 *
 * Test keys (the simulator plays the first route that takes the request, as a live key's first configured route
 * would). Nothing is rendered: there is no worker, so an accepted asynchronous request stays queued (202), and a
 * synchronous one is failed by the simulator at once (`simulate.outcome: "failure"`: 502 naming the generation that
 * was accepted).
 */
let PATHS: Record<Modality, string>;

interface FieldSchema {
  type?: string | string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  default?: unknown;
  format?: string;
}
interface Parameters {
  properties: Record<string, FieldSchema>;
  required?: string[];
  anyOf?: Array<{ required: string[] }>;
  oneOf?: Array<{ required: string[] }>;
  allOf?: Parameters[];
  [k: string]: unknown;
}
interface ModelEntry {
  slug: string;
  modality: Modality;
  parameters: Parameters;
}

/** Real inputs for the fields that name a file: their values are not boundaries, they must resolve. */
interface Inputs {
  upload_id: string;
  image_url: string;
  audio_upload_id: string;
  audio_url: string;
}
const INPUT_FIELDS = new Set<string>(['upload_id', 'image_url', 'audio_upload_id', 'audio_url']);
const OWN_FIELDS = new Set(['model', 'simulate', 'cache']);

interface Case {
  name: string;
  body: Record<string, unknown>;
  /** Accepted; or refused with 400 naming one of these fields. */
  expect: 'accepted' | { refusedNaming: string[] };
  /** Sent with an input image beside fields that only some routes take (see the test). */
  withImage?: boolean;
}

/** A text of exactly `length` characters (words, so that it reads as a prompt). */
const text = (length: number) => 'Waves roll onto a quiet shore at dusk. '.repeat(Math.ceil(length / 39) + 1).slice(0, length);

const SAMPLES: Record<string, unknown> = {
  messages: [{ role: 'user', content: 'Say hello.' }],
  lyrics: '[verse]\nWaves on the shore, a calm piano song',
  language: 'en',
};

/** A value the field accepts: its default, its first enum value, its minimum, a sample text as long as it must be. */
function sample(field: string, schema: FieldSchema, inputs: Inputs): unknown {
  if (field in inputs) return inputs[field as keyof Inputs];
  if (schema.default !== undefined) return schema.default;
  if (schema.enum) return schema.enum[0];
  if (field in SAMPLES) return SAMPLES[field];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'integer' || type === 'number') return schema.minimum ?? 1;
  if (type === 'boolean') return false;
  return text(Math.max(schema.minLength ?? 1, Math.min(20, schema.maxLength ?? 20)));
}

/** The "one of these" rules of a model's parameters (anyOf: at least one; oneOf: exactly one). */
function rulesOf(p: Parameters): Array<{ fields: string[]; exclusive: boolean }> {
  return [p, ...(p.allOf ?? [])].flatMap((part) => [
    ...(part.anyOf ? [{ fields: part.anyOf.map((b) => b.required[0]!), exclusive: false }] : []),
    ...(part.oneOf ? [{ fields: part.oneOf.map((b) => b.required[0]!), exclusive: true }] : []),
  ]);
}

const typeOf = (s: FieldSchema) => (Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type);

/** The values each declared field is accepted at, and those just outside that are refused. */
function boundaries(field: string, schema: FieldSchema, modalityField: FieldSchema | undefined): { inside: unknown[]; outside: unknown[] } {
  const type = typeOf(schema);
  if (schema.enum) {
    const numeric = schema.enum.every((v) => typeof v === 'number');
    // Values the modality has and the model does not, then one no model has.
    const undeclared = (modalityField?.enum ?? []).filter((v) => !schema.enum!.includes(v));
    const foreign = numeric ? Math.max(...(schema.enum as number[])) + 1 : 'not-a-value';
    return { inside: schema.enum, outside: [...undeclared, foreign] };
  }
  if (type === 'integer' || type === 'number') {
    const step = schema.multipleOf ?? (type === 'integer' ? 1 : 0.1);
    const round = (n: number) => Number(n.toFixed(6));
    const inside = [schema.minimum, schema.maximum, schema.default].filter((v): v is number => typeof v === 'number');
    const outside = [
      ...(typeof schema.minimum === 'number' ? [round(schema.minimum - step)] : []),
      ...(typeof schema.maximum === 'number' ? [round(schema.maximum + step)] : []),
    ];
    return { inside: [...new Set(inside)], outside };
  }
  if (type === 'boolean') return { inside: [true, false], outside: ['yes'] };
  if (type === 'string') {
    const min = schema.minLength ?? 0;
    const inside = [text(Math.max(min, 1)), ...(schema.maxLength !== undefined ? [text(schema.maxLength)] : []), ...(schema.default !== undefined ? [schema.default] : [])];
    const outside = [...(schema.maxLength !== undefined ? [text(schema.maxLength + 1)] : []), ...(min > 0 ? [text(min - 1)] : [])];
    return { inside, outside };
  }
  return { inside: [], outside: [] };
}

/** Every request this test sends for one model. */
function casesFor(model: ModelEntry, modality: Parameters, inputs: Inputs): Case[] {
  const p = model.parameters;
  const rules = rulesOf(p);
  const base: Record<string, unknown> = { model: model.slug, simulate: { outcome: 'failure' } };
  for (const field of p.required ?? []) if (!(field in base)) base[field] = sample(field, p.properties[field]!, inputs);
  // Each rule is met by its first field (an image by upload_id; an avatar by text; a 3D model by its prompt).
  for (const rule of rules) if (!rule.fields.some((f) => f in base)) base[rule.fields[0]!] = sample(rule.fields[0]!, p.properties[rule.fields[0]!]!, inputs);
  const without = (fields: string[]) => Object.fromEntries(Object.entries(base).filter(([k]) => !fields.includes(k)));
  const cases: Case[] = [{ name: 'the required fields, the defaults for the rest', body: base, expect: 'accepted' }];

  for (const [field, schema] of Object.entries(p.properties)) {
    if (OWN_FIELDS.has(field) || INPUT_FIELDS.has(field) || field === 'messages') continue;
    const { inside, outside } = boundaries(field, schema, modality.properties[field]);
    const short = (v: unknown) => (typeof v === 'string' && v.length > 12 ? `${v.length} characters` : JSON.stringify(v));
    for (const v of inside) cases.push({ name: `${field} = ${short(v)}`, body: { ...base, [field]: v }, expect: 'accepted' });
    for (const v of outside) cases.push({ name: `${field} = ${short(v)} (outside)`, body: { ...base, [field]: v }, expect: { refusedNaming: [field] } });
  }

  for (const [field, schema] of Object.entries(modality.properties)) {
    if (OWN_FIELDS.has(field) || field in p.properties) continue;
    cases.push({ name: `${field}, which it does not take`, body: { ...base, [field]: sample(field, schema, inputs) }, expect: { refusedNaming: [field] } });
  }
  cases.push({ name: 'a made-up field', body: { ...base, not_a_parameter: 1 }, expect: { refusedNaming: ['not_a_parameter'] } });

  // A model that may take an input image takes every boundary with one too (its image endpoints are held to the
  // same limits; what is outside them is refused before the image matters, as above).
  if ('upload_id' in p.properties && !('upload_id' in base) && !('image_url' in base)) {
    const inside = cases.filter((c) => c.expect === 'accepted');
    cases.push(...inside.map((c) => ({ ...c, name: `${c.name}, with an input image`, body: { ...c.body, upload_id: inputs.upload_id }, withImage: true })));
  }

  for (const rule of rules) {
    const rest = without(rule.fields);
    cases.push({ name: `none of ${rule.fields.join(', ')}`, body: rest, expect: { refusedNaming: rule.fields } });
    for (const field of rule.fields) {
      // Given instead of the text it replaces, an avatar's audio comes without the text's voice.
      const body = { ...rest, [field]: sample(field, p.properties[field]!, inputs) };
      if (field !== 'text' && rule.fields.includes('text')) delete body.voice_id;
      cases.push({ name: `${field} alone of ${rule.fields.join(', ')}`, body, expect: 'accepted' });
    }
    if (rule.exclusive) {
      const [a, b] = rule.fields as [string, string];
      cases.push({ name: `${a} and ${b}`, body: { ...rest, [a]: sample(a, p.properties[a]!, inputs), [b]: sample(b, p.properties[b]!, inputs) }, expect: { refusedNaming: rule.fields } });
    }
  }

  return cases;
}

/** A short WAV of silence (uploads of audio are checked for real content). */
function silentWav(samples = 8000, rate = 8000): Buffer {
  const data = Buffer.alloc(samples * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** Runs `fn` over `items`, `width` at a time. */
async function inBatches<T, R>(items: T[], width: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

describeOnBackend('declared parameters are exactly what is accepted', 'pglite', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;
  let files: Server;
  let inputs: Inputs;
  let models: ModelEntry[];
  let modalitySchemas: Record<string, Parameters>;

  beforeAll(async () => {
    const png = await fakePng('a portrait', 256, 256);
    const wav = silentWav();
    files = createServer((req, res) => {
      const [bytes, type] = req.url === '/a.png' ? [png, 'image/png'] : req.url === '/a.wav' ? [wav, 'audio/wav'] : [null, ''];
      if (!bytes) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': type, 'content-length': bytes.length }).end(bytes);
    });
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    s = await startTestServer(backend, { MMGEN_ALLOW_PRIVATE_NETWORK: '1' }, { worker: false });
    api = client(s.url);
    org = await s.createOrg({ credits: 0 });
    const upload = async (bytes: Buffer, contentType: string) => {
      const created = await api('POST', '/v1/uploads', { key: org.test, body: { content_type: contentType, size_bytes: bytes.length } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const put = await putToUploadUrl(created.body.upload_url, created.body.headers, bytes);
      expect(put.status).toBe(200);
      return created.body.id as string;
    };
    inputs = { upload_id: await upload(png, 'image/png'), image_url: `${base}/a.png`, audio_upload_id: await upload(wav, 'audio/wav'), audio_url: `${base}/a.wav` };
    models = (await api('GET', '/v1/models', { key: org.test })).body.data;
    const openapi = (await api('GET', '/v1/openapi.json')).body;
    PATHS = modalityPaths(openapi);
    modalitySchemas = Object.fromEntries(
      Object.entries(PATHS).map(([modality, path]) => [modality, openapi.paths[path].post.requestBody.content['application/json'].schema as Parameters]),
    );
  });
  afterAll(async () => {
    files?.closeAllConnections();
    await new Promise((r) => (files ? files.close(r) : r(undefined)));
    await s?.close();
  });

  it('every model, every declared boundary: accepted inside, 400 naming the field outside, as the schema itself says', async () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats.default(ajv);
    const checks = new Map<string, ValidateFunction>(models.map((m) => [m.slug, ajv.compile(m.parameters)]));
    const cases = models.flatMap((m) => casesFor(m, modalitySchemas[m.modality]!, inputs).map((c) => ({ model: m, ...c })));
    const wrong: string[] = [];
    const combined: string[] = [];
    await inBatches(cases, 8, async (c) => {
      const res = await api('POST', PATHS[c.model.modality], { key: org.test, body: c.body });
      const what = `${c.model.slug}: ${c.name}`;
      // Accepted: queued (202), or synchronous and failed by the simulator after it was accepted (502 naming it).
      const accepted = res.status === 202 || res.status === 200 || (res.status === 502 && /gen_\w+/.test(res.body?.error?.message ?? ''));
      const declared = checks.get(c.model.slug)!(structuredClone(c.body));
      const error = res.body?.error as { code?: string; param?: string; message?: string } | undefined;
      if (c.expect === 'accepted') {
        if (!declared) wrong.push(`${what}: accepted, but the declared parameters refuse it`);
        if (accepted) return;
        // The one thing a flat schema does not say: a field only some routes take, sent with an input image that
        // only others take (contract addenda, "Models"). Refused by routing, naming the field.
        if (c.withImage && res.status === 400 && error?.param && error.param in c.model.parameters.properties && /cannot serve this request/.test(error.message ?? '')) {
          combined.push(`${what}: ${error.message}`);
        } else wrong.push(`${what}: ${res.status} ${JSON.stringify(error ?? res.body).slice(0, 240)}`);
      } else {
        const named = error?.param ?? '';
        // A request missing all of "one of these" may be named by the modality's check, whose message names the rest.
        const names = c.expect.refusedNaming.includes(named) || (c.name.startsWith('none of') && c.expect.refusedNaming.some((f) => error?.message?.includes(f)));
        if (res.status !== 400 || !names) {
          wrong.push(`${what}: ${res.status} naming ${named}, not 400 naming ${c.expect.refusedNaming.join(' or ')}`);
        }
        if (declared) wrong.push(`${what}: refused, but the declared parameters allow it`);
      }
    });
    expect(wrong, `${wrong.length} of ${cases.length} requests`).toEqual([]);
    // Those combinations are the exception, not the rule.
    expect(combined.length, combined.join('\n')).toBeLessThan(cases.length / 100);
    // Every active model, each with its boundaries on both sides.
    expect(new Set(cases.map((c) => c.model.slug)).size).toBe(models.length);
    expect(cases.filter((c) => c.expect === 'accepted').length).toBeGreaterThan(400);
    expect(cases.filter((c) => c.expect !== 'accepted').length).toBeGreaterThan(400);
  }, 120_000);

  it('a model that needs a prompt or an input image says so (anyOf), and {"model":"rodin"} is refused by the schema as by the server', async () => {
    const rodin = models.find((m) => m.slug === 'rodin')!;
    expect(rodin.parameters.anyOf).toEqual([{ required: ['prompt'] }, { required: ['upload_id'] }, { required: ['image_url'] }]);
    const res = await api('POST', '/v1/three-d', { key: org.test, body: { model: 'rodin' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_missing', param: 'prompt' });
    // seedance-1-pro: 2 to 12 seconds on Replicate and on fal, so that is what it declares.
    expect(models.find((m) => m.slug === 'seedance-1-pro')!.parameters.properties.duration_s!.enum).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });
});
