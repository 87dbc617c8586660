import { afterAll, beforeAll, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/commands.js';
import { detectAnomalies } from '../../src/domain/spending.js';
import { startFakes, type Fakes } from '../fakes/index.js';
import { waitTerminal } from '../helpers/generations.js';
import { client, describeOnBackend, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The pause stops work (contract §7): a live organization paused by the
 * anomaly detector keeps its queued videos away from the provider (Replicate's
 * strict loopback fake counts what it is sent) until `mmgen org unpause`; the
 * one already running finishes; after the unpause the same burst does not
 * pause it again. One worker slot, so "queued" is a fact of the test, not of
 * timing.
 */
describeOnBackend('a paused organization starts no queued work', 'postgres', (backend) => {
  let fakes: Fakes;
  let s: TestServer;
  let api: ReturnType<typeof client>;
  const MODEL = 'kling-v2.1-master'; // Replicate; 5 s = 1,400 credits = 1.40 USD, above the floor set here

  beforeAll(async () => {
    fakes = await startFakes({ jobMs: 40 });
    s = await startTestServer(backend, {
      ...fakes.env,
      MMGEN_ALLOW_PRIVATE_NETWORK: '1',
      MMGEN_WORKER_CONCURRENCY: '1',
      // The tests run the detector themselves.
      MMGEN_SCHEDULER_INTERVAL_MS: '3600000',
      MMGEN_ANOMALY_FLOOR_USD: '0.5',
    });
    api = client(s.url);
  });
  afterAll(async () => {
    await s?.close();
    await fakes?.close();
  });

  const submitted = (prompt: string) =>
    fakes.replicate.calls('POST', /\/predictions$/).filter((c) => (c.json as { input?: { prompt?: string } }).input?.prompt === prompt).length;

  async function video(key: string, prompt: string): Promise<string> {
    const res = await api('POST', '/v1/videos', { key, body: { model: MODEL, prompt, duration_s: 5 } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return res.body.id as string;
  }

  async function until(what: string, cond: () => Promise<boolean> | boolean): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (!(await cond())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  it('queued videos wait without reaching the provider until the operator unpauses; the running one finishes; the burst is not judged twice', async () => {
    const org = await s.createOrg({ credits: 1_000_000 });
    const other = await s.createOrg({ credits: 1_000_000 });

    // The burst: one video charged (1.40 USD against no baseline at all) …
    const first = await waitTerminal(api, org.live, await video(org.live, 'burst one'));
    expect(first.status, JSON.stringify(first.error)).toBe('succeeded');
    // … one running upstream (the fake holds it), and one queued behind it in the only worker slot.
    fakes.replicate.hold = true;
    const running = await video(org.live, 'burst running');
    await until('the second video to reach the provider', () => submitted('burst running') === 1);
    const queued = await video(org.live, 'burst queued');
    expect((await api('GET', `/v1/generations/${queued}`, { key: org.live })).body.status).toBe('queued');

    expect(await detectAnomalies(s.runtime.deps)).toContain(org.id);
    // Parked: the worker's scan of due jobs never meets it, however many a paused organization has waiting.
    const parked = async () => (await s.db.query<{ parked: boolean }>(`SELECT run_at = 'infinity'::timestamptz AS parked FROM jobs WHERE generation_id = $1`, [queued])).rows[0]?.parked;
    expect(await parked()).toBe(true);
    const paused = (await api('GET', '/v1/organization', { key: org.live })).body;
    expect(paused).toMatchObject({ id: org.id, paused: true, pause_reason: { kind: 'anomaly', window_minutes: 60, baseline_usd: 0 } });
    expect(paused.pause_reason.spent_usd).toBeGreaterThanOrEqual(1.4);
    expect(Date.parse(paused.paused_at)).not.toBeNaN();

    // The running one finishes.
    fakes.replicate.hold = false;
    expect((await waitTerminal(api, org.live, running)).status).toBe('succeeded');
    // Another organization's video, accepted after the queued one: the worker claims it, passing the paused one by.
    const bystander = await waitTerminal(api, other.live, await video(other.live, 'bystander'));
    expect(bystander.status).toBe('succeeded');
    expect(submitted('burst queued')).toBe(0);
    expect((await api('GET', `/v1/generations/${queued}`, { key: org.live })).body.status).toBe('queued');
    expect(await detectAnomalies(s.runtime.deps)).not.toContain(org.id); // paused already: not judged

    // `mmgen org unpause`, the admin command (the CLI runs it here or through the server's socket).
    const unpaused = (await runAdminCommand(s.runtime.deps, { name: 'org.unpause', args: { actor: 'test operator', org: org.id } })) as Record<string, unknown>;
    expect(unpaused).toMatchObject({ paused: false, paused_at: null, pause_reason: null });
    const done = await waitTerminal(api, org.live, queued);
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    expect(done.charged_credits).toBe(1400);
    expect(submitted('burst queued')).toBe(1);

    // The queued video was charged after the unpause, but it is the burst already judged: no second pause.
    expect(await detectAnomalies(s.runtime.deps)).not.toContain(org.id);
    expect((await api('GET', '/v1/organization', { key: org.live })).body).toMatchObject({ paused: false, pause_reason: null });
    // New spend after the unpause is judged again.
    expect((await waitTerminal(api, org.live, await video(org.live, 'after the unpause'))).status).toBe('succeeded');
    expect(await detectAnomalies(s.runtime.deps)).toContain(org.id);
  });

  it('an owner pause shows as such, holds queued work too, and an owner unpause over the API releases it', async () => {
    const org = await s.createOrg({ credits: 1_000_000 });
    fakes.replicate.hold = true;
    try {
      const blocker = await s.createOrg({ credits: 1_000_000 });
      const held = await video(blocker.live, 'owner pause: blocker');
      await until('the blocker to reach the provider', () => submitted('owner pause: blocker') === 1);
      const queued = await video(org.live, 'owner pause: queued');
      const res = await api('PATCH', '/v1/organization', { key: org.live, body: { paused: true } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ paused: true, pause_reason: { kind: 'owner' } });
      expect(Object.keys(res.body.pause_reason)).toEqual(['kind']);
      expect((await s.db.query<{ parked: boolean }>(`SELECT run_at = 'infinity'::timestamptz AS parked FROM jobs WHERE generation_id = $1`, [queued])).rows[0]?.parked).toBe(true);
      fakes.replicate.hold = false;
      expect((await waitTerminal(api, blocker.live, held)).status).toBe('succeeded');
      expect((await waitTerminal(api, blocker.live, await video(blocker.live, 'owner pause: bystander'))).status).toBe('succeeded');
      expect(submitted('owner pause: queued')).toBe(0);
      expect((await api('PATCH', '/v1/organization', { key: org.live, body: { paused: false } })).body).toMatchObject({ paused: false, pause_reason: null, paused_at: null });
      expect((await waitTerminal(api, org.live, queued)).status).toBe('succeeded');
      expect(submitted('owner pause: queued')).toBe(1);
    } finally {
      fakes.replicate.hold = false;
    }
  });
});
