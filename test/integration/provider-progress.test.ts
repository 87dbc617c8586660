import { afterAll, beforeAll, expect, it } from 'vitest';
import { FalFake, kindOfUpstream, ReplicateFake } from '../fakes/index.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';
import { readEvents, type SseEvent } from '../helpers/sse.js';

/**
 * Progress from real providers (contract §5, docs/contract-addenda.md): a
 * live-key video through fal's adapter and one through Replicate's, each on an
 * mmgen that has only that provider, configured against its loopback fake.
 * The fakes move a job one step a status read (progressSteps), so however
 * slowly mmgen polls, the queued stage spans more than the runner's one
 * second between progress writes, and so does each running step after it.
 */

// 7 reads queued: the reads at 0, 25, 75, 175, 375, 775 and 1575 ms of mmgen's backing-off polls (two writes a second
// apart: positions 6 and 0); then 5 reads running (0, 20, 40, 60, 80 %), one a second (the poll interval's cap).
const STEPS = { queued: 7, running: 5 };
const MODEL = 'kling-v2.1-master'; // routed to Replicate, then fal: with only one of them configured, served by that one

interface Progress {
  generation_id: string;
  stage: 'queued' | 'running';
  percent?: number;
  queue_position?: number;
}

/** The progress events, checked to come in order and before the terminal `generation` event, which is `succeeded`. */
function progressBeforeTerminal(events: SseEvent[], id: string): Progress[] {
  const ids = events.map((e) => Number(e.id));
  expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  expect(new Set(ids).size).toBe(ids.length);
  const last = events.at(-1)!;
  expect(last.event).toBe('generation');
  expect(JSON.parse(last.data!)).toMatchObject({ id, status: 'succeeded' });
  expect(events.slice(0, -1).filter((e) => e.event === 'generation').every((e) => ['queued', 'running'].includes(JSON.parse(e.data!).status))).toBe(true);
  const progress = events.filter((e) => e.event === 'progress').map((e) => JSON.parse(e.data!) as Progress);
  for (const p of progress) {
    expect(p.generation_id).toBe(id);
    expect(Object.keys(p).every((k) => ['generation_id', 'stage', 'percent', 'queue_position'].includes(k))).toBe(true);
  }
  // Queued first, then running: the stage never goes back.
  const stages = progress.map((p) => p.stage);
  expect(stages).toEqual([...stages.filter((st) => st === 'queued'), ...stages.filter((st) => st === 'running')]);
  const positions = progress.flatMap((p) => (p.queue_position === undefined ? [] : [p.queue_position]));
  expect([...positions].sort((a, b) => b - a)).toEqual(positions);
  const percents = progress.flatMap((p) => (p.percent === undefined ? [] : [p.percent]));
  expect([...percents].sort((a, b) => a - b)).toEqual(percents);
  expect(percents.every((p) => Number.isInteger(p) && p >= 0 && p < 100)).toBe(true);
  return progress;
}

describeOnBackend('progress from fal and Replicate on the event stream', 'pglite', (backend) => {
  let fal: FalFake;
  let replicate: ReplicateFake;
  let onFal: TestServer;
  let onReplicate: TestServer;
  let falOrg: TestOrg;
  let replicateOrg: TestOrg;

  beforeAll(async () => {
    [fal, replicate] = await Promise.all([
      new FalFake({ kindOf: kindOfUpstream, progressSteps: STEPS }).start(),
      new ReplicateFake({ kindOf: kindOfUpstream, progressSteps: STEPS }).start(),
    ]);
    // A lease of 4 s caps the runner's poll interval at 1 s (a quarter of it): each running step gets its own write.
    const common = { MMGEN_ALLOW_PRIVATE_NETWORK: '1', MMGEN_JOB_LEASE_MS: '4000' };
    [onFal, onReplicate] = await Promise.all([
      startTestServer(backend, { ...common, FAL_KEY: fal.key, FAL_BASE_URL: fal.baseUrl }),
      startTestServer(backend, { ...common, REPLICATE_API_TOKEN: replicate.key, REPLICATE_BASE_URL: replicate.baseUrl }),
    ]);
    [falOrg, replicateOrg] = await Promise.all([onFal.createOrg({ credits: 1_000_000 }), onReplicate.createOrg({ credits: 1_000_000 })]);
  });
  afterAll(async () => {
    await Promise.all([onFal?.close(), onReplicate?.close()]);
    await Promise.all([fal?.close(), replicate?.close()]);
  });

  /** A live video on this server, followed on its event stream from just after it was accepted. */
  async function videoWithEvents(s: TestServer, org: TestOrg, prompt: string): Promise<{ id: string; events: SseEvent[]; provider: string | null }> {
    const created = await client(s.url)('POST', '/v1/videos', { key: org.live, body: { model: MODEL, prompt, duration_s: 5 } });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const { status, events } = await readEvents(`${s.url}/v1/generations/${created.body.id}/events`, org.live);
    expect(status).toBe(200);
    const row = await s.db.query<{ provider: string | null }>('SELECT provider FROM generations WHERE id = $1', [created.body.id]);
    return { id: created.body.id, events, provider: row.rows[0]!.provider };
  }

  it("fal: the queue position falls while queued, then the percentage of the run's logs rises, all before the terminal event", async () => {
    const { id, events, provider } = await videoWithEvents(onFal, falOrg, 'waves at dusk, through fal');
    expect(provider).toBe('fal');
    const progress = progressBeforeTerminal(events, id);
    const queued = progress.filter((p) => p.stage === 'queued');
    expect(queued.length).toBeGreaterThanOrEqual(1);
    expect(queued.every((p) => Number.isInteger(p.queue_position))).toBe(true);
    expect(queued[0]!.queue_position).toBe(STEPS.queued - 1); // the first poll's answer is always written
    const percents = progress.flatMap((p) => (p.stage === 'running' && p.percent !== undefined ? [p.percent] : []));
    expect(new Set(percents).size).toBeGreaterThanOrEqual(2);
    // fal sends logs only to a status request that asks for them: mmgen asked on each poll.
    const statuses = fal.calls('GET', /\/status$/);
    expect(statuses.length).toBeGreaterThan(STEPS.queued + STEPS.running);
    expect(statuses.every((c) => c.query.get('logs') === '1')).toBe(true);
  });

  it("Replicate: a starting prediction is queued, then the percentage of its logs rises, all before the terminal event", async () => {
    const { id, events, provider } = await videoWithEvents(onReplicate, replicateOrg, 'waves at dusk, through Replicate');
    expect(provider).toBe('replicate');
    const progress = progressBeforeTerminal(events, id);
    const queued = progress.filter((p) => p.stage === 'queued');
    expect(queued.length).toBeGreaterThanOrEqual(1);
    // Replicate tells no queue position.
    expect(queued.every((p) => p.queue_position === undefined && p.percent === undefined)).toBe(true);
    const percents = progress.flatMap((p) => (p.stage === 'running' && p.percent !== undefined ? [p.percent] : []));
    expect(new Set(percents).size).toBeGreaterThanOrEqual(2);
  });
});
