import { afterAll, beforeAll, expect, it } from 'vitest';
import { GenerationWatch } from '../../src/jobs/generation-watch.js';
import type { Queryable } from '../../src/store/db.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

describeOnBackend('GenerationWatch: one query per poll for every open event stream', 'pglite', (backend) => {
  let s: TestServer;
  let org: TestOrg;
  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1' }, { worker: false });
    org = await s.createOrg({ credits: 1_000_000 });
  });
  afterAll(async () => s?.close());

  it('wakes every waiter of a changed generation, leaves the others waiting, and costs one query per poll', async () => {
    const api = client(s.url);
    const music = s.runtime.deps.catalog.list({ modality: 'music' })[0]!.slug;
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await api('POST', '/v1/music', { key: org.live, body: { model: music, prompt: `w${i}`, duration_s: 5 } })).body.id);
    const asked: string[][] = [];
    const counting: Queryable = { query: (sql, params) => (asked.push([...(params![0] as string[])]), s.db.query(sql, params)) };
    const watch = new GenerationWatch(counting, 50);
    const versions = new Map<string, number>();
    for (const id of ids) versions.set(id, (await s.db.query<{ version: number }>('SELECT version FROM generations WHERE id = $1', [id])).rows[0]!.version);
    const never = new AbortController();
    // Three streams on each generation, each with a signal of its own, as each event stream has.
    const waits = ids.flatMap((id) => [0, 1, 2].map(() => watch.changed(id, versions.get(id)!, 20_000, new AbortController().signal)));
    // Eighteen waiters, and each poll is one query naming the six generations.
    while (asked.length < 3) await new Promise((r) => setTimeout(r, 20));
    for (const q of asked.slice(0, 3)) expect([...q].sort()).toEqual([...ids].sort());

    // Cancel the first three: their waiters wake, the others keep waiting.
    for (const id of ids.slice(0, 3)) expect((await api('POST', `/v1/generations/${id}/cancel`, { key: org.live })).status).toBe(200);
    const woken = await Promise.all(waits.slice(0, 9));
    expect(woken.every(Boolean)).toBe(true);
    const still = await Promise.race([Promise.any(waits.slice(9)).then(() => 'woke'), new Promise((r) => setTimeout(() => r('waiting'), 300))]);
    expect(still).toBe('waiting');

    // A timeout and an abort answer false.
    expect(await watch.changed(ids[4]!, versions.get(ids[4]!)!, 100, never.signal)).toBe(false);
    const abort = new AbortController();
    const aborted = watch.changed(ids[5]!, versions.get(ids[5]!)!, 20_000, abort.signal);
    abort.abort();
    expect(await aborted).toBe(false);
    for (const id of ids.slice(3)) await api('POST', `/v1/generations/${id}/cancel`, { key: org.live });
    expect((await Promise.all(waits.slice(9))).every(Boolean)).toBe(true);
  });
});
