import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogModel } from '../../src/catalog/index.js';
import { servedModels } from '../helpers/catalog.js';
import { parametersOf } from '../../src/generations/hold-to-model.js';
import { AnthropicAdapter } from '../../src/providers/anthropic/index.js';
import { ElevenLabsAdapter } from '../../src/providers/elevenlabs/index.js';
import { recordsOf } from '../../src/providers/declaration.js';
import { anthropic } from '../../src/providers/anthropic/provider.js';
import { elevenlabs } from '../../src/providers/elevenlabs/provider.js';
import { openai } from '../../src/providers/openai/provider.js';
import type { HttpPolicy } from '../../src/providers/http.js';
import { OpenAiAdapter } from '../../src/providers/openai/index.js';
import type { PropertySchema } from '../../src/providers/upstream-record.js';
import { mappedFields } from '../../src/providers/upstream-input.js';
import { SHIPPED_RECORDS, shippedRecord } from '../../src/providers/upstream-models.js';
import type { ImageInput, ProviderAdapter, UpstreamRequest } from '../../src/providers/types.js';
import { AnthropicFake, ElevenLabsFake, OpenAiFake } from '../fakes/index.js';
import { fakePng } from '../fakes/media.js';

/**
 * The bodies OpenAI's, Anthropic's and ElevenLabs' adapters build in code
 * (issue 18): for every route of an active catalog model to one of them,
 * requests across what the model's `parameters` allow (each field at the ends
 * of its range, each enum value, optional fields present and absent, all at
 * their minimum, all at their maximum), plus the OpenAI chat fields only
 * /v1/chat/completions carries, go through the real adapter to the strict
 * loopback fake, which refuses any body its model's record refuses. Every one
 * must be taken.
 */
type Provider = 'openai' | 'anthropic' | 'elevenlabs';
const PROVIDERS: Provider[] = ['openai', 'anthropic', 'elevenlabs'];
// Long answers (300 s of music, 40,000 characters of speech) take the fakes a while to render on a busy machine.
const POLICY: HttpPolicy = { timeoutMs: 120_000, readTimeoutMs: 120_000, maxRetryAfterMs: 0, rateLimitRetries: 0, maxBodyBytes: 64 * 1024 * 1024 };
const OWN = new Set(['model', 'simulate', 'cache', 'upload_id', 'image_url']);

type Params = Record<string, unknown>;

/** A value of a string field of `length` characters (words, so the fakes' token counts stay small). */
const text = (length: number) => 'Hello from mmgen. '.repeat(Math.ceil(length / 18)).slice(0, length).trimEnd().padEnd(length, '.');

/** The values worth sending for one field: enum values, range ends, longest string, a few shapes of the structured ones. */
function valuesOf(field: string, schema: PropertySchema): unknown[] {
  if (Array.isArray(schema.enum)) return schema.enum;
  if (field === 'messages') {
    return [
      [{ role: 'user', content: 'Say hello.' }],
      [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Say hello.' }],
      [{ role: 'assistant', content: 'Hi.' }, { role: 'user', content: 'Again.' }],
      [{ role: 'system', content: 'A' }, { role: 'user', content: 'B' }, { role: 'user', content: 'C' }, { role: 'assistant', content: 'D' }, { role: 'system', content: 'E' }, { role: 'user', content: 'F' }],
    ];
  }
  if (field === 'language') return ['en', 'en-GB', 'pt-BR', 'fil'];
  if (field === 'voice_id') return ['JBFqnCBsd6RMkjVDRZzb'];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'boolean') return [true, false];
  if (type === 'integer' || type === 'number') return [schema.minimum, schema.maximum].filter((v) => typeof v === 'number');
  if (type === 'string') return [text(Math.min(schema.maxLength ?? 40, 6000)), 'Hello.'];
  return [];
}

/** The chat fields only the compatible paths carry (not in the chat modality's schema), as they take them. */
const COMPLETIONS_ONLY: Record<string, unknown[]> = {
  top_p: [0, 1],
  stop: ['\n', 'END', ['  ', 'END'], ['\n', '\t'], [], null],
  presence_penalty: [-2, 2],
  frequency_penalty: [-2, 2],
  user: ['user-1', text(256)],
  // POST /v1/messages carries it (Anthropic's records map it; OpenAI's do not, so it is never sent there).
  top_k: [0, 500],
};

interface Case {
  name: string;
  params: Params;
  image?: boolean;
}

/** The requests for one model: the required fields alone, each field's values one at a time, then all at their first and at their last. */
function casesFor(model: CatalogModel): Case[] {
  const parameters = parametersOf(SHIPPED_RECORDS, model);
  const fields = Object.entries(parameters.properties).filter(([f]) => !OWN.has(f));
  const required = new Set(parameters.required ?? []);
  const choices: Array<[string, unknown[]]> = fields.map(([f, s]) => [f, valuesOf(f, s)]);
  if (model.modality === 'chat') choices.push(...Object.entries(COMPLETIONS_ONLY));
  const base: Params = {};
  // What the route applies for the client: the model's defaults (enforceParameters), and a value for each required field.
  for (const [f, s] of fields) if (s.default !== undefined) base[f] = s.default;
  for (const [f, vs] of choices) if (required.has(f) && base[f] === undefined) base[f] = vs.at(-1);
  const cases: Case[] = [{ name: 'required fields only', params: base }];
  for (const [f, vs] of choices) for (const v of vs) cases.push({ name: `${f}=${JSON.stringify(v)?.slice(0, 40)}`, params: { ...base, [f]: v } });
  cases.push({ name: 'all first', params: { ...base, ...Object.fromEntries(choices.filter(([, vs]) => vs.length > 0).map(([f, vs]) => [f, vs[0]])) } });
  cases.push({ name: 'all last', params: { ...base, ...Object.fromEntries(choices.filter(([, vs]) => vs.length > 0).map(([f, vs]) => [f, vs.at(-1)])) } });
  if (parameters.properties.image_url) {
    cases.push({ name: 'with an input image', params: base, image: true });
    cases.push({ name: 'with an input image, all last', params: cases.at(-2)!.params, image: true });
  }
  return cases;
}

const routes = servedModels().flatMap((model) =>
  model.routes.filter((r): r is typeof r & { provider: Provider } => (PROVIDERS as string[]).includes(r.provider)).map((r) => ({ model, provider: r.provider, upstream: r.upstream })),
);

describe('bodies built in code are ones their records document', () => {
  let fakes: { openai: OpenAiFake; anthropic: AnthropicFake; elevenlabs: ElevenLabsFake };
  let adapters: Record<Provider, ProviderAdapter>;
  let image: ImageInput;

  beforeAll(async () => {
    fakes = { openai: await new OpenAiFake().start(), anthropic: await new AnthropicFake().start(), elevenlabs: await new ElevenLabsFake().start() };
    for (const f of Object.values(fakes)) f.record = false;
    adapters = {
      openai: new OpenAiAdapter({ baseUrl: fakes.openai.baseUrl, apiKey: fakes.openai.key }, recordsOf(openai), POLICY),
      anthropic: new AnthropicAdapter({ baseUrl: fakes.anthropic.baseUrl, apiKey: fakes.anthropic.key }, recordsOf(anthropic), POLICY),
      elevenlabs: new ElevenLabsAdapter({ baseUrl: fakes.elevenlabs.baseUrl, apiKey: fakes.elevenlabs.key }, recordsOf(elevenlabs), POLICY),
    };
    image = { bytes: await fakePng('an input', 256, 256), mime: 'image/png', width: 256, height: 256 };
  });
  afterAll(async () => Promise.all(Object.values(fakes ?? {}).map((f) => f.close())));

  it('covers every OpenAI, Anthropic and ElevenLabs route of the catalog, each with a record that maps what it takes', () => {
    expect(routes.length).toBeGreaterThan(15);
    for (const r of routes) expect(mappedFields(shippedRecord(r.provider, r.upstream)!).size, r.upstream).toBeGreaterThan(0);
  });

  for (const { model, provider, upstream } of routes) {
    it(`${model.slug} → ${provider} ${upstream}`, async () => {
      const failures: string[] = [];
      // What this route takes: the model's parameters are the union of its routes' (a longer text goes to the route that takes it).
      const cases = casesFor({ ...model, routes: [{ provider, upstream }] });
      for (const c of cases) {
        const req: UpstreamRequest = {
          clientRef: `gen_test#1`, attempt: 1, modality: model.modality, model, upstreamModel: upstream,
          params: structuredClone(c.params), ...(c.image ? { image } : {}),
        };
        const before = fakes[provider].refused.length;
        try {
          const { status } = await adapters[provider].submit(req);
          if (status?.state !== 'succeeded') failures.push(`${c.name}: ${JSON.stringify(status)}`);
          if (model.modality === 'chat' && adapters[provider].streamChat) {
            let done = false;
            for await (const chunk of adapters[provider].streamChat!(req)) done ||= chunk.type === 'done';
            if (!done) failures.push(`${c.name} (streamed): no done chunk`);
          }
        } catch (err) {
          const refused = fakes[provider].refused.slice(before).map((r) => JSON.stringify(r.violations));
          failures.push(`${c.name}: ${(err as Error).message} ${refused.join(' ')}`.slice(0, 400));
        }
      }
      expect(failures, `${failures.length} of ${cases.length} requests refused`).toEqual([]);
    }, 240_000);
  }
});
