import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { findKeyBySecret } from '../../src/domain/api-keys.js';
import { getWallet, reserve, settlePending } from '../../src/billing/credits.js';
import { acceptStatement, prepareGeneration } from '../../src/generations/accept.js';
import { selectGeneration } from '../../src/store/generations.js';
import { startFakes, type Fakes } from '../fakes/index.js';
import { client, describeEachBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';
import { expectWalletMatchesLedger } from '../helpers/money.js';

/**
 * Early dispatch (src/generations/early-dispatch.ts): a plain chat
 * completion's provider call starts alongside the statement that reserves its
 * credits. Whatever refuses the reservation (credits spent elsewhere, a key
 * revoked elsewhere) aborts the call and answers the refusal, with nothing
 * written and nothing charged; an organization this node has not seen with
 * room to spare is never dispatched early, so its refusal reaches no provider.
 */
describeEachBackend('early dispatch of chat completions', (backend) => {
  let fakes: Fakes;
  let s: TestServer;
  let api: ReturnType<typeof client>;
  const completion = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello early' }], max_tokens: 64 };
  /** Calls that reached the OpenAI fake (the fakes get no other traffic here). */
  const chatCalls = () => fakes.openai.arrived;

  beforeAll(async () => {
    fakes = await startFakes();
    s = await startTestServer(backend, { ...fakes.env });
    api = client(s.url);
  });
  afterAll(async () => {
    await s?.close();
    await fakes?.close();
  });
  afterEach(() => fakes.openai.clearMisbehaviour());

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  async function generationsOf(org: TestOrg): Promise<number> {
    return (await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM generations WHERE organization_id = $1', [org.id])).rows[0]!.n;
  }

  async function expectConsistent(org: TestOrg): Promise<void> {
    await settlePending(s.db, org.id);
    // One snapshot: a completion's batched finish may commit at any moment.
    await expectWalletMatchesLedger(s.db, org.id);
  }

  /**
   * The provider calls a refused request made: on PostgreSQL exactly one, started before the refusal and then
   * abandoned by mmgen; on PGlite, whose statements run in mmgen's own thread, the refusal is decided before the
   * call would start, so none. Either way no call made for a refused request is left to finish.
   */
  async function expectOneAbortedCallOnPostgres(callsBefore: number, abandonedBefore: number): Promise<void> {
    const made = backend === 'postgres' ? 1 : 0;
    for (let i = 0; i < 100 && fakes.openai.abandoned < abandonedBefore + made; i++) await new Promise((r) => setTimeout(r, 20));
    expect(chatCalls()).toBe(callsBefore + made);
    expect(fakes.openai.abandoned).toBe(abandonedBefore + made);
  }

  if (backend === 'postgres') {
    it('the provider call starts while the reservation waits, and its answer is released only once the reservation commits', async () => {
      const org = await s.createOrg({ credits: 100_000 });
      expect((await api('POST', '/v1/chat/completions', { key: org.live, body: completion })).status).toBe(200);
      const calls = chatCalls();
      let arrivedWhileHeld = false;
      let releasedAt = 0;
      // Another transaction holds the wallet row: the reserving statement waits on it.
      const held = s.db.tx(async (q) => {
        await q.query('SELECT 1 FROM wallets WHERE organization_id = $1 FOR UPDATE', [org.id]);
        for (let i = 0; i < 100 && chatCalls() === calls; i++) await sleep(10);
        arrivedWhileHeld = chatCalls() === calls + 1;
        await sleep(100);
        releasedAt = Date.now();
      });
      await sleep(20);
      const answer = await api('POST', '/v1/chat/completions', { key: org.live, body: completion });
      const answeredAt = Date.now();
      await held;
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      // The charge is written just after the reply; a GET on this node waits for it.
      expect((await api('GET', `/v1/generations/${answer.body.id}`, { key: org.live })).body.status).toBe('succeeded');
      expect(arrivedWhileHeld).toBe(true);
      expect(answeredAt).toBeGreaterThanOrEqual(releasedAt);
      expect(chatCalls()).toBe(calls + 1);
      await expectConsistent(org);
    });
  }

  it('credits spent elsewhere after the provider call started: the call is aborted, 402, nothing written or charged', async () => {
    const org = await s.createOrg({ credits: 100_000 });
    const first = await api('POST', '/v1/chat/completions', { key: org.live, body: completion });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const price = (await api('GET', `/v1/generations/${first.body.id}`, { key: org.live })).body.reserved_credits as number;
    expect(price).toBeGreaterThan(0);
    // Another node reserves all but less than one request's price: this node still remembers plenty free.
    await settlePending(s.db, org.id);
    const w = await getWallet(s.db, org.id);
    await reserve(s.db, { organizationId: org.id, reference: 'another-node', credits: w.balance_credits - w.held_credits - (price - 1) });
    // The provider never answers: only mmgen's abort ends the call.
    fakes.openai.misbehave({ method: 'POST', path: '/v1/chat/completions' }, { hang: true });
    const calls = chatCalls();
    const abandoned = fakes.openai.abandoned;

    const refused = await api('POST', '/v1/chat/completions', { key: org.live, body: completion });
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('insufficient_credits');
    await expectOneAbortedCallOnPostgres(calls, abandoned);
    expect(await generationsOf(org)).toBe(1);
    await expectConsistent(org);

    // Refused here: the next request is reserved before any provider hears of it.
    const again = await api('POST', '/v1/chat/completions', { key: org.live, body: completion });
    expect(again.status).toBe(402);
    await sleep(100);
    await expectOneAbortedCallOnPostgres(calls, abandoned);
  });

  it('an organization this node has not seen with room to spare: its 402 reaches no provider', async () => {
    const org = await s.createOrg({ credits: 0 });
    const calls = chatCalls();
    const res = await api('POST', '/v1/chat/completions', { key: org.live, body: completion });
    expect(res.status).toBe(402);
    await sleep(100);
    expect(chatCalls()).toBe(calls);
    expect(await generationsOf(org)).toBe(0);
  });

  it('a key revoked elsewhere while this node has it cached: its call is aborted, 401, nothing written', async () => {
    const org = await s.createOrg({ credits: 100_000 });
    const created = await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'to revoke' } });
    expect(created.status).toBe(201);
    const warm = await api('POST', '/v1/chat/completions', { key: created.body.key, body: completion });
    expect(warm.status).toBe(200);
    // Its charge is written just after the reply; a GET on this node waits for it (the ledger is read below).
    expect((await api('GET', `/v1/generations/${warm.body.id}`, { key: org.live })).body.status).toBe('succeeded');
    // Revoked by another node: this one's cache still holds the key.
    await s.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [created.body.id]);
    fakes.openai.misbehave({ method: 'POST', path: '/v1/chat/completions' }, { hang: true });
    const calls = chatCalls();
    const abandoned = fakes.openai.abandoned;

    const res = await api('POST', '/v1/chat/completions', { key: created.body.key, body: completion });
    expect(res.status).toBe(401);
    await expectOneAbortedCallOnPostgres(calls, abandoned);
    const byKey = await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM generations WHERE api_key_id = $1', [created.body.id]);
    expect(byKey.rows[0]!.n).toBe(1);
    await expectConsistent(org);
  });

  it('with room to spare, completions are answered, charged once each, one provider call each', async () => {
    const org = await s.createOrg({ credits: 100_000 });
    // Seen with room to spare first, so that the burst below is dispatched early (on PostgreSQL).
    expect((await api('POST', '/v1/chat/completions', { key: org.live, body: completion })).status).toBe(200);
    const calls = chatCalls();
    const abandoned = fakes.openai.abandoned;
    const answers = await Promise.all(Array.from({ length: 8 }, () => api('POST', '/v1/chat/completions', { key: org.live, body: completion })));
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(chatCalls()).toBe(calls + 8);
    expect(fakes.openai.abandoned).toBe(abandoned);
    for (const a of answers) {
      const g = (await api('GET', `/v1/generations/${a.body.id}`, { key: org.live })).body;
      expect(g).toMatchObject({ status: 'succeeded', charged_credits: expect.any(Number) });
      expect(g.charged_credits).toBeGreaterThan(0);
    }
    await expectConsistent(org);
  });

  it('the accepted row handed to the runner is the row stored; only a synchronous acceptance skips the WAL flush wait', async () => {
    const org = await s.createOrg({ credits: 100_000 });
    const { principal } = (await findKeyBySecret(s.db, org.live))!;
    const deps = s.runtime.deps;
    const video = 'wan-2.2'; // takes a 2 s video
    const image = (await api('GET', '/v1/models?modality=image', { key: org.live })).body.data[0].slug as string;
    const input = { bytes: Buffer.from('not stored here'), mime: 'image/png', width: 64, height: 64 };
    for (const [modality, model, params, synchronous, withImage] of [
      ['chat', 'gpt-4o-mini', { messages: [{ role: 'user', content: 'row check' }], max_tokens: 32, temperature: 0.5 }, true, false],
      ['video', video, { prompt: 'a row check', duration_s: 2 }, false, false],
      // A seed makes a cache key; an input image a result.input_blob.
      ['image', image, { prompt: 'a row check', seed: 7, width: 512, height: 512, num_outputs: 1 }, true, true],
    ] as const) {
      const prepared = await prepareGeneration(deps, principal, { modality, model: deps.catalog.resolve(model, modality), prompt: 'row check', params: { ...params }, ...(withImage ? { image: input } : {}) });
      if (withImage) expect(prepared.cacheKey).not.toBeNull();
      const rollback = new Error('rollback');
      await expect(
        s.db.tx(async (q) => {
          const row = await acceptStatement(q, deps, prepared);
          expect(row).not.toBeNull();
          const { seq: _seq, ...stored } = (await selectGeneration(q, prepared.id)) as unknown as Record<string, unknown>;
          expect(row).toEqual(stored);
          const setting = (await q.query<{ v: string }>(`SELECT current_setting('synchronous_commit') AS v`)).rows[0]!.v;
          expect(prepared.sync).toBe(synchronous);
          expect(setting).toBe(synchronous ? 'off' : 'on');
          throw rollback;
        }),
      ).rejects.toBe(rollback);
    }
  });
});
