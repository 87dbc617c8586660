import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalog } from '../../src/catalog/index.js';
import { CATALOG } from '../../src/catalog/models.js';
import { loadConfig } from '../../src/config.js';
import { findKeyBySecret } from '../../src/domain/api-keys.js';
import { operatorOrigin } from '../../src/domain/audit.js';
import type { Principal } from '../../src/domain/access.js';
import { createOrganization } from '../../src/domain/organizations.js';
import { Settler } from '../../src/billing/settler.js';
import { chargeAndFinish, MAX_FINISH_BATCH } from '../../src/billing/statements.js';
import { DiskBlobStore } from '../../src/files/disk-store.js';
import { acceptRequest, type AcceptRequestPorts } from '../../src/generations/accept-request.js';
import { Headroom } from '../../src/generations/headroom.js';
import { MODALITY_RULES } from '../../src/generations/modalities.js';
import { Batcher } from '../../src/jobs/batcher.js';
import { InflightWork } from '../../src/jobs/inflight.js';
import { Worker, type WorkerPorts } from '../../src/jobs/worker.js';
import { Lifecycle } from '../../src/lifecycle.js';
import { Metrics } from '../../src/metrics.js';
import { classifiersFor } from '../../src/moderation/classifiers.js';
import { Moderator } from '../../src/moderation/moderator.js';
import { PolicyCache } from '../../src/moderation/policy.js';
import { PROVIDER_DECLARATIONS } from '../../src/providers/index.js';
import { recordedLifecycle } from '../../src/providers/lifecycle.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import { batchedSimulatorJobs } from '../../src/providers/simulator/jobs.js';
import { DataPolicyCache } from '../../src/request-log/policies.js';
import type { Db } from '../../src/store/db.js';
import { claimDueJobsTakingUp, releaseNodeLeases } from '../../src/store/jobs.js';
import { migrate } from '../../src/store/migrate.js';
import { simulatorJobsIn } from '../../src/store/simulator-jobs.js';
import { NO_TRACING } from '../../src/tracing.js';
import { makeAjv } from '../../src/validation.js';
import { Wakeup } from '../../src/wakeup.js';
import { CallGate } from '../fakes/base.js';
import { FalFake, kindOfUpstream, ReplicateFake } from '../fakes/index.js';
import { TEST_CATALOG_DATE } from '../helpers/catalog.js';
import { expectWalletMatchesLedger } from '../helpers/money.js';
import { freshDb } from '../helpers/server.js';

/**
 * The worker driven through its ports, with no HTTP server of mmgen's (issue 43, item 5): the ports built as
 * main.ts runtimeOn builds them, but only those a worker and the accepting use case reach; a real store on PGlite;
 * the real Replicate and fal adapters against their loopback fakes (which refuse what the real APIs refuse). Each
 * test accepts a generation with acceptRequest (what the routes call), runs one round with Worker.runOnce() and
 * reads the store once the round's promise has settled: nothing sleeps or polls.
 *
 * No port of the worker path takes a Clock: what is due, and whose lease runs, is the database's now(). The tests
 * steer it through the store as the other nodes would: a lease held by another node, a lease handed back.
 *
 * lyria-2 (music, queued): Replicate first, then fal.
 */
type Ports = WorkerPorts & AcceptRequestPorts;

const REPLICATE_CREATE = /^\/v1\/models\/google\/lyria-2\/predictions$/;
const REPLICATE_POLL = /^\/v1\/predictions\/[^/]+$/;
const FAL_CREATE = /^\/fal-ai\/lyria2$/;

/** The ports of one node, as runtimeOn wires them (a subset: nothing HTTP, no follower, no retention, no beats). */
function portsOf(db: Db, env: Record<string, string>, dataDir: string, nodeId: string): Ports {
  const config = loadConfig({
    MMGEN_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    MMGEN_CATALOG_DATE: TEST_CATALOG_DATE,
    MMGEN_MODERATION_LOCAL: 'off',
    // The fakes serve their files from loopback.
    MMGEN_ALLOW_PRIVATE_NETWORK: '1',
    // The failures these tests plant must not open a circuit for the tests after them.
    MMGEN_CIRCUIT_FAILURE_THRESHOLD: '50',
    // The shortest lease: renewed every 200 ms, so a run notices a lost one within that.
    MMGEN_JOB_LEASE_MS: '500',
    ...env,
  });
  const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const c = classifiersFor(config);
  // No operator records: the shipped ones alone, as the registry reads them by default.
  const providers = new ProviderRegistry(config, batchedSimulatorJobs(simulatorJobsIn(db)), PROVIDER_DECLARATIONS);
  return {
    config, db, log, nodeId,
    catalog: new Catalog(CATALOG, recordedLifecycle(config.catalogDate, providers.records)),
    blobs: new DiskBlobStore(join(dataDir, 'files')),
    providers,
    inflight: new InflightWork(),
    metrics: new Metrics(db),
    lifecycle: new Lifecycle(),
    settler: new Settler(db, log, { delayMs: config.settleDelayMs, sweepMs: config.settleSweepMs }),
    finishes: new Batcher((items) => chargeAndFinish(db, items), { delayMs: config.finishBatchMs, maxItems: MAX_FINISH_BATCH }),
    headroom: new Headroom(),
    jobsAvailable: new Wakeup(),
    policies: new PolicyCache(),
    moderator: new Moderator(c.image, { text: c.text, close: c.close, saturated: c.saturated }),
    dataPolicies: new DataPolicyCache(db),
    stripe: undefined,
    tracing: NO_TRACING,
  };
}

const validMusic = makeAjv(false).compile(MODALITY_RULES.music.request.schema);

interface Ledger {
  kind: string;
  balance_delta: number;
  held_delta: number;
}

describe('the worker through its ports [pglite]', () => {
  let db: Db;
  let dataDir: string;
  let replicate: ReplicateFake;
  let fal: FalFake;
  let ports: Ports;
  let worker: Worker;
  let principal: Principal;
  let organizationId: string;

  beforeAll(async () => {
    [replicate, fal] = await Promise.all([new ReplicateFake({ kindOf: kindOfUpstream }).start(), new FalFake({ kindOf: kindOfUpstream }).start()]);
    ({ db } = await freshDb('pglite'));
    await migrate(db);
    dataDir = mkdtempSync(join(tmpdir(), 'mmgen-worker-ports-'));
    ports = portsOf(db, { REPLICATE_API_TOKEN: replicate.key, REPLICATE_BASE_URL: replicate.baseUrl, FAL_KEY: fal.key, FAL_BASE_URL: fal.baseUrl }, dataDir, 'node-a');
    worker = new Worker(ports);
    const created = await createOrganization(db, { name: 'worker ports', plan: 'team', enterprise: false, credits: 1_000_000 }, operatorOrigin('test'));
    organizationId = created.organization.id;
    principal = (await findKeyBySecret(db, created.keys.live))!.principal;
  });
  afterAll(async () => {
    await ports?.finishes.flush();
    await ports?.settler.stop();
    await ports?.providers.close();
    await db?.close();
    await Promise.all([replicate?.close(), fal?.close()]);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** A queued music generation, accepted as POST /v1/music accepts it (the body validated, defaults applied). */
  async function accept(prompt: string): Promise<{ id: string; reserved: number }> {
    const body: Record<string, unknown> = { model: 'lyria-2', prompt };
    const sent = new Set(Object.keys(body));
    expect(validMusic(body), JSON.stringify(validMusic.errors)).toBe(true);
    const { g } = await acceptRequest(ports, principal, { kind: 'generation', modality: 'music', body, sent });
    expect(g).toMatchObject({ status: 'queued', sync: false, provider: 'replicate' });
    return { id: g.id, reserved: g.reserved_credits };
  }

  async function generation(id: string) {
    const r = await db.query<{ status: string; provider: string; runner_node: string | null; reserved_credits: number; charged_credits: number; refunded_credits: number; error: { code?: string } | null; version: number }>(
      'SELECT status, provider, runner_node, reserved_credits, charged_credits, refunded_credits, error, version FROM generations WHERE id = $1',
      [id],
    );
    return r.rows[0]!;
  }

  async function ledger(id: string): Promise<Ledger[]> {
    const r = await db.query<Ledger>('SELECT kind, balance_delta::int AS balance_delta, held_delta::int AS held_delta FROM ledger_entries WHERE generation_id = $1 ORDER BY id', [id]);
    return r.rows;
  }

  async function events(id: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
    const r = await db.query<{ type: string; data: Record<string, unknown> }>(`SELECT type, data FROM events WHERE data->>'generation_id' = $1`, [id]);
    return r.rows;
  }

  async function jobOf(id: string) {
    const r = await db.query<{ lease_owner: string | null }>('SELECT lease_owner FROM jobs WHERE generation_id = $1', [id]);
    return r.rows[0] ?? null;
  }

  /** Succeeded, charged once (what the charge row says), the rest of the reservation released, announced once. */
  async function expectChargedOnce(id: string): Promise<void> {
    const g = await generation(id);
    expect(g.status).toBe('succeeded');
    expect(g.charged_credits).toBeGreaterThan(0);
    expect(g.charged_credits + g.refunded_credits).toBe(g.reserved_credits);
    const rows = await ledger(id);
    expect(rows.filter((r) => r.kind === 'charge')).toEqual([{ kind: 'charge', balance_delta: -g.charged_credits, held_delta: -g.charged_credits }]);
    expect(rows.filter((r) => r.kind === 'release')).toEqual(g.refunded_credits > 0 ? [{ kind: 'release', balance_delta: 0, held_delta: -g.refunded_credits }] : []);
    expect((await events(id)).map((e) => e.type)).toEqual(['generation.completed']);
    const outputs = await db.query<{ type: string }>('SELECT type FROM generation_outputs WHERE generation_id = $1', [id]);
    expect(outputs.rows.map((o) => o.type)).toEqual(['audio']);
    expect(await jobOf(id)).toBeNull();
  }

  it('a round with nothing due resolves with nothing and changes nothing; a job handed back is due again', async () => {
    expect(await worker.runOnce()).toEqual([]);

    // Another node holds the job's lease: not due here.
    const { id } = await accept('held elsewhere');
    expect((await claimDueJobsTakingUp(db, 'node-elsewhere', 60, 10, 5)).map((j) => j.generation_id)).toEqual([id]);
    const before = { g: await generation(id), ledger: await ledger(id), wallet: await expectWalletMatchesLedger(db, organizationId) };
    const creates = replicate.calls('POST').length;
    expect(await worker.runOnce()).toEqual([]);
    expect({ g: await generation(id), ledger: await ledger(id), wallet: await expectWalletMatchesLedger(db, organizationId) }).toEqual(before);
    expect(before.g).toMatchObject({ status: 'running', runner_node: 'node-elsewhere' });
    expect(replicate.calls('POST').length).toBe(creates);
    expect(await events(id)).toEqual([]);

    // That node is judged dead: its lease is handed back, and the next round here runs the job to its end.
    await releaseNodeLeases(db, 'node-elsewhere');
    expect(await worker.runOnce()).toEqual([{ generationId: id, outcome: 'finished' }]);
    expect((await generation(id)).runner_node).toBe('node-a');
    await expectChargedOnce(id);
  });

  it('a job that succeeds: one charge, its output stored, generation.completed', async () => {
    const { id } = await accept('a calm sea');
    const creates = replicate.calls('POST', REPLICATE_CREATE).length;
    expect(await worker.runOnce()).toEqual([{ generationId: id, outcome: 'finished' }]);
    await expectChargedOnce(id);
    expect(await generation(id)).toMatchObject({ provider: 'replicate', runner_node: 'node-a' });
    expect(replicate.calls('POST', REPLICATE_CREATE).length - creates).toBe(1);
    expect(await worker.runOnce()).toEqual([]);
  });

  it('the first route fails before taking the work: the next route serves it, charged once at the price of the route that served it', async () => {
    const { id } = await accept('a fallback');
    const falCreates = fal.calls('POST', FAL_CREATE).length;
    const replicateCreates = replicate.calls('POST', REPLICATE_CREATE).length;
    replicate.misbehave({ method: 'POST', path: REPLICATE_CREATE }, { reply: { status: 503, headers: { 'content-type': 'application/problem+json' }, body: { title: 'Service Unavailable', detail: 'overloaded', status: 503 } } });
    expect(await worker.runOnce()).toEqual([{ generationId: id, outcome: 'finished' }]);
    expect(replicate.calls('POST', REPLICATE_CREATE).length - replicateCreates).toBe(1);
    expect(fal.calls('POST', FAL_CREATE).length - falCreates).toBe(1);
    // The attempt names the provider that served it, and is charged at its route's price: fal's, for this request the
    // dearer route, which the reservation was priced at (Replicate's charges 2 s of audio, a twentieth of it).
    const g = await generation(id);
    expect(g.provider).toBe('fal');
    expect(g.charged_credits).toBe(g.reserved_credits);
    await expectChargedOnce(id);
    await expectWalletMatchesLedger(db, organizationId);
  });

  it('no route left: failed, the whole reservation released, nothing charged, generation.failed', async () => {
    const { id, reserved } = await accept('nowhere to go');
    const before = await expectWalletMatchesLedger(db, organizationId);
    const overloaded = (title: string) => ({ reply: { status: 503, headers: { 'content-type': 'application/json' }, body: { title, detail: 'overloaded', status: 503 } } });
    replicate.misbehave({ method: 'POST', path: REPLICATE_CREATE }, overloaded('Service Unavailable'));
    fal.misbehave({ method: 'POST', path: FAL_CREATE }, { reply: { status: 503, body: { detail: 'overloaded' } } });
    expect(await worker.runOnce()).toEqual([{ generationId: id, outcome: 'finished' }]);
    const g = await generation(id);
    expect(g).toMatchObject({ status: 'failed', charged_credits: 0, refunded_credits: reserved, provider: 'fal' });
    expect(g.error?.code).toBe('upstream_error');
    expect((await ledger(id)).filter((r) => r.kind !== 'reserve')).toEqual([{ kind: 'release', balance_delta: 0, held_delta: -reserved }]);
    const evs = await events(id);
    expect(evs.map((e) => e.type)).toEqual(['generation.failed']);
    expect(evs[0]!.data).toMatchObject({ charged_credits: 0, refunded_credits: reserved });
    expect(await jobOf(id)).toBeNull();
    const after = await expectWalletMatchesLedger(db, organizationId);
    expect(after).toMatchObject({ balance: before.balance, held: before.held - reserved });
  });

  it('a run whose lease is taken over ends without writing; the node that took it finishes it, charged once', async () => {
    const other = new Worker({ ...ports, nodeId: 'node-b' });
    const { id } = await accept('a lost lease');
    const creates = replicate.calls('POST', REPLICATE_CREATE).length;
    // The prediction runs until the test lets it finish.
    replicate.hold = true;
    const heldA = new CallGate();
    replicate.misbehave({ method: 'GET', path: REPLICATE_POLL }, { gate: heldA });
    const roundA = worker.runOnce();
    // Node A submitted, recorded the prediction and waits on its first poll: its node is judged dead, its lease handed back.
    await heldA.arrived;
    await releaseNodeLeases(db, 'node-a');
    const heldB = new CallGate();
    replicate.misbehave({ method: 'GET', path: REPLICATE_POLL }, { gate: heldB });
    const roundB = other.runOnce();
    // Node B took the job and follows the recorded prediction.
    await heldB.arrived;
    expect(await jobOf(id)).toEqual({ lease_owner: 'node-b' });
    heldA.open();
    expect(await roundA).toEqual([{ generationId: id, outcome: 'lost_lease' }]);
    expect(await generation(id)).toMatchObject({ status: 'running', runner_node: 'node-b', charged_credits: 0 });
    expect((await ledger(id)).map((r) => r.kind)).toEqual(['reserve']);
    expect(await events(id)).toEqual([]);

    replicate.hold = false;
    heldB.open();
    expect(await roundB).toEqual([{ generationId: id, outcome: 'finished' }]);
    await expectChargedOnce(id);
    expect((await generation(id)).runner_node).toBe('node-b');
    // Submitted once: node B followed node A's prediction.
    expect(replicate.calls('POST', REPLICATE_CREATE).length - creates).toBe(1);
  });
});
