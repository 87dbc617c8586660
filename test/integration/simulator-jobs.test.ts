import { afterAll, beforeAll, expect, it } from 'vitest';
import { batchedSimulatorJobs, type SimulatorJobs, type SimulatorSubmission } from '../../src/providers/simulator/jobs.js';
import type { Db, Queryable } from '../../src/store/db.js';
import { simulatorJobsIn } from '../../src/store/simulator-jobs.js';
import { describeOnBackend, freshDb } from '../helpers/server.js';

/**
 * The simulator's jobs, submitted and read through the batched port: calls that arrive together share one statement,
 * and each caller still gets its own answer, on both backends.
 */
describeOnBackend('simulator jobs, batched', 'postgres', (backend) => {
  let db: Db;
  let drop: () => Promise<void>;
  let statements: string[];
  let jobs: SimulatorJobs;

  beforeAll(async () => {
    ({ db, drop } = await freshDb(backend));
    statements = [];
    // Counts the statements the port sends: the store's SQL, through a Queryable that notes each.
    const counting: Queryable = {
      query: (sql, params) => {
        statements.push(sql.trim().split(/\s+/)[0]!.toUpperCase());
        return db.query(sql, params);
      },
    };
    jobs = batchedSimulatorJobs(simulatorJobsIn(counting));
  });
  afterAll(async () => {
    await drop();
  });

  const submission = (i: number, clientRef = `ref_${backend}_${i}`): SimulatorSubmission => ({
    id: `sim_${backend}_${i}_${Math.random().toString(36).slice(2, 8)}`,
    clientRef,
    modality: 'music',
    upstreamModel: 'musicgen',
    outcome: i % 2 === 0 ? 'success' : 'failure',
    readyAt: new Date(Date.UTC(2026, 10, 27, 12, 0, i)),
  });

  it('submissions made together are one statement, and each gets its own job id', async () => {
    statements.length = 0;
    const subs = Array.from({ length: 40 }, (_, i) => submission(i));
    const ids = await Promise.all(subs.map((s) => jobs.submit(s)));
    expect(ids).toEqual(subs.map((s) => s.id));
    expect(statements).toEqual(['INSERT']);
    const read = await Promise.all(subs.map((s) => jobs.get(s.id)));
    expect(statements).toEqual(['INSERT', 'SELECT']);
    for (const [i, job] of read.entries()) {
      expect(job).toMatchObject({ id: subs[i]!.id, clientRef: subs[i]!.clientRef, outcome: subs[i]!.outcome, canceledAt: null });
      expect(job!.readyAt.getTime()).toBe(subs[i]!.readyAt.getTime());
    }
  });

  it('a client reference submitted twice, in one batch or later, keeps its first job', async () => {
    const first = submission(100, `dup_${backend}`);
    const again = submission(101, `dup_${backend}`);
    const other = submission(102);
    const [a, b, c] = await Promise.all([jobs.submit(first), jobs.submit(again), jobs.submit(other)]);
    expect([a, b, c]).toEqual([first.id, first.id, other.id]);
    expect(await jobs.submit(submission(103, `dup_${backend}`))).toBe(first.id);
    expect(await jobs.findByClientRef(`dup_${backend}`)).toBe(first.id);
    expect(await jobs.get(again.id)).toBeNull();
  });

  it('reads of unknown and repeated ids in one batch: null, and the same job twice', async () => {
    const s = submission(200);
    await jobs.submit(s);
    statements.length = 0;
    const [x, y, z] = await Promise.all([jobs.get(s.id), jobs.get('sim_nope'), jobs.get(s.id)]);
    expect(statements).toEqual(['SELECT']);
    expect(x?.id).toBe(s.id);
    expect(y).toBeNull();
    expect(z?.id).toBe(s.id);
    await jobs.cancel(s.id);
    expect((await jobs.get(s.id))?.canceledAt).toBeInstanceOf(Date);
  });
});
