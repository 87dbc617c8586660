import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakes, type Fakes } from '../fakes/index.js';
import { Worker } from '../../src/jobs/worker.js';
import { expectInvariant } from '../helpers/generations.js';
import { expectWalletMatchesLedger } from '../helpers/money.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * A submission whose answer is lost (issue 18, item 7): the provider's fake
 * creates the job, then drops the connection. The attempt fails (refunded,
 * never resubmitted blindly), and the retry asks the provider for the job it
 * created before submitting again: Replicate lists its predictions with their
 * input, so the job is adopted and runs once; fal lists nothing mmgen can find
 * a queued request by, so the retry submits again. Either way the caller pays
 * once (docs/contract-addenda.md, "Jobs and reconciliation").
 */
type Api = ReturnType<typeof client>;

describeOnBackend('a submission whose answer was lost', 'postgres', (backend) => {
  let fakes: Fakes;
  let s: TestServer;
  let api: Api;
  let org: TestOrg;
  let worker: Worker;

  beforeAll(async () => {
    fakes = await startFakes({ jobMs: 40 });
    // No worker loop: each test runs the worker's rounds itself (runOnce) and reads the generation once they settled.
    s = await startTestServer(backend, { ...fakes.env, MMGEN_ALLOW_PRIVATE_NETWORK: '1', MMGEN_CIRCUIT_FAILURE_THRESHOLD: '50' }, { worker: false });
    worker = new Worker(s.runtime.deps);
    api = client(s.url);
    org = await s.createOrg({ credits: 5_000_000 });
  });
  afterAll(async () => {
    await s?.close();
    await fakes?.close();
  });

  /** One worker round, which runs the generation's queued attempt to its end; the generation as the API then answers it. */
  async function runRound(id: string): Promise<any> {
    expect(await worker.runOnce()).toEqual([{ generationId: id, outcome: 'finished' }]);
    return (await api('GET', `/v1/generations/${id}`, { key: org.live })).body;
  }

  /** Submits with the create's answer lost, runs the failed attempt, retries it, and runs it to the end. */
  async function loseThenRetry(path: string, body: Record<string, unknown>, fake: Fakes['replicate'] | Fakes['fal'], create: RegExp) {
    const before = await expectWalletMatchesLedger(s.db, org.id);
    const creates = fake.calls('POST', create).length;
    fake.misbehave({ method: 'POST', path: create }, { lose: true });
    const res = await api('POST', path, { key: org.live, body });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const failed = await runRound(res.body.id);
    expect(failed.status).toBe('failed');
    expect(failed).toMatchObject({ charged_credits: 0, refunded_credits: failed.reserved_credits });
    // The provider did take the work: the job exists upstream, its answer never reached mmgen.
    expect(fake.calls('POST', create).length - creates).toBe(1);
    const retried = await api('POST', `/v1/generations/${res.body.id}/retry`, { key: org.live });
    expect(retried.status).toBe(202);
    const done = await runRound(res.body.id);
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    expectInvariant(done);
    const p = failed.reserved_credits as number;
    // Two attempts reserved; one is charged, the other refunded; the wallet agrees with the ledger.
    expect(done).toMatchObject({ reserved_credits: 2 * p, charged_credits: p, refunded_credits: p });
    const after = await expectWalletMatchesLedger(s.db, org.id);
    expect(after.balance).toBe(before.balance - p);
    expect(after.held).toBe(before.held);
    return { done, creates: fake.calls('POST', create).length - creates };
  }

  it('Replicate: the retry adopts the prediction the lost create made; created once, charged once', async () => {
    const earlier = new Set(fakes.replicate.predictions.keys());
    const lists = fakes.replicate.calls('GET', '/v1/predictions').length;
    const { done, creates } = await loseThenRetry('/v1/music', { model: 'musicgen', prompt: 'lost drums', duration_s: 5 }, fakes.replicate, /\/predictions$/);
    expect(creates).toBe(1);
    // The prediction the lost create made is the one the generation recorded and took its result from.
    const made = [...fakes.replicate.predictions.keys()].filter((id) => !earlier.has(id));
    expect(made).toHaveLength(1);
    const row = await s.db.query<{ upstream_id: string }>('SELECT upstream_id FROM generations WHERE id = $1', [done.id]);
    expect(row.rows[0]!.upstream_id).toBe(made[0]);
    expect(fakes.replicate.predictions.get(made[0]!)!.status).toBe('succeeded');
    // Found by listing, once.
    expect(fakes.replicate.calls('GET', '/v1/predictions').length - lists).toBe(1);
  });

  it('a fallback route whose create answer is lost: the attempt names that provider, and the retry adopts its prediction', async () => {
    // kling-v2.5-turbo-pro: fal first, then Replicate. fal answers 503 before taking the work (fallback), and
    // Replicate's create is lost.
    const earlier = new Set(fakes.replicate.predictions.keys());
    fakes.fal.misbehave({ method: 'POST', path: /kling-video/ }, { reply: { status: 503, body: { detail: 'overloaded' } } });
    const { done, creates } = await loseThenRetry('/v1/videos', { model: 'kling-v2.5-turbo-pro', prompt: 'lost waves', duration_s: 5 }, fakes.replicate, /\/predictions$/);
    expect(creates).toBe(1);
    const made = [...fakes.replicate.predictions.keys()].filter((id) => !earlier.has(id));
    expect(made).toHaveLength(1);
    const row = await s.db.query<{ upstream_id: string; provider: string }>('SELECT upstream_id, provider FROM generations WHERE id = $1', [done.id]);
    expect(row.rows[0]).toEqual({ upstream_id: made[0], provider: 'replicate' });
  });

  describe('fal', () => {
    it('offers no way to find the request: the retry submits again (the work runs twice upstream), charged once', async () => {
      const { creates } = await loseThenRetry('/v1/music', { model: 'ace-step', prompt: 'lost chords', duration_s: 5 }, fakes.fal, /^\/fal-ai\/ace-step$/);
      expect(creates).toBe(2);
    });
  });
});
