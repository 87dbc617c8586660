import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * A synchronous request whose run loses its job's lease (another node took
 * the job: its own was judged dead, or its lease ran out) answers with what
 * the runner that took over produced, as a request resumed from an
 * Idempotency-Key does, instead of a 200 with the generation still running.
 */
describeOnBackend('a synchronous run that loses its lease', 'postgres', (backend) => {
  let s: TestServer;
  let worker: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;

  beforeAll(async () => {
    // A short lease, renewed every 500 ms: the loss is noticed within a second. The API node runs no worker; a
    // second node on the same database (another node id) does, and takes the job over.
    const env = { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_JOB_LEASE_MS: '1500', MMGEN_WORKER_POLL_MS: '50' };
    s = await startTestServer(backend, env, { worker: false });
    worker = await startTestServer(backend, env, { sameDbAs: s });
    api = client(s.url);
    org = await s.createOrg({ credits: 100_000 });
  });
  afterAll(async () => {
    await worker?.close();
    await s?.close();
  });

  it('waits for the runner that took its job, and answers with the finished generation', async () => {
    const prompt = `lost lease ${Date.now()}`;
    const pending = api('POST', '/v1/images', { key: org.live, body: { model: 'flux-schnell', prompt, width: 256, height: 256, simulate: { delay_ms: 2500 } } });
    // Once the generation runs here, its job is handed back as if this node had been judged dead: the other node's worker takes it.
    let id: string | undefined;
    for (let i = 0; i < 200 && !id; i++) {
      const r = await s.db.query<{ id: string }>(`SELECT id FROM generations WHERE prompt = $1 AND status = 'running' AND upstream_id IS NOT NULL`, [prompt]);
      id = r.rows[0]?.id;
      if (!id) await new Promise((r) => setTimeout(r, 20));
    }
    expect(id).toBeDefined();
    await s.db.query(`UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL, run_at = now() WHERE generation_id = $1`, [id]);
    const res = await pending;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'succeeded' });
    expect(res.body.outputs).toHaveLength(1);
    expect(res.body.charged_credits).toBe(res.body.reserved_credits);
    // The worker's node finished it.
    const row = await s.db.query<{ runner_node: string }>('SELECT runner_node FROM generations WHERE id = $1', [id]);
    expect(row.rows[0]!.runner_node).toBe(worker.runtime.deps.nodeId);
  }, 30_000);
});
