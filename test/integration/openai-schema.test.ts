import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAI_SCHEMAS, RESPONSE_EVENTS, type OpenAiComponent } from '../fixtures/openai-schemas.js';
import { client, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * The compatible paths' answers against OpenAI's published schema (test/fixtures/openai-schemas.ts: the components
 * pinned from openai/openai-openapi), required fields and types: what a client generated from that document, or
 * one that checks its input, expects of them. The official clients themselves run in the compat-* tests.
 */
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats.default(ajv);
ajv.addSchema(OPENAI_SCHEMAS);
const validators = new Map<OpenAiComponent, ValidateFunction>();

/** What `value` breaks of the component, one line per error (empty when it conforms). */
function violations(component: OpenAiComponent, value: unknown): string[] {
  let validate = validators.get(component);
  if (!validate) {
    validate = ajv.getSchema(`openai-openapi#/definitions/${component}`)!;
    validators.set(component, validate);
  }
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${component}${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
}

/** A POSTed text/event-stream, read whole: each event's name (if any) and its JSON data. */
async function postStream(url: string, key: string, body: unknown): Promise<{ event: string | null; data: string }[]> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events: { event: string | null; data: string }[] = [];
  for (const block of (await res.text()).split('\n\n')) {
    const lines = block.split('\n');
    const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
    if (data) events.push({ event: lines.find((l) => l.startsWith('event: '))?.slice(7) ?? null, data });
  }
  return events;
}

describe("the compatible paths against OpenAI's published schema [pglite]", () => {
  let s: TestServer;
  let org: TestOrg;
  const api = () => client(s.url);

  beforeAll(async () => {
    s = await startTestServer('pglite');
    org = await s.createOrg({ credits: 100_000 });
  });
  afterAll(async () => s?.close());

  it('POST /v1/chat/completions: a CreateChatCompletionResponse, its message with refusal null', async () => {
    const res = await api()('POST', '/v1/chat/completions', { key: org.test, body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Name a river' }] } });
    expect(res.status).toBe(200);
    expect(violations('CreateChatCompletionResponse', res.body)).toEqual([]);
    expect(res.body.choices[0].message).toMatchObject({ role: 'assistant', refusal: null });
    expect(res.body.choices[0].message.content.length).toBeGreaterThan(0);
  });

  it('POST /v1/chat/completions, streamed: every chunk a CreateChatCompletionStreamResponse, the usage chunk too', async () => {
    const events = await postStream(`${s.url}/v1/chat/completions`, org.test, {
      model: 'claude-haiku-4.5', messages: [{ role: 'user', content: 'Name a mountain' }], stream: true, stream_options: { include_usage: true },
    });
    expect(events.at(-1)!.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    expect(chunks.length).toBeGreaterThan(3);
    for (const [i, c] of chunks.entries()) expect(violations('CreateChatCompletionStreamResponse', c), `chunk ${i}`).toEqual([]);
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '', refusal: null });
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: expect.any(Number) } });
  });

  it('GET /v1/models and GET /v1/models/{id}: ListModelsResponse and Model, with created and owned_by', async () => {
    const list = await api()('GET', '/v1/models?include_delisted=true', { key: org.test });
    expect(list.status).toBe(200);
    expect(violations('ListModelsResponse', list.body)).toEqual([]);
    for (const m of list.body.data) expect(m.owned_by).toBe(m.provider);
    // The day the catalog was first published, as the addenda define it: the same for every model.
    expect(new Set(list.body.data.map((m: { created: number }) => m.created))).toEqual(new Set([Date.UTC(2026, 10, 21) / 1000]));
    const one = await api()('GET', '/v1/models/gpt-4o-mini', { key: org.test });
    expect(violations('Model', one.body)).toEqual([]);
    expect(one.body.owned_by).toBe('openai');
  });

  it('POST /v1/responses: a Response with the full usage details, completed and incomplete', async () => {
    const done = await api()('POST', '/v1/responses', { key: org.test, body: { model: 'gpt-4o-mini', input: 'Name a lake' } });
    expect(done.status).toBe(200);
    expect(violations('Response', done.body)).toEqual([]);
    expect(done.body.usage.input_tokens_details).toEqual({ cached_tokens: 0, cache_write_tokens: 0 });
    const cut = await api()('POST', '/v1/responses', { key: org.test, body: { model: 'gpt-4o-mini', input: 'Tell a long story', max_output_tokens: 16, user: 'u-1', simulate: { output_tokens: 400 } } });
    expect(cut.status).toBe(200);
    expect(cut.body).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, user: 'u-1' });
    expect(violations('Response', cut.body)).toEqual([]);
  });

  it('POST /v1/responses, streamed: every event valid as its type, the final response with its usage', async () => {
    const events = await postStream(`${s.url}/v1/responses`, org.test, { model: 'gpt-4o-mini', input: 'Name a sea', stream: true });
    const parsed = events.map((e) => ({ event: e.event, body: JSON.parse(e.data) as { type: string; sequence_number: number } }));
    expect(parsed.map((p) => p.body.sequence_number)).toEqual(parsed.map((_, i) => i));
    for (const { event, body } of parsed) {
      expect(body.type).toBe(event);
      const component = RESPONSE_EVENTS[body.type];
      expect(component, `an event OpenAI's schema names: ${body.type}`).toBeDefined();
      expect(violations(component!, body), body.type).toEqual([]);
    }
    const types = parsed.map((p) => p.body.type);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(types).toContain('response.output_text.delta');
  });

  it('POST /v1/images/generations: an ImagesResponse, as b64_json and as url', async () => {
    for (const response_format of ['b64_json', 'url']) {
      const res = await api()('POST', '/v1/images/generations', { key: org.test, body: { model: 'flux-schnell', prompt: 'a kite over a beach', size: '256x256', response_format } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(violations('ImagesResponse', res.body)).toEqual([]);
      expect(Object.keys(res.body.data[0])).toEqual([response_format]);
    }
  });

  it('the pinned schema refuses what the issue found: no refusal, no created or owned_by, no cache_write_tokens', () => {
    // So that the checks above can fail: each answer as mmgen gave it before, against the same components.
    const message = { role: 'assistant', content: 'The Rhine.' };
    expect(violations('ChatCompletionResponseMessage', message)).toEqual([expect.stringContaining("must have required property 'refusal'")]);
    const model = { id: 'mdl_x', object: 'model', slug: 'gpt-4o-mini', provider: 'openai' };
    expect(violations('Model', model)).toEqual([expect.stringContaining("'created'"), expect.stringContaining("'owned_by'")]);
    const usage = { input_tokens: 3, output_tokens: 5, total_tokens: 8, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } };
    expect(violations('ResponseUsage', usage)).toEqual([expect.stringContaining("'cache_write_tokens'")]);
    expect(violations('Model', { ...model, created: '1795219200', owned_by: 'openai' })).toEqual([expect.stringContaining('must be integer')]);
  });
});
