import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config.js';
import { createLogger } from '../../src/main.js';
import { logTraceIds, NO_TRACING } from '../../src/tracing.js';
import { createOtelTracing } from '../../src/tracing-otel.js';
import { startFakes, type Fakes } from '../fakes/index.js';
import { waitTerminal } from '../helpers/generations.js';
import { jsonLogSink } from '../helpers/log-sink.js';
import { SPAN_KIND, startReceiver, STATUS_ERROR, type Receiver, type Span } from '../helpers/otlp-receiver.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * OpenTelemetry traces (issue 33) as a collector receives them: mmgen's exporter posts to a loopback OTLP/HTTP
 * receiver (test/helpers/otlp-receiver.ts) that decodes the protocol's JSON encoding and refuses what it refuses.
 */

describe('the OTLP receiver refuses what the protocol refuses', () => {
  let rx: Receiver;
  beforeAll(async () => (rx = await startReceiver()));
  afterAll(async () => rx?.close());

  it('415 for another content type, 400 for a body that is not an export request, 200 for one that is', async () => {
    const post = (type: string, body: string) => fetch(`${rx.url}/v1/traces`, { method: 'POST', headers: { 'content-type': type }, body });
    expect((await post('application/x-protobuf', '\x0a\x00')).status).toBe(415);
    expect((await post('text/plain', '{}')).status).toBe(415);
    expect((await post('application/json', '{"resourceSpans": 1}')).status).toBe(400);
    expect((await post('application/json', 'not json')).status).toBe(400);
    const bad = { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'xyz', spanId: '00', name: 'a', kind: 1, startTimeUnixNano: '1', endTimeUnixNano: '2' }] }] }] };
    expect((await post('application/json', JSON.stringify(bad))).status).toBe(400);
    const good = { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), name: 'a', kind: 1, startTimeUnixNano: '1', endTimeUnixNano: '2' }] }] }] };
    expect((await post('application/json', JSON.stringify(good))).status).toBe(200);
    expect(rx.spans.map((s) => s.name)).toEqual(['a']);
  });
});

describe('two runtimes with tracing in one process', () => {
  it("one closing leaves the other's log lines their trace ids", async () => {
    const rx = await startReceiver();
    try {
      const config = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: rx.url }).tracing!;
      const [a, b] = [createOtelTracing(config, 'test', { warn: () => {} }), createOtelTracing(config, 'test', { warn: () => {} })];
      await a.close();
      const ids = await b.span('mmgen.test', {}, async () => logTraceIds());
      expect(ids).toEqual({ trace_id: expect.stringMatching(/^[0-9a-f]{32}$/), span_id: expect.stringMatching(/^[0-9a-f]{16}$/) });
      await b.close();
      expect(logTraceIds()).toEqual({});
    } finally {
      await rx.close();
    }
  });
});

describe('tracing configuration', () => {
  it('is off unless an OTLP endpoint is set or MMGEN_TRACING=on; off wins; only http/json is exported', () => {
    expect(loadConfig({}).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' }).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/', MMGEN_TRACING: 'off' }).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }).tracing).toMatchObject({
      endpoint: 'http://c:4318/v1/traces',
      serviceName: 'mmgen',
      sampler: { kind: 'always_on', parentBased: true },
    });
    expect(loadConfig({ MMGEN_TRACING: 'on' }).tracing?.endpoint).toBe('http://localhost:4318/v1/traces');
    const c = loadConfig({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otel.example/custom',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc,x-a=1',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=prod',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    }).tracing;
    expect(c).toMatchObject({
      endpoint: 'https://otel.example/custom',
      headers: { authorization: 'Bearer abc', 'x-a': '1' },
      resourceAttributes: { 'deployment.environment.name': 'prod' },
      sampler: { kind: 'traceidratio', parentBased: true, ratio: 0.25 },
    });
    expect(() => loadConfig({ MMGEN_TRACING: 'on', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(ConfigError);
    expect(() => loadConfig({ MMGEN_TRACING: 'on', OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(/OTEL_TRACES_SAMPLER/);
    expect(() => loadConfig({ MMGEN_TRACING: 'on', OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/OTEL_TRACES_EXPORTER/);
    expect(() => loadConfig({ MMGEN_TRACING: 'maybe' })).toThrow(/MMGEN_TRACING/);
  });
});

describeOnBackend('OpenTelemetry traces', 'pglite', (backend) => {
  describe('off', () => {
    let rx: Receiver;
    let s: TestServer;
    beforeAll(async () => {
      rx = await startReceiver();
      // The receiver's address is known, and tracing is turned off: nothing may reach it.
      s = await startTestServer(backend, { MMGEN_TRACING: 'off', OTEL_EXPORTER_OTLP_ENDPOINT: rx.url });
    });
    afterAll(async () => {
      await s?.close();
      await rx?.close();
    });

    it('makes no tracer and sends nothing', async () => {
      expect(s.config.tracing).toBeUndefined();
      expect(s.runtime.deps.tracing).toBe(NO_TRACING);
      const org = await s.createOrg();
      const res = await client(s.url)('POST', '/v1/images', { key: org.test, body: { model: 'flux-schnell', prompt: 'untraced', width: 256, height: 256 }, headers: { traceparent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01` } });
      expect(res.status).toBe(200);
      await s.runtime.deps.tracing.flush();
      expect(rx.connections).toBe(0);
    });
  });

  describe('on', () => {
    let rx: Receiver;
    let fakes: Fakes;
    let s: TestServer;
    let org: TestOrg;
    const lines: Array<Record<string, unknown>> = [];

    beforeAll(async () => {
      rx = await startReceiver();
      fakes = await startFakes({ jobMs: 40 });
      const sink = jsonLogSink(lines);
      s = await startTestServer(
        backend,
        { ...fakes.env, MMGEN_ALLOW_PRIVATE_NETWORK: '1', MMGEN_CIRCUIT_FAILURE_THRESHOLD: '50', OTEL_EXPORTER_OTLP_ENDPOINT: rx.url, OTEL_SERVICE_NAME: 'mmgen-under-test' },
        { log: (config) => createLogger({ ...config, logLevel: 'info' }, sink) },
      );
      org = await s.createOrg({ credits: 5_000_000 });
    });
    afterAll(async () => {
      await s?.close();
      await fakes?.close();
      await rx?.close();
    });

    /** Flushes until the spans `done` waits for have arrived (a server span ends when its response closes). */
    async function spansUntil(done: (spans: Span[]) => boolean): Promise<Span[]> {
      for (let i = 0; i < 200; i++) {
        await s.runtime.deps.tracing.flush();
        if (done(rx.spans)) return rx.spans;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`the spans never arrived: ${rx.spans.map((x) => x.name).join(', ')}`);
    }

    it('a generation that fell back from one provider to another arrives as one trace, under the caller\'s', async () => {
      const callerTrace = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
      const callerSpan = '0102030405060708';
      const secretPrompt = 'a lighthouse painted by SECRET-PROMPT-7f3a';
      fakes.replicate.misbehave({ method: 'POST', path: /\/predictions$/ }, { reply: { status: 503, body: { title: 'Service Unavailable', detail: 'down for maintenance', status: 503 } } });
      const res = await client(s.url)('POST', '/v1/images', {
        key: org.live,
        body: { model: 'flux-schnell', prompt: secretPrompt, width: 512, height: 512 },
        headers: { traceparent: `00-${callerTrace}-${callerSpan}-01` },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const requestId = res.headers.get('x-request-id');

      const all = await spansUntil((spans) => spans.some((x) => x.traceId === callerTrace && x.kind === SPAN_KIND.server));
      const trace = all.filter((x) => x.traceId === callerTrace);
      const one = (name: string | RegExp) => {
        const found = trace.filter((x) => (typeof name === 'string' ? x.name === name : name.test(x.name)));
        expect(found, `${String(name)} in ${trace.map((x) => x.name).join(', ')}`).toHaveLength(1);
        return found[0]!;
      };

      // The server span continues the caller's trace.
      const server = one('POST /v1/images');
      expect(server).toMatchObject({ kind: SPAN_KIND.server, parentSpanId: callerSpan, service: 'mmgen-under-test' });
      expect(server.attrs).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/v1/images', 'url.path': '/v1/images', 'http.response.status_code': 200, 'mmgen.request_id': requestId });

      const auth = one('mmgen.authenticate');
      expect(auth.parentSpanId).toBe(server.spanId);
      expect(auth.attrs).toMatchObject({ 'mmgen.organization.id': org.id, 'mmgen.mode': 'live' });

      const accept = one('mmgen.accept');
      expect(accept.parentSpanId).toBe(server.spanId);
      expect(accept.attrs).toMatchObject({ 'mmgen.modality': 'image', 'mmgen.model': 'flux-schnell', 'mmgen.generation.id': res.body.id, 'mmgen.generation.sync': true });
      expect(one('mmgen.moderation.prompt')).toMatchObject({ parentSpanId: accept.spanId, attrs: { 'mmgen.prompt.chars': secretPrompt.length } });
      const reserve = one('mmgen.reserve');
      expect(reserve.parentSpanId).toBe(accept.spanId);
      expect(reserve.attrs).toMatchObject({ 'db.system.name': 'postgresql', 'mmgen.generation.id': res.body.id });
      expect(reserve.attrs['mmgen.credits.reserved']).toBeGreaterThanOrEqual(res.body.charged_credits);

      // Each provider attempt a client span; the fallback a sibling of the attempt that failed.
      const attempts = trace.filter((x) => x.attrs['gen_ai.operation.name'] !== undefined).sort((a, b) => Number(a.attrs['mmgen.provider_attempt']) - Number(b.attrs['mmgen.provider_attempt']));
      expect(attempts).toHaveLength(2);
      const [failed, served] = attempts as [Span, Span];
      expect(failed.parentSpanId).toBe(server.spanId);
      expect(served.parentSpanId).toBe(failed.parentSpanId);
      expect(failed).toMatchObject({ kind: SPAN_KIND.client, statusCode: STATUS_ERROR });
      expect(failed.attrs).toMatchObject({
        'gen_ai.operation.name': 'generate_content',
        'gen_ai.provider.name': 'replicate',
        'gen_ai.output.type': 'image',
        'mmgen.model': 'flux-schnell',
        'mmgen.generation.id': res.body.id,
        'mmgen.generation.attempt': 1,
        'mmgen.provider_attempt': 1,
        'mmgen.outcome': 'fell_back',
        'http.response.status_code': 503,
        'error.type': 'overloaded',
        'mmgen.fallback.reason': 'overloaded',
        'mmgen.fallback.next_provider': 'fal',
      });
      expect(failed.name).toBe(`generate_content ${String(failed.attrs['gen_ai.request.model'])}`);
      expect(served).toMatchObject({ kind: SPAN_KIND.client });
      expect(served.statusCode).not.toBe(STATUS_ERROR);
      expect(served.attrs).toMatchObject({ 'gen_ai.provider.name': 'fal', 'mmgen.provider_attempt': 2, 'mmgen.outcome': 'accepted' });
      expect(typeof served.attrs['gen_ai.request.model']).toBe('string');
      expect(served.attrs['mmgen.upstream.id']).toEqual(expect.any(String));
      expect(served.attrs['mmgen.fallback.reason']).toBeUndefined();

      // W3C traceparent went to each provider with the span of the attempt that called it.
      const traceparent = (h: unknown) => String(h).split('-');
      const toReplicate = fakes.replicate.calls('POST', /\/predictions$/).at(-1)!;
      expect(traceparent(toReplicate.headers.traceparent).slice(1, 3)).toEqual([callerTrace, failed.spanId]);
      const toFal = fakes.fal.calls('POST', /^\/fal-ai\/flux\/schnell$/).at(-1)!;
      expect(traceparent(toFal.headers.traceparent).slice(1, 3)).toEqual([callerTrace, served.spanId]);

      const stored = one('mmgen.outputs.store');
      expect(stored.parentSpanId).toBe(server.spanId);
      expect(stored.attrs).toMatchObject({ 'mmgen.modality': 'image', 'mmgen.output.count': 1 });
      expect(stored.attrs['mmgen.output.bytes']).toBeGreaterThan(0);
      expect(one('mmgen.moderation.outputs')).toMatchObject({ parentSpanId: stored.spanId, attrs: { 'mmgen.output.count': 1, 'mmgen.moderation.approved': 1 } });
      const finish = one('mmgen.finish');
      expect(finish.parentSpanId).toBe(server.spanId);
      expect(finish.attrs).toMatchObject({ 'mmgen.generation.status': 'succeeded', 'mmgen.credits.charged': res.body.charged_credits, 'db.system.name': 'postgresql' });

      // Nothing secret was exported: not the prompt, not the caller's key, not a provider's credential.
      const exported = rx.raw.join('\n');
      expect(exported).not.toContain('SECRET-PROMPT-7f3a');
      expect(exported).not.toContain(org.live);
      for (const [name, value] of Object.entries(fakes.env)) if (/KEY|TOKEN|SECRET/.test(name) && value.length >= 6) expect(exported, name).not.toContain(value);
      expect(exported).not.toContain('down for maintenance');

      // The JSON log's lines of the request carry its trace id.
      const done = lines.find((l) => l.msg === 'request completed' && l.reqId === requestId);
      expect(done).toMatchObject({ trace_id: callerTrace, span_id: server.spanId });
    });

    it('a queued generation\'s run is a trace of its own, linked to the request that accepted it', async () => {
      const res = await client(s.url)('POST', '/v1/videos', { key: org.test, body: { model: 'wan-2.2', prompt: 'a queued clip', duration_s: 1 } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect((await waitTerminal(client(s.url), org.test, res.body.id)).status).toBe('succeeded');
      const all = await spansUntil((spans) => spans.some((x) => x.name === 'mmgen.job.run' && x.attrs['mmgen.generation.id'] === res.body.id));
      const accept = all.find((x) => x.name === 'mmgen.accept' && x.attrs['mmgen.generation.id'] === res.body.id)!;
      expect(accept.attrs['mmgen.generation.sync']).toBe(false);
      const run = all.find((x) => x.name === 'mmgen.job.run' && x.attrs['mmgen.generation.id'] === res.body.id)!;
      expect(run).toMatchObject({ kind: SPAN_KIND.consumer, parentSpanId: undefined, links: [{ traceId: accept.traceId, spanId: accept.spanId }] });
      expect(run.traceId).not.toBe(accept.traceId);
      expect(run.attrs).toMatchObject({ 'mmgen.outcome': 'finished', 'mmgen.generation.status': 'succeeded' });
      const inRun = all.filter((x) => x.traceId === run.traceId);
      const attempt = inRun.find((x) => x.attrs['gen_ai.operation.name'] === 'generate_content')!;
      expect(attempt).toMatchObject({ parentSpanId: run.spanId, attrs: { 'gen_ai.provider.name': 'simulator', 'mmgen.modality': 'video', 'mmgen.outcome': 'accepted' } });
      expect(inRun.find((x) => x.name === 'mmgen.finish')?.parentSpanId).toBe(run.spanId);
    });

    it('a comparison\'s children run in traces of their own, each linked to the request that accepted them', async () => {
      const models = ['flux-schnell', s.runtime.deps.catalog.list({ modality: 'image' }).map((m) => m.slug).find((m) => m !== 'flux-schnell')!];
      const res = await client(s.url)('POST', '/v1/comparisons', { key: org.test, body: { models, prompt: 'a compared fox', params: { width: 256, height: 256 } } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      const ids = (res.body.generations as Array<{ id: string }>).map((g) => g.id);
      const all = await spansUntil((spans) => ids.every((id) => spans.some((x) => x.name === 'mmgen.job.run' && x.attrs['mmgen.generation.id'] === id && x.attrs['mmgen.outcome'] !== undefined)));
      const accept = all.find((x) => x.name === 'mmgen.accept' && x.attrs['mmgen.comparison.id'] === res.body.id)!;
      expect(accept).toBeDefined();
      for (const id of ids) {
        const run = all.find((x) => x.name === 'mmgen.job.run' && x.attrs['mmgen.generation.id'] === id)!;
        expect(run.links).toEqual([{ traceId: accept.traceId, spanId: accept.spanId }]);
      }
    });

    it('a chat\'s attempt carries the GenAI operation and its token usage', async () => {
      const res = await client(s.url)('POST', '/v1/chat', { key: org.live, body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'count my SECRET-CHAT-9c1e tokens' }] } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const g = (await client(s.url)('GET', `/v1/generations/${res.body.id}`, { key: org.live })).body;
      const all = await spansUntil((spans) => spans.some((x) => x.attrs['mmgen.generation.id'] === res.body.id && x.attrs['gen_ai.operation.name'] === 'chat'));
      const attempt = all.find((x) => x.attrs['mmgen.generation.id'] === res.body.id && x.attrs['gen_ai.operation.name'] === 'chat')!;
      expect(attempt.name).toBe(`chat ${String(attempt.attrs['gen_ai.request.model'])}`);
      expect(attempt.attrs).toMatchObject({
        'gen_ai.provider.name': 'openai',
        'gen_ai.output.type': 'text',
        'gen_ai.usage.input_tokens': g.usage.input_tokens,
        'gen_ai.usage.output_tokens': g.usage.output_tokens,
        'mmgen.outcome': 'accepted',
      });
      expect(rx.raw.join('\n')).not.toContain('SECRET-CHAT-9c1e');
    });

    it('a streamed chat\'s attempt lasts the stream, under the request, with its usage', async () => {
      const res = await fetch(`${s.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${org.live}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'stream SECRET-STREAM-4b2d please' }], stream: true, stream_options: { include_usage: true } }),
      });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toContain('[DONE]');
      const requestId = res.headers.get('x-request-id');
      const all = await spansUntil((spans) => spans.some((x) => x.kind === SPAN_KIND.server && x.attrs['mmgen.request_id'] === requestId));
      const server = all.find((x) => x.kind === SPAN_KIND.server && x.attrs['mmgen.request_id'] === requestId)!;
      expect(server.name).toBe('POST /v1/chat/completions');
      const attempt = all.find((x) => x.parentSpanId === server.spanId && x.attrs['gen_ai.operation.name'] === 'chat')!;
      expect(attempt.attrs).toMatchObject({ 'gen_ai.provider.name': 'openai', 'mmgen.outcome': 'accepted', 'gen_ai.response.finish_reasons': ['stop'] });
      expect(attempt.attrs['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
      expect(rx.raw.join('\n')).not.toContain('SECRET-STREAM-4b2d');
    });

    it('an export the collector refuses is reported in the log, and the requests it traced are answered as usual', async () => {
      rx.refuse = true;
      try {
        const res = await client(s.url)('POST', '/v1/images', { key: org.test, body: { model: 'flux-schnell', prompt: 'refused trace', width: 256, height: 256 } });
        expect(res.status).toBe(200);
        for (let i = 0; i < 200 && !lines.some((l) => String(l.msg).startsWith('opentelemetry:')); i++) {
          await s.runtime.deps.tracing.flush().catch(() => {});
          await new Promise((r) => setTimeout(r, 25));
        }
        expect(lines.find((l) => String(l.msg).startsWith('opentelemetry:'))).toMatchObject({ level: 40 });
      } finally {
        rx.refuse = false;
      }
    });

    it('a webhook delivery is a span of its own, linked to the request whose generation it reports', async () => {
      const received: string[] = [];
      const hooks = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          received.push(req.url ?? '');
          res.writeHead(200).end();
        });
      });
      await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hook`;
        const created = await client(s.url)('POST', '/v1/webhooks', { key: org.test, body: { url, events: ['generation.completed'] } });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const res = await client(s.url)('POST', '/v1/images', { key: org.test, body: { model: 'flux-schnell', prompt: 'a hooked image', width: 256, height: 256 } });
        expect(res.status).toBe(200);
        const all = await spansUntil((spans) => spans.some((x) => x.name === 'mmgen.webhook.deliver' && x.attrs['mmgen.generation.id'] === res.body.id));
        const accept = all.find((x) => x.name === 'mmgen.accept' && x.attrs['mmgen.generation.id'] === res.body.id)!;
        const delivery = all.find((x) => x.name === 'mmgen.webhook.deliver' && x.attrs['mmgen.generation.id'] === res.body.id)!;
        expect(delivery).toMatchObject({ kind: SPAN_KIND.client, parentSpanId: undefined, links: [{ traceId: accept.traceId, spanId: accept.spanId }] });
        expect(delivery.attrs).toMatchObject({
          'http.request.method': 'POST',
          'http.response.status_code': 200,
          'mmgen.webhook.id': created.body.id,
          'mmgen.webhook.attempt': 1,
          'mmgen.event.type': 'generation.completed',
          'mmgen.outcome': 'success',
        });
        expect(received.length).toBeGreaterThan(0);
        expect(rx.raw.join('\n')).not.toContain(created.body.secret);
      } finally {
        await new Promise<void>((resolve) => hooks.close(() => resolve()));
      }
    });
  });
});
