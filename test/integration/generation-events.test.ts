import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Mmgen, type GenerationProgress } from '../../sdk/src/index.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';
import { readEvents, type SseEvent } from '../helpers/sse.js';

describeOnBackend('GET /v1/generations/{id}/events', 'pglite', (backend) => {
  let s: TestServer;
  let org: TestOrg;
  let api: ReturnType<typeof client>;
  let video: string;

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1' });
    api = client(s.url);
    org = await s.createOrg({ credits: 100_000 });
    // A model that takes a 1 s video (kling, the first, takes 5 or 10).
    video = 'wan-2.2';
  });
  afterAll(async () => s?.close());

  /** Progress events (contract §5): in order, non-decreasing percent, ids increasing across both kinds, all before the terminal state. */
  function expectProgressBeforeTerminal(events: SseEvent[], id: string): Array<{ stage: string; percent?: number }> {
    const ids = events.map((e) => Number(e.id));
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(events.at(-1)!.event).toBe('generation');
    expect(JSON.parse(events.at(-1)!.data!).status).toBe('succeeded');
    expect(events.slice(0, -1).filter((e) => e.event === 'generation').every((e) => ['queued', 'running'].includes(JSON.parse(e.data!).status))).toBe(true);
    const progress = events.filter((e) => e.event === 'progress').map((e) => JSON.parse(e.data!));
    for (const p of progress) {
      expect(p.generation_id).toBe(id);
      expect(['queued', 'running']).toContain(p.stage);
      expect(Object.keys(p).every((k) => ['generation_id', 'stage', 'percent', 'queue_position'].includes(k))).toBe(true);
    }
    const percents = progress.filter((p) => p.percent !== undefined).map((p) => p.percent as number);
    expect([...percents].sort((a, b) => a - b)).toEqual(percents);
    expect(percents.every((p) => p >= 0 && p <= 100)).toBe(true);
    return progress;
  }

  it('a simulated job over one second streams progress events before its terminal state; a resume after one sends only what followed', async () => {
    const g = (await api('POST', '/v1/videos', { key: org.live, body: { model: video, prompt: 'slow', duration_s: 1, simulate: { delay_ms: 3500 } } })).body;
    const { events } = await readEvents(`${s.url}/v1/generations/${g.id}/events`, org.live);
    const progress = expectProgressBeforeTerminal(events, g.id);
    // Written at most once a second over 3.5 s: at least two, and a percentage among them.
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.some((p) => p.stage === 'running' && typeof p.percent === 'number')).toBe(true);
    const firstProgress = events.find((e) => e.event === 'progress')!;
    const resumed = await readEvents(`${s.url}/v1/generations/${g.id}/events`, org.live, { 'last-event-id': firstProgress.id! });
    expect(resumed.events.at(-1)!.event).toBe('generation');
    expect(resumed.events.every((e) => Number(e.id) > Number(firstProgress.id))).toBe(true);
    expect(resumed.events.filter((e) => e.event === 'progress')).toHaveLength(0); // terminal now: its progress is over
  });

  it("the SDK's wait({onProgress}) hears each progress event, in order, before it returns", async () => {
    const sdk = new Mmgen({ apiKey: org.live, baseURL: s.url });
    const created = await sdk.videos.create({ model: video, prompt: 'slow via the sdk', duration_s: 1, simulate: { delay_ms: 3000 } } as never);
    const heard: GenerationProgress[] = [];
    const statuses: string[] = [];
    const done = await sdk.generations.wait(created, { onProgress: (p) => heard.push(p), onUpdate: (gen) => statuses.push(gen.status) });
    expect(done.status).toBe('succeeded');
    expect(heard.length).toBeGreaterThanOrEqual(2);
    expect(heard.every((p) => p.generation_id === created.id)).toBe(true);
    const percents = heard.flatMap((p) => (p.percent === undefined ? [] : [p.percent]));
    expect([...percents].sort((a, b) => a - b)).toEqual(percents);
  });

  it('sends the current state, each change, and ends after the terminal state', async () => {
    const g = (await api('POST', '/v1/videos', { key: org.live, body: { model: video, prompt: 'x', duration_s: 1, simulate: { delay_ms: 700 } } })).body;
    const { status, type, events } = await readEvents(`${s.url}/v1/generations/${g.id}/events`, org.live);
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/event-stream/);
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(events.every((e) => e.event === 'generation')).toBe(true);
    const ids = events.map((e) => Number(e.id));
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    const states = events.map((e) => JSON.parse(e.data!).status);
    expect(states.at(-1)).toBe('succeeded');
    expect(states.slice(0, -1).every((st) => st === 'queued' || st === 'running')).toBe(true);
    expect(JSON.parse(events.at(-1)!.data!).outputs.length).toBe(2);
  });

  it('a terminal generation: one event at once, or none after its Last-Event-ID', async () => {
    const g = (await api('POST', '/v1/music', { key: org.test, body: { model: s.runtime.deps.catalog.list({ modality: 'music' })[0]!.slug, prompt: 'x', duration_s: 5 } })).body;
    let final: any;
    for (;;) {
      final = (await api('GET', `/v1/generations/${g.id}`, { key: org.test })).body;
      if (final.status === 'succeeded') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const once = await readEvents(`${s.url}/v1/generations/${g.id}/events`, org.test);
    expect(once.events).toHaveLength(1);
    const lastId = once.events[0]!.id!;
    const resumed = await readEvents(`${s.url}/v1/generations/${g.id}/events`, org.test, { 'last-event-id': lastId });
    expect(resumed.events).toHaveLength(0);
    const earlier = await readEvents(`${s.url}/v1/generations/${g.id}/events`, org.test, { 'last-event-id': '1' });
    expect(earlier.events).toHaveLength(1);
  });

  it("each open stream listens for the node's drain, and lets go of it when its client leaves (no stream outlives its connection)", async () => {
    const drain = s.runtime.deps.lifecycle.signal;
    const listening = () => getEventListeners(drain, 'abort').length;
    const before = listening();
    const g = (await api('POST', '/v1/videos', { key: org.live, body: { model: video, prompt: 'held open', duration_s: 1, simulate: { delay_ms: 8000 } } })).body;
    // More streams than Node's default listener limit (10), as a busy node has.
    const clients = Array.from({ length: 12 }, () => new AbortController());
    const opened = await Promise.all(clients.map((c) => fetch(`${s.url}/v1/generations/${g.id}/events`, { headers: { authorization: `Bearer ${org.live}` }, signal: c.signal })));
    expect(opened.map((r) => r.status)).toEqual(clients.map(() => 200));
    await expect.poll(listening).toBe(before + clients.length);
    for (const c of clients) c.abort();
    await expect.poll(listening).toBe(before);
  });

  it('rejects a malformed Last-Event-ID, and hides other organizations', async () => {
    const g = (await api('POST', '/v1/music', { key: org.test, body: { model: s.runtime.deps.catalog.list({ modality: 'music' })[0]!.slug, prompt: 'x' } })).body;
    const bad = await api('GET', `/v1/generations/${g.id}/events`, { key: org.test, headers: { 'last-event-id': 'abc' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'parameter_invalid', param: 'Last-Event-ID' });
    const other = await s.createOrg();
    expect((await api('GET', `/v1/generations/${g.id}/events`, { key: other.test })).status).toBe(404);
    expect((await api('GET', `/v1/generations/${g.id}/events`, { key: org.live })).status).toBe(404);
  });
});
