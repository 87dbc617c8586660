import { beforeEach, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { insertComparison } from '../../src/store/comparisons.js';
import { defaultDataPolicy, DEFAULT_REQUEST_LOG_DAYS, selectDataPolicies, selectRetainingPolicies, upsertDataPolicy } from '../../src/store/data-policies.js';
import { chargeAndFinish } from '../../src/store/finishing.js';
import { selectGeneration, type OutputRow } from '../../src/store/generations.js';
import { applyPendingSettlements } from '../../src/store/ledger.js';
import { selectModerationPolicy, updateModerationPolicy } from '../../src/store/moderation.js';
import {
  createRequestLogPartitions,
  deleteRequestLogBefore,
  dropRequestLogPartitionsBefore,
  insertRequestLogRows,
  listRequestLogPartitions,
  partitionName,
  requestLogBytes,
  selectPartitionPayloads,
  selectRequestLog,
  selectRequestLogPosition,
  type RequestLogInsert,
} from '../../src/store/request-log.js';
import {
  blobsStillHeld,
  lockGenerationsWithFiles,
  lockUploadsWithFiles,
  markGenerationFilesExpired,
  markUploadsExpired,
  reduceComparisonRecords,
  reduceGenerationRecords,
} from '../../src/store/retention.js';
import { findUpload, findUploadOf, insertUpload, lockUpload, markUploaded } from '../../src/store/uploads.js';
import { sumUsageRollups } from '../../src/store/usage.js';
import { describeEachBackend } from '../helpers/server.js';
import { accept, count, deferred, makeOrg, row, untilSomeoneWaitsOnALock, useDb, type Org } from './fixtures.js';

/**
 * What mmgen keeps and for how long (data-policies.ts, retention.ts, request-log.ts) and the records it keeps
 * (usage.ts, uploads.ts, moderation.ts) on each backend.
 */
describeEachBackend('store: records and retention', (backend) => {
  const t = useDb(backend);
  let org: Org;
  beforeEach(async () => {
    org = await makeOrg(t.db, { credits: 1_000 });
  });

  const finish = async (id: string, end: { status?: 'succeeded' | 'failed'; charged?: number; outputs?: OutputRow[]; result?: unknown } = {}) => {
    const g = (await selectGeneration(t.db, id))!;
    await chargeAndFinish(t.db, [{ g, end: { status: end.status ?? 'succeeded', charged: end.charged ?? 0, result: end.result ?? null, error: null, upstreamId: null, outputs: end.outputs ?? [] } }]);
  };
  const output = (generationId: string, blobKey: string, moderation = 'approved'): OutputRow => ({
    id: newId('out'), generation_id: generationId, position: 0, type: 'image', mime: 'image/png', width: 1, height: 1, duration_s: null,
    blob_key: blobKey, size_bytes: 1, moderation_status: moderation,
  });

  it('a data policy: the defaults without a row, the row once written, rewritten whole; retaining ones listed', async () => {
    const policies = await selectDataPolicies(t.db, [org.id, newId('org')]);
    expect(policies.size).toBe(1);
    expect(policies.get(org.id)).toEqual(defaultDataPolicy(org.id, org.seq));
    expect(policies.get(org.id)!.request_log_days).toBe(DEFAULT_REQUEST_LOG_DAYS);
    const written = await upsertDataPolicy(t.db, { organization_id: org.id, capture: 'full', redact_fields: ['a.b'], redact_patterns: ['x+'], request_log_days: 7, generation_days: 30, file_days: null });
    expect(written).toMatchObject({ organization_id: org.id, organization_seq: org.seq, capture: 'full', redact_fields: ['a.b'], generation_days: 30, file_days: null });
    expect(written.updated_at).toBeInstanceOf(Date);
    expect((await selectRetainingPolicies(t.db)).map((p) => p.organization_id)).toContain(org.id);
    const rewritten = await upsertDataPolicy(t.db, { ...written, capture: 'metadata', generation_days: null, file_days: null });
    expect(rewritten).toMatchObject({ capture: 'metadata', generation_days: null, redact_patterns: ['x+'] });
    expect((await selectDataPolicies(t.db, [org.id])).get(org.id)).toEqual(rewritten);
    expect((await selectRetainingPolicies(t.db)).map((p) => p.organization_id)).not.toContain(org.id);
    await expect(upsertDataPolicy(t.db, { ...written, request_log_days: 0 })).rejects.toMatchObject({ code: '23514' });
  });

  it('a moderation policy is written and read back whole', async () => {
    expect(await selectModerationPolicy(t.db, newId('org'))).toBeNull();
    const policy = { action: 'block' as const, threshold: 0.7, prompt_blocklist: ['forbidden'] };
    await updateModerationPolicy(t.db, org.id, policy);
    expect(await selectModerationPolicy(t.db, org.id)).toEqual(policy);
  });

  it('retention reduces ended generations made before the horizon, oldest first, a batch at a time; never a running one', async () => {
    const ended = [await accept(t.db, org), await accept(t.db, org)];
    for (const g of ended) await finish(g.id, { result: { message: { role: 'assistant', content: 'hi' }, input_url: 'https://x.test/in.png', input_size: { width: 1, height: 1 } } });
    const running = await accept(t.db, org, { sync: true });
    const horizon = new Date(Date.now() + 60_000);
    expect(await reduceGenerationRecords(t.db, org.id, horizon, ['prompt'], 1)).toBe(1);
    expect(await selectGeneration(t.db, ended[0]!.id)).toMatchObject({ prompt: null, params: { size: '1024x1024' }, result: { input_size: { width: 1, height: 1 } } });
    expect((await selectGeneration(t.db, ended[0]!.id))!.prompt_expired_at).toBeInstanceOf(Date);
    expect((await selectGeneration(t.db, ended[1]!.id))!.prompt).toBe('a lighthouse');
    expect(await reduceGenerationRecords(t.db, org.id, horizon, ['prompt'], 10)).toBe(1);
    expect(await reduceGenerationRecords(t.db, org.id, horizon, ['prompt'], 10)).toBe(0);
    expect((await selectGeneration(t.db, running.id))!.prompt).toBe('a lighthouse');
    expect(await reduceGenerationRecords(t.db, org.id, new Date(Date.now() - 3_600_000), ['prompt'], 10)).toBe(0);
  });

  it('retention reduces completed comparisons only', async () => {
    const cmp = (status: string) =>
      insertComparison(t.db, { id: newId('cmp'), organizationId: org.id, apiKeyId: org.liveKeyId, mode: 'live', modality: 'image', prompt: 'p', models: ['a'], params: { prompt: 'p', n: 1 }, reservedCredits: 0 })
        .then(async (c) => (await t.db.query('UPDATE comparisons SET status = $2 WHERE id = $1', [c.id, status]), c));
    const done = await cmp('completed');
    const going = await cmp('running');
    expect(await reduceComparisonRecords(t.db, org.id, new Date(Date.now() + 60_000), ['prompt'], 10)).toBe(1);
    expect(await row(t.db, 'comparisons', 'id = $1', [done.id])).toMatchObject({ prompt: null, params: { n: 1 } });
    expect(await row(t.db, 'comparisons', 'id = $1', [going.id])).toMatchObject({ prompt: 'p' });
  });

  it("file retention locks ended generations with every blob they name, leaves those awaiting moderation, and stamps them", async () => {
    const a = await accept(t.db, org, { modality: 'avatar' });
    await finish(a.id, { outputs: [output(a.id, `out/${a.id}`)], result: { input_blob: `in/${a.id}`, input_audio_blob: `audio/${a.id}` } });
    const pending = await accept(t.db, org);
    await finish(pending.id, { outputs: [output(pending.id, `out/${pending.id}`, 'pending')] });
    const horizon = new Date(Date.now() + 60_000);
    const locked = await t.db.tx((q) => lockGenerationsWithFiles(q, org.id, horizon, 10));
    expect(locked.map((g) => g.id)).toEqual([a.id]);
    expect(locked[0]!.keys.sort()).toEqual([`audio/${a.id}`, `in/${a.id}`, `inputs/${a.id}-speech`, `out/${a.id}`].sort());
    await markGenerationFilesExpired(t.db, [a.id]);
    expect((await selectGeneration(t.db, a.id))!.files_expired_at).toBeInstanceOf(Date);
    expect(await t.db.tx((q) => lockGenerationsWithFiles(q, org.id, horizon, 10))).toEqual([]);
  });

  it("a blob a cache copy shares is still held by the copy; the copy's own expiry lets it go", async () => {
    const src = await accept(t.db, org, { cacheKey: 'ck-r' });
    await finish(src.id, { outputs: [output(src.id, 'shared-blob')] });
    const copy = await accept(t.db, org, { cacheKey: 'ck-r' });
    await finish(copy.id, { outputs: [output(copy.id, 'shared-blob')] });
    expect(await blobsStillHeld(t.db, org.id, ['ck-r'], [src.id], ['shared-blob', 'other'])).toEqual(new Set(['shared-blob']));
    expect(await blobsStillHeld(t.db, org.id, [], [src.id], ['shared-blob'])).toEqual(new Set());
    expect(await blobsStillHeld(t.db, org.id, ['ck-r'], [src.id], [])).toEqual(new Set());
    await markGenerationFilesExpired(t.db, [copy.id]);
    expect(await blobsStillHeld(t.db, org.id, ['ck-r'], [src.id], ['shared-blob'])).toEqual(new Set());
  });

  it("file batches of one organization take turns across nodes", async () => {
    if (backend !== 'postgres') return;
    const a = await accept(t.db, org);
    await finish(a.id);
    const horizon = new Date(Date.now() + 60_000);
    const inside = deferred();
    const done = deferred();
    const order: string[] = [];
    const first = t.db.tx(async (q) => {
      const got = await lockGenerationsWithFiles(q, org.id, horizon, 10);
      inside.resolve();
      await done.promise;
      await markGenerationFilesExpired(q, got.map((g) => g.id));
      order.push('first stamped');
    });
    await inside.promise;
    const second = t.db.tx(async (q) => {
      const got = await lockGenerationsWithFiles(q, org.id, horizon, 10);
      order.push(`second found ${got.length}`);
    });
    await untilSomeoneWaitsOnALock(t.db, 'pg_advisory_xact_lock');
    done.resolve();
    await Promise.all([first, second]);
    expect(order).toEqual(['first stamped', 'second found 0']);
  });

  it('uploads: made, found by owner or alone, locked, marked uploaded; file retention locks and stamps them', async () => {
    const u = await insertUpload(t.db, { id: newId('upl'), organizationId: org.id, apiKeyId: org.liveKeyId, mode: 'live', contentType: 'audio/wav', sizeBytes: 10, expiresAt: new Date(Date.now() + 60_000) });
    expect(u).toMatchObject({ status: 'pending', blob_key: null, size_bytes: 10, file_expired_at: null });
    expect(await findUploadOf(t.db, u.id, org.id, 'test')).toBeNull();
    expect(await findUploadOf(t.db, u.id, org.id, 'live')).toMatchObject({ id: u.id });
    expect(await findUpload(t.db, u.id)).toMatchObject({ id: u.id });
    expect(await findUpload(t.db, newId('upl'))).toBeNull();
    const up = await t.db.tx(async (q) => {
      expect(await lockUpload(q, u.id)).toMatchObject({ id: u.id });
      return markUploaded(q, u.id, { sizeBytes: 12, width: null, height: null, durationMs: 1500, blobKey: `uploads/${u.id}`, sha256: 'abc' });
    });
    expect(up).toMatchObject({ status: 'uploaded', size_bytes: 12, duration_ms: 1500, blob_key: `uploads/${u.id}`, sha256: 'abc' });
    expect(await lockUpload(t.db, newId('upl'))).toBeNull();
    // An uploaded file needs its blob and size (the table's check).
    const bad = await insertUpload(t.db, { id: newId('upl'), organizationId: org.id, apiKeyId: org.liveKeyId, mode: 'live', contentType: 'image/png', sizeBytes: 1, expiresAt: new Date() });
    await expect(markUploaded(t.db, bad.id, { sizeBytes: 1, width: null, height: null, durationMs: null, blobKey: 'k', sha256: 's' })).rejects.toMatchObject({ code: '23514' });
    const kept = await t.db.tx((q) => lockUploadsWithFiles(q, org.id, new Date(Date.now() + 60_000), 10));
    expect(kept.map((x) => [x.id, x.blob_key])).toEqual([[u.id, `uploads/${u.id}`], [bad.id, null]]);
    await markUploadsExpired(t.db, [u.id]);
    expect((await t.db.tx((q) => lockUploadsWithFiles(q, org.id, new Date(Date.now() + 60_000), 10))).map((x) => x.id)).toEqual([bad.id]);
  });

  it('usage sums its rollups per dimension, with a breakdown, over a range of days', async () => {
    const a = await accept(t.db, org, { price: 10, modality: 'image', model: 'm-a' });
    await finish(a.id, { charged: 8 });
    const b = await accept(t.db, org, { price: 10, modality: 'video', model: 'm-b' });
    await finish(b.id, { charged: 10 });
    await applyPendingSettlements(t.db, org.id);
    const day = new Date().toISOString().slice(0, 10);
    const f = { organizationId: org.id, mode: 'live', start: day, end: day };
    expect(await sumUsageRollups(t.db, { ...f, groupBy: 'day' })).toEqual([{ key: day, sub: '', generations: '2', charged: '18', refunded: '2' }]);
    expect(await sumUsageRollups(t.db, { ...f, groupBy: 'model', breakdown: 'modality' })).toEqual([
      { key: 'm-a', sub: 'image', generations: '1', charged: '8', refunded: '2' },
      { key: 'm-b', sub: 'video', generations: '1', charged: '10', refunded: '0' },
    ]);
    expect((await sumUsageRollups(t.db, { ...f, groupBy: 'api_key' }))[0]!.key).toBe(org.liveKeyId);
    expect((await sumUsageRollups(t.db, { ...f, groupBy: 'price_version' }))[0]!.key).toBe('pv1');
    expect(await sumUsageRollups(t.db, { ...f, mode: 'test', groupBy: 'day' })).toEqual([]);
  });
});

describeEachBackend('store: the request log', (backend) => {
  const t = useDb(backend);

  const logRow = (org: Org, over: Partial<RequestLogInsert> = {}): RequestLogInsert => ({
    at: new Date(), expiresOn: '2099-01-02', latencyUs: 1234, status: 200, live: true, organization: org.seq, requestId: newId('req'),
    route: 'POST /v1/images', keyId: org.liveKeyId, model: 'test-image', generationId: null, errorCode: null, payload: null, ...over,
  });

  it('partitions are made per expiry day (once, however often asked), listed, and dropped once their day has passed', async () => {
    expect(() => partitionName('2099-1-2')).toThrow(/not a day/);
    await createRequestLogPartitions(t.db, []);
    await createRequestLogPartitions(t.db, ['2000-01-01', '2099-01-02']);
    await Promise.all([createRequestLogPartitions(t.db, ['2099-01-02', '2099-01-03']), createRequestLogPartitions(t.db, ['2099-01-03'])]);
    const days = (await listRequestLogPartitions(t.db)).map((p) => p.day);
    expect(days).toEqual(expect.arrayContaining(['2000-01-01', '2099-01-02', '2099-01-03']));
    expect((await listRequestLogPartitions(t.db)).find((p) => p.day === '2099-01-02')!.name).toBe('request_log_e20990102');
    expect(await dropRequestLogPartitionsBefore(t.db, '2001-01-01')).toEqual(['2000-01-01']);
    expect((await listRequestLogPartitions(t.db)).map((p) => p.day)).not.toContain('2000-01-01');
    expect(await dropRequestLogPartitionsBefore(t.db, '2001-01-01')).toEqual([]);
    expect(await requestLogBytes(t.db)).toBeGreaterThan(0);
  });

  it('a batch of rows is one statement; rows are searched by each filter, newest first, and paged by cursor', async () => {
    const org = await makeOrg(t.db);
    const other = await makeOrg(t.db);
    await createRequestLogPartitions(t.db, ['2099-01-02']);
    const gen = await accept(t.db, org, { price: 0 });
    await chargeAndFinish(t.db, [{ g: (await selectGeneration(t.db, gen.id))!, end: { status: 'succeeded', charged: 0, result: null, error: null, upstreamId: null, outputs: [] } }]);
    const t0 = Date.now() - 10_000;
    const rows = [
      logRow(org, { at: new Date(t0), requestId: 'req_a', generationId: gen.id }),
      logRow(org, { at: new Date(t0 + 1_000), requestId: 'req_b', status: 404, errorCode: 'not_found', route: 'GET /v1/generations/x', model: null, payload: 'payloads/b' }),
      logRow(org, { at: new Date(t0 + 2_000), requestId: 'req_c', status: 429, live: false }),
      logRow(other, { at: new Date(t0 + 3_000), requestId: 'req_d' }),
    ];
    await insertRequestLogRows(t.db, []);
    await insertRequestLogRows(t.db, rows);
    const base = { organizationId: org.id, organization: org.seq, live: true, since: new Date(t0 - 1_000) };
    const ids = async (f: Partial<Parameters<typeof selectRequestLog>[1]>, limit = 10) => (await selectRequestLog(t.db, { ...base, ...f }, limit)).map((r) => r.request_id);
    expect(await ids({})).toEqual(['req_b', 'req_a']);
    expect(await ids({ live: false })).toEqual(['req_c']);
    expect(await ids({ requestId: 'req_a' })).toEqual(['req_a']);
    expect(await ids({ status: { from: 404, to: 404 } })).toEqual(['req_b']);
    expect(await ids({ status: { from: 400, to: 499 } })).toEqual(['req_b']);
    expect(await ids({ route: 'POST /v1/images' })).toEqual(['req_a']);
    expect(await ids({ route: '/v1/generations/x' })).toEqual(['req_b']);
    expect(await ids({ model: 'test-image' })).toEqual(['req_a']);
    expect(await ids({ keyId: org.liveKeyId })).toEqual(['req_b', 'req_a']);
    expect(await ids({ generationId: gen.id })).toEqual(['req_a']);
    expect(await ids({ until: new Date(t0 + 500) })).toEqual(['req_a']);
    expect(await ids({ since: new Date(t0 + 500) })).toEqual(['req_b']);
    expect(await ids({}, 1)).toEqual(['req_b']);
    const position = (await selectRequestLogPosition(t.db, org.seq, true, 'req_b'))!;
    expect(position.at.getTime()).toBe(t0 + 1_000);
    expect(await selectRequestLogPosition(t.db, org.seq, false, 'req_b')).toBeNull();
    expect(await ids({ before: { at: position.at, requestId: 'req_b' } })).toEqual(['req_a']);
    const [a] = await selectRequestLog(t.db, { ...base, requestId: 'req_a' }, 1);
    expect(a).toMatchObject({ route: 'POST /v1/images', status: 200, latency_us: 1234, key_id: org.liveKeyId, cost_credits: 0, payload: null });
    expect((await selectRequestLog(t.db, { ...base, requestId: 'req_b' }, 1))[0]).toMatchObject({ error_code: 'not_found', cost_credits: null, payload: 'payloads/b' });
    expect(await selectPartitionPayloads(t.db, '2099-01-02')).toEqual(['payloads/b']);
    expect(await deleteRequestLogBefore(t.db, org.seq, new Date(t0 + 1_500))).toBe(2);
    expect(await ids({})).toEqual([]);
    expect(await count(t.db, 'request_log', 'organization = $1', [other.seq])).toBe(1);
  });

  it('a row whose expiry day has no partition is refused', async () => {
    const org = await makeOrg(t.db);
    await expect(insertRequestLogRows(t.db, [logRow(org, { expiresOn: '2098-06-06' })])).rejects.toMatchObject({ code: '23514' });
  });
});
