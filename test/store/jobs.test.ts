import { beforeEach, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { selectComparison, insertComparison } from '../../src/store/comparisons.js';
import {
  generationSeq,
  generationVersions,
  insertCacheCopy,
  markRunning,
  recordProgress,
  recordUpstreamId,
  requeueForAttempt,
  selectCacheSource,
  selectComparisonChildren,
  selectGeneration,
  selectGenerationPage,
  selectOutputBlob,
  selectOutputs,
  setAttemptProvider,
  setRunnerNode,
} from '../../src/store/generations.js';
import { chargeAndFinish } from '../../src/store/finishing.js';
import { claimDueJobsTakingUp, deleteJobIfTerminal, enqueueJob, releaseNodeLeases, renewJobLease } from '../../src/store/jobs.js';
import { beatNode, forgetNode, releaseDeadNodesLeases } from '../../src/store/nodes.js';
import { beat, forgetWorker, queueStats, WORKER_STALE_S } from '../../src/store/queue-stats.js';
import { simulatorJobsIn } from '../../src/store/simulator-jobs.js';
import {
  claimStillHeld,
  completeIdempotencyClaim,
  deleteExpiredIdempotencyKey,
  deleteExpiredIdempotencyKeys,
  findIdempotencyKey,
  insertIdempotencyClaim,
  linkIdempotencyClaim,
  releaseIdempotencyClaim,
  renewIdempotencyClaim,
  takeOverIdempotencyClaim,
  type IdempotencyClaim,
} from '../../src/store/idempotency.js';
import { updateOrganizationPaused } from '../../src/store/organizations.js';
import { describeEachBackend } from '../helpers/server.js';
import { accept, count, makeOrg, row, useDb, type Org } from './fixtures.js';

/**
 * The job queue and the generations it runs (jobs.ts, generations.ts, nodes.ts, queue-stats.ts, comparisons.ts,
 * simulator-jobs.ts) on each backend. The queue's statements act on every due job of the database, so the cases that
 * claim or count jobs start from an empty queue of their own database.
 */
describeEachBackend('store: the job queue', (backend) => {
  const t = useDb(backend);
  let org: Org;

  beforeEach(async () => {
    await t.db.query('DELETE FROM jobs');
    await t.db.query('DELETE FROM node_heartbeats');
    org ??= await makeOrg(t.db);
  });

  const runAt = async (id: string) => (await row<{ run_at: Date; lease_owner: string | null; claims: number }>(t.db, 'jobs', 'generation_id = $1', [id]))!;

  it('a claim leases a due job and takes its queued generation up on this node, in one statement', async () => {
    const a = await accept(t.db, org);
    const claimed = await claimDueJobsTakingUp(t.db, 'node-w', 30, 10, 3);
    expect(claimed).toHaveLength(1);
    expect(claimed[0]).toMatchObject({ generation_id: a.id, claims: 1, takenUp: { id: a.id, status: 'running', runner_node: 'node-w', version: 2 } });
    const job = await runAt(a.id);
    expect(job.lease_owner).toBe('node-w');
    expect(job.run_at.getTime()).toBeGreaterThan(Date.now() - 5_000 + 30_000 - 10_000);
    // Leased: not due again until the lease runs out.
    expect(await claimDueJobsTakingUp(t.db, 'node-x', 30, 10, 3)).toEqual([]);
  });

  it('two nodes claiming one job at once: exactly one gets it', async () => {
    const a = await accept(t.db, org);
    const [x, y] = await Promise.all([claimDueJobsTakingUp(t.db, 'node-x', 30, 1, 3), claimDueJobsTakingUp(t.db, 'node-y', 30, 1, 3)]);
    expect([...x, ...y].map((c) => c.generation_id)).toEqual([a.id]);
    expect((await selectGeneration(t.db, a.id))!.runner_node).toBe(x.length === 1 ? 'node-x' : 'node-y');
  });

  it('a claim takes at most `limit` jobs, the longest due first', async () => {
    const gens = [await accept(t.db, org), await accept(t.db, org), await accept(t.db, org)];
    await t.db.query(`UPDATE jobs SET run_at = now() - make_interval(secs => 100) WHERE generation_id = $1`, [gens[2]!.id]);
    const claimed = await claimDueJobsTakingUp(t.db, 'node-w', 30, 1, 3);
    expect(claimed.map((c) => c.generation_id)).toEqual([gens[2]!.id]);
  });

  it('a job whose lease ran out is claimed again; its generation, running already, is left for the run to read', async () => {
    const a = await accept(t.db, org, { sync: true, nodeId: 'node-dead' });
    await t.db.query(`UPDATE jobs SET run_at = now() - make_interval(secs => 1), lease_expires_at = now() - make_interval(secs => 1) WHERE generation_id = $1`, [a.id]);
    const [c] = await claimDueJobsTakingUp(t.db, 'node-w', 30, 10, 3);
    expect(c).toEqual({ generation_id: a.id, claims: 1, takenUp: null });
    expect((await selectGeneration(t.db, a.id))!.runner_node).toBe('node-dead');
  });

  it('a job claimed more than maxClaims times is claimed but not taken up', async () => {
    const a = await accept(t.db, org);
    await t.db.query('UPDATE jobs SET claims = 3 WHERE generation_id = $1', [a.id]);
    const [c] = await claimDueJobsTakingUp(t.db, 'node-w', 30, 10, 3);
    expect(c).toEqual({ generation_id: a.id, claims: 4, takenUp: null });
    expect((await selectGeneration(t.db, a.id))!.status).toBe('queued');
  });

  it("a paused organization's queued jobs are parked and never claimed; the unpause makes them due", async () => {
    const paused = await makeOrg(t.db);
    const a = await accept(t.db, paused);
    await updateOrganizationPaused(t.db, paused.id, true, { kind: 'owner' });
    expect(await count(t.db, 'jobs', `generation_id = $1 AND run_at = 'infinity'`, [a.id])).toBe(1);
    // One accepted as the pause began (not parked by it) is passed over by the claim's own check.
    const late = await accept(t.db, paused);
    expect(await claimDueJobsTakingUp(t.db, 'node-w', 30, 10, 3)).toEqual([]);
    await updateOrganizationPaused(t.db, paused.id, false, null);
    const claimed = await claimDueJobsTakingUp(t.db, 'node-w', 30, 10, 3);
    expect(claimed.map((c) => c.generation_id).sort()).toEqual([a.id, late.id].sort());
  });

  it('a lease is renewed by its owner only', async () => {
    const a = await accept(t.db, org, { sync: true, nodeId: 'node-a', leaseSeconds: 5 });
    const before = (await runAt(a.id)).run_at.getTime();
    expect(await renewJobLease(t.db, a.id, 'node-b', 600)).toBe(false);
    expect(await renewJobLease(t.db, a.id, 'node-a', 600)).toBe(true);
    expect((await runAt(a.id)).run_at.getTime()).toBeGreaterThan(before + 500_000);
    expect(await renewJobLease(t.db, newId('gen'), 'node-a', 600)).toBe(false);
  });

  it('a job is deleted only once its generation is terminal, and enqueued once', async () => {
    const a = await accept(t.db, org);
    await deleteJobIfTerminal(t.db, a.id);
    expect(await count(t.db, 'jobs', 'generation_id = $1', [a.id])).toBe(1);
    await enqueueJob(t.db, a.id);
    expect(await count(t.db, 'jobs', 'generation_id = $1', [a.id])).toBe(1);
    await t.db.query(`UPDATE generations SET status = 'canceled' WHERE id = $1`, [a.id]);
    await deleteJobIfTerminal(t.db, a.id);
    expect(await count(t.db, 'jobs', 'generation_id = $1', [a.id])).toBe(0);
    await enqueueJob(t.db, a.id);
    expect(await count(t.db, 'jobs', 'generation_id = $1', [a.id])).toBe(1);
  });

  it("a node's leases are handed back due at once, without counting the claim", async () => {
    const a = await accept(t.db, org);
    const other = await accept(t.db, org, { sync: true, nodeId: 'node-other' });
    await claimDueJobsTakingUp(t.db, 'node-leaving', 30, 10, 3);
    await releaseNodeLeases(t.db, 'node-leaving');
    expect(await runAt(a.id)).toMatchObject({ lease_owner: null, claims: 0 });
    expect((await runAt(a.id)).run_at.getTime()).toBeLessThanOrEqual(Date.now() + 1_000);
    expect((await runAt(other.id)).lease_owner).toBe('node-other');
  });

  it('the leases of nodes that stopped beating are handed back; a live node keeps its own', async () => {
    const live = await accept(t.db, org, { sync: true, nodeId: 'node-live' });
    const dead = await accept(t.db, org, { sync: true, nodeId: 'node-dead' });
    await beatNode(t.db, 'node-live');
    await beatNode(t.db, 'node-live');
    expect(await count(t.db, 'node_heartbeats')).toBe(1);
    expect(await releaseDeadNodesLeases(t.db, 10)).toBe(1);
    expect((await runAt(dead.id)).lease_owner).toBeNull();
    expect((await runAt(live.id)).lease_owner).toBe('node-live');
    // A beat older than the bound is a dead node too.
    await t.db.query(`UPDATE node_heartbeats SET beat_at = now() - make_interval(secs => 60)`);
    expect(await releaseDeadNodesLeases(t.db, 10)).toBe(1);
    expect((await runAt(live.id)).lease_owner).toBeNull();
  });

  it('a node that stops forgets its row, and rows of nodes dead for a day go with it', async () => {
    await beatNode(t.db, 'node-a');
    await beatNode(t.db, 'node-old');
    await beatNode(t.db, 'node-b');
    await t.db.query(`UPDATE node_heartbeats SET beat_at = now() - interval '2 days' WHERE node_id = 'node-old'`);
    await forgetNode(t.db, 'node-a');
    expect((await t.db.query<{ node_id: string }>('SELECT node_id FROM node_heartbeats')).rows).toEqual([{ node_id: 'node-b' }]);
  });

  it('queue statistics count waiting and running jobs, the oldest wait, live workers and due deliveries', async () => {
    const empty = await queueStats(t.db);
    expect(empty).toMatchObject({ waiting: 0, running: 0, oldestWaitingS: 0 });
    const waiting = await accept(t.db, org);
    await accept(t.db, org, { sync: true });
    await t.db.query(`UPDATE jobs SET run_at = now() - make_interval(secs => 100) WHERE generation_id = $1`, [waiting.id]);
    await beat(t.db, 'worker-1');
    await beat(t.db, 'worker-1');
    await beat(t.db, 'worker-gone');
    await t.db.query(`UPDATE worker_heartbeats SET beat_at = now() - make_interval(secs => $1) WHERE node_id = 'worker-gone'`, [WORKER_STALE_S + 5]);
    const s = await queueStats(t.db);
    expect(s).toMatchObject({ waiting: 1, running: 1, liveWorkers: empty.liveWorkers + 1 });
    expect(s.oldestWaitingS).toBeGreaterThanOrEqual(100);
    expect(s.webhooksDue).toBe(empty.webhooksDue);
    await forgetWorker(t.db, 'worker-1');
    await forgetWorker(t.db, 'worker-gone');
    expect((await queueStats(t.db)).liveWorkers).toBe(empty.liveWorkers);
    expect(await count(t.db, 'worker_heartbeats', 'node_id IN ($1, $2)', ['worker-1', 'worker-gone'])).toBe(0);
  });
});

describeEachBackend('store: generations', (backend) => {
  const t = useDb(backend);
  let org: Org;
  beforeEach(async () => {
    org ??= await makeOrg(t.db, { credits: 1_000 });
  });

  it('a queued generation moves to running once; a second move answers null', async () => {
    const a = await accept(t.db, org);
    const moved = await markRunning(t.db, a.id, 'node-r');
    expect(moved).toMatchObject({ status: 'running', runner_node: 'node-r', version: 2 });
    expect(moved!.started_at).toBeInstanceOf(Date);
    expect(await markRunning(t.db, a.id, 'node-s')).toBeNull();
    await setRunnerNode(t.db, a.id, 'node-s');
    expect((await selectGeneration(t.db, a.id))!.runner_node).toBe('node-s');
    expect(await selectGeneration(t.db, newId('gen'))).toBeNull();
  });

  it('a locked read holds the row until the transaction ends', async () => {
    const a = await accept(t.db, org);
    const g = await t.db.tx((q) => selectGeneration(q, a.id, true));
    expect(g!.id).toBe(a.id);
  });

  it("a running attempt's provider, upstream id (once) and progress are recorded; other attempts' are not", async () => {
    const a = await accept(t.db, org, { sync: true });
    await setAttemptProvider(t.db, a.id, 2, 'other');
    await setAttemptProvider(t.db, a.id, 1, 'fal');
    expect((await selectGeneration(t.db, a.id))!.provider).toBe('fal');
    expect(await recordUpstreamId(t.db, a.id, 2, 'u0')).toBe(false);
    expect(await recordUpstreamId(t.db, a.id, 1, 'u1')).toBe(true);
    expect(await recordUpstreamId(t.db, a.id, 1, 'u2')).toBe(false);
    expect((await selectGeneration(t.db, a.id))!.upstream_id).toBe('u1');
    expect(await recordProgress(t.db, a.id, 1, { stage: 'running', percent: 40 })).toBe(true);
    expect(await recordProgress(t.db, a.id, 2, { stage: 'running', percent: 50 })).toBe(false);
    const g = (await selectGeneration(t.db, a.id))!;
    expect(g.progress).toEqual({ stage: 'running', percent: 40, version: g.version });
    expect(await generationVersions(t.db, [a.id, newId('gen')])).toEqual([{ id: a.id, version: g.version }]);
  });

  it("a retry queues the next attempt: reserved again, upstream history kept, the previous attempt's traces cleared", async () => {
    const a = await accept(t.db, org, { price: 10 });
    const g = (await selectGeneration(t.db, a.id))!;
    await chargeAndFinish(t.db, [{ g, end: { status: 'failed', charged: 0, result: null, error: { type: 't', code: 'c', message: 'm' }, upstreamId: 'u1', outputs: [] } }]);
    const history = [{ attempt: 1, provider: 'simulator', upstream_id: 'u1' }];
    await requeueForAttempt(t.db, a.id, 2, history);
    expect(await selectGeneration(t.db, a.id)).toMatchObject({
      status: 'queued', attempt: 2, upstream_history: history, upstream_id: null, error: null, reserved_credits: 20, completed_at: null, progress: null,
    });
  });

  it('pages list newest first before a cursor, filtered by status and modality, one row more than asked', async () => {
    const mine = await makeOrg(t.db);
    const gens = [];
    for (const modality of ['image', 'video', 'image'] as const) gens.push(await accept(t.db, mine, { modality }));
    await accept(t.db, mine, { mode: 'test', apiKeyId: mine.testKeyId });
    const seq = await generationSeq(t.db, gens[2]!.id, mine.id, 'live');
    expect(seq).not.toBeNull();
    expect(await generationSeq(t.db, gens[2]!.id, mine.id, 'test')).toBeNull();
    const all = await selectGenerationPage(t.db, { organizationId: mine.id, mode: 'live', beforeSeq: Number.MAX_SAFE_INTEGER, status: null, modality: null, limit: 2 });
    expect(all.map((g) => g.id)).toEqual([gens[2]!.id, gens[1]!.id, gens[0]!.id]);
    const before = await selectGenerationPage(t.db, { organizationId: mine.id, mode: 'live', beforeSeq: seq!, status: 'queued', modality: 'image', limit: 10 });
    expect(before.map((g) => g.id)).toEqual([gens[0]!.id]);
    expect(await selectGenerationPage(t.db, { organizationId: mine.id, mode: 'live', beforeSeq: seq! + 1, status: 'succeeded', modality: null, limit: 10 })).toEqual([]);
  });

  it("outputs come back in order per generation, and an output's blob with its generation's file expiry", async () => {
    const a = await accept(t.db, org);
    const g = (await selectGeneration(t.db, a.id))!;
    const out = (position: number) => ({
      id: newId('out'), generation_id: a.id, position, type: 'image', mime: 'image/png', width: 1, height: 1, duration_s: null,
      blob_key: `b/${a.id}/${position}`, size_bytes: 1, moderation_status: 'approved',
    });
    const outputs = [out(1), out(0)];
    await chargeAndFinish(t.db, [{ g, end: { status: 'succeeded', charged: 0, result: null, error: null, upstreamId: null, outputs } }]);
    const none = await accept(t.db, org);
    const map = await selectOutputs(t.db, [a.id, none.id]);
    expect(map.get(a.id)!.map((o) => o.position)).toEqual([0, 1]);
    expect(map.get(none.id)).toEqual([]);
    expect((await selectOutputs(t.db, [])).size).toBe(0);
    expect(await selectOutputBlob(t.db, outputs[0]!.id)).toEqual({ blob_key: `b/${a.id}/1`, mime: 'image/png', moderation_status: 'approved', files_expired_at: null });
    expect(await selectOutputBlob(t.db, newId('out'))).toBeNull();
  });

  it('a cache hit is a succeeded, uncharged copy sharing its source’s blobs, with its completed event; an expired source is none', async () => {
    const mine = await makeOrg(t.db);
    const src = await accept(t.db, mine, { cacheKey: 'ck', price: 0 });
    const g = (await selectGeneration(t.db, src.id))!;
    const outputs = [{ id: newId('out'), generation_id: src.id, position: 0, type: 'image', mime: 'image/png', width: 2, height: 2, duration_s: null, blob_key: 'blob-src', size_bytes: 9, moderation_status: 'approved' }];
    await chargeAndFinish(t.db, [{ g, end: { status: 'succeeded', charged: 0, result: { input_size: { width: 2, height: 2 } }, error: null, upstreamId: 'u', outputs } }]);
    expect(await selectCacheSource(t.db, mine.id, 'test', 'ck')).toBeNull();
    const source = (await selectCacheSource(t.db, mine.id, 'live', 'ck'))!;
    expect(source.id).toBe(src.id);
    const copy = {
      id: newId('gen'), organizationId: mine.id, apiKeyId: mine.liveKeyId, mode: 'live' as const, modality: 'image' as const, model: 'test-image', sync: false,
      prompt: 'a lighthouse', params: { prompt: 'a lighthouse' }, cacheKey: 'ck', newOutputId: () => newId('out'), eventId: newId('evt'),
    };
    expect(await t.db.tx((q) => insertCacheCopy(q, copy, source, outputs))).toBe(true);
    expect(await selectGeneration(t.db, copy.id)).toMatchObject({ status: 'succeeded', cache_hit: true, charged_credits: 0, provider: 'simulator', result: { input_size: { width: 2, height: 2 } } });
    expect((await selectOutputs(t.db, [copy.id])).get(copy.id)!.map((o) => o.blob_key)).toEqual(['blob-src']);
    expect(await row(t.db, 'events', 'id = $1', [copy.eventId])).toMatchObject({ type: 'generation.completed', data: { generation_id: copy.id, charged_credits: 0, status: 'succeeded' } });
    // The newest succeeded copy is now the source.
    expect((await selectCacheSource(t.db, mine.id, 'live', 'ck'))!.id).toBe(copy.id);
    await t.db.query('UPDATE generations SET files_expired_at = now() WHERE organization_id = $1', [mine.id]);
    expect(await selectCacheSource(t.db, mine.id, 'live', 'ck')).toBeNull();
    const again = { ...copy, id: newId('gen'), eventId: newId('evt') };
    expect(await t.db.tx((q) => insertCacheCopy(q, again, source, outputs))).toBe(false);
    expect(await selectGeneration(t.db, again.id)).toBeNull();
  });

  it("a comparison is read by its organization and mode, and its children in creation order", async () => {
    const cmp = await insertComparison(t.db, {
      id: newId('cmp'), organizationId: org.id, apiKeyId: org.liveKeyId, mode: 'live', modality: 'image', prompt: 'p', models: ['a', 'b'], params: { n: 1 }, reservedCredits: 4,
    });
    expect(cmp).toMatchObject({ status: 'queued', remaining: 2, reserved_credits: 4, models: ['a', 'b'] });
    const kids = [await accept(t.db, org, { comparisonId: cmp.id, model: 'a' }), await accept(t.db, org, { comparisonId: cmp.id, model: 'b' })];
    expect((await selectComparisonChildren(t.db, cmp.id)).map((g) => g.id)).toEqual(kids.map((k) => k.id));
    expect(await selectComparison(t.db, cmp.id, org.id, 'live')).toMatchObject({ id: cmp.id, prompt: 'p' });
    expect(await selectComparison(t.db, cmp.id, org.id, 'test')).toBeNull();
  });
});

describeEachBackend('store: simulator jobs', (backend) => {
  const t = useDb(backend);

  it('a client reference keeps its first job; jobs are read many at once, canceled once, found by reference', async () => {
    const rows = simulatorJobsIn(t.db);
    const job = (id: string, clientRef: string) => ({ id, clientRef, modality: 'image', upstreamModel: 'm', outcome: 'success' as const, readyAt: new Date('2030-01-01T00:00:00Z') });
    expect(await rows.submitAll([job('s1', 'r1'), job('s2', 'r1'), job('s3', 'r3')])).toEqual(['s1', 's1', 's3']);
    expect(await rows.submitAll([job('s4', 'r3')])).toEqual(['s3']);
    expect(await rows.findByClientRef('r3')).toBe('s3');
    expect(await rows.findByClientRef('nope')).toBeNull();
    await rows.cancel('s1');
    const first = (await row<{ canceled_at: Date }>(t.db, 'simulator_jobs', 'id = $1', ['s1']))!.canceled_at;
    await rows.cancel('s1');
    expect((await row<{ canceled_at: Date }>(t.db, 'simulator_jobs', 'id = $1', ['s1']))!.canceled_at).toEqual(first);
    const got = await rows.getAll(['s3', 'missing', 's1', 's3']);
    expect(got.map((j) => j?.id ?? null)).toEqual(['s3', null, 's1', 's3']);
    expect(got[2]).toMatchObject({ clientRef: 'r1', outcome: 'success', canceledAt: first });
    expect(got[0]!.readyAt.toISOString()).toBe('2030-01-01T00:00:00.000Z');
  });
});

describeEachBackend('store: idempotency keys', (backend) => {
  const t = useDb(backend);
  let org: Org;
  beforeEach(async () => {
    org ??= await makeOrg(t.db);
  });

  const bounds = { nodeDeadAfterSeconds: 10, staleAfterSeconds: 3600 };
  const claimOn = async (nodeId = 'node-live'): Promise<IdempotencyClaim> => {
    const c = { apiKeyId: org.liveKeyId, key: newId('req'), requestId: newId('req') };
    expect(await insertIdempotencyClaim(t.db, { ...c, method: 'POST', path: '/v1/images', requestSha256: 'sha', nodeId })).toBe(true);
    return c;
  };
  const find = (c: IdempotencyClaim, b = bounds) => findIdempotencyKey(t.db, c.apiKeyId, c.key, b);

  it('a key is claimed once: of requests racing with it, one holds it', async () => {
    const c = { apiKeyId: org.liveKeyId, key: newId('req'), method: 'POST', path: '/v1/images', requestSha256: 'sha', nodeId: 'n' };
    const won = await Promise.all([1, 2, 3].map(() => insertIdempotencyClaim(t.db, { ...c, requestId: newId('req') })));
    expect(won.filter(Boolean)).toHaveLength(1);
  });

  it('a claim is orphaned when its node is dead or it was not renewed in time; it is taken over by one request only', async () => {
    await beatNode(t.db, 'node-live');
    const c = await claimOn();
    expect(await find(c)).toMatchObject({ state: 'in_flight', method: 'POST', path: '/v1/images', request_sha256: 'sha', request_id: c.requestId, resource_id: null, expired: false, orphaned: false });
    expect(await find(c, { ...bounds, staleAfterSeconds: 0 })).toMatchObject({ orphaned: true });
    const dead = await claimOn('node-dead');
    expect(await find(dead)).toMatchObject({ orphaned: true });
    const takers = await Promise.all([1, 2].map(() => takeOverIdempotencyClaim(t.db, dead, newId('req'), 'node-live')));
    expect(takers.filter((x) => x === null)).toHaveLength(1);
    expect(takers.filter((x) => x === undefined)).toHaveLength(1);
    expect(await find(dead)).toMatchObject({ orphaned: false });
    expect(await claimStillHeld(t.db, dead)).toBe(false);
    expect(await findIdempotencyKey(t.db, org.liveKeyId, 'no-such-key', bounds)).toBeNull();
  });

  it('a taken-over claim answers what the dead request accepted', async () => {
    const c = await claimOn('node-dead');
    expect(await t.db.tx((q) => linkIdempotencyClaim(q, c, 'gen_accepted'))).toBe(true);
    expect(await takeOverIdempotencyClaim(t.db, c, newId('req'), 'node-live')).toBe('gen_accepted');
    expect(await linkIdempotencyClaim(t.db, c, 'gen_other')).toBe(false);
  });

  it('renewing keeps a claim fresh; completing keeps the response for replays', async () => {
    const c = await claimOn();
    await t.db.query(`UPDATE idempotency_keys SET locked_at = now() - interval '1 hour' WHERE idempotency_key = $1`, [c.key]);
    await renewIdempotencyClaim(t.db, { ...c, requestId: 'someone-else' });
    expect(await find(c, { ...bounds, staleAfterSeconds: 60 })).toMatchObject({ orphaned: true });
    await renewIdempotencyClaim(t.db, c);
    expect(await find(c, { ...bounds, staleAfterSeconds: 60 })).toMatchObject({ orphaned: false });
    await completeIdempotencyClaim(t.db, c, { status: 201, headers: { 'x-a': 'b' }, body: '{"ok":true}' });
    expect(await find(c)).toMatchObject({ state: 'completed', response_status: 201, response_headers: { 'x-a': 'b' }, response_body: '{"ok":true}', orphaned: false });
  });

  it('releasing frees the key when nothing was accepted or the generation failed; one still running stays bound, its node let go', async () => {
    const free = await claimOn();
    await releaseIdempotencyClaim(t.db, free);
    expect(await find(free)).toBeNull();
    const bound = await claimOn();
    const running = await accept(t.db, org, { claim: bound });
    await releaseIdempotencyClaim(t.db, bound);
    expect(await find(bound)).toMatchObject({ resource_id: running.id, orphaned: true });
    expect(await row(t.db, 'idempotency_keys', 'idempotency_key = $1', [bound.key])).toMatchObject({ node_id: null });
    const failed = await claimOn();
    const g = await accept(t.db, org, { claim: failed });
    await t.db.query(`UPDATE generations SET status = 'failed' WHERE id = $1`, [g.id]);
    await releaseIdempotencyClaim(t.db, failed);
    expect(await find(failed)).toBeNull();
  });

  it('expired keys are deleted one by one or swept; a fresh one is left', async () => {
    const old = await claimOn();
    const older = await claimOn();
    const fresh = await claimOn();
    await t.db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE idempotency_key IN ($1, $2)`, [old.key, older.key]);
    expect(await find(old)).toMatchObject({ expired: true });
    await deleteExpiredIdempotencyKey(t.db, fresh.apiKeyId, fresh.key);
    await deleteExpiredIdempotencyKey(t.db, old.apiKeyId, old.key);
    expect(await find(old)).toBeNull();
    expect(await find(fresh)).not.toBeNull();
    await deleteExpiredIdempotencyKeys(t.db);
    expect(await find(older)).toBeNull();
    expect(await find(fresh)).not.toBeNull();
  });
});
