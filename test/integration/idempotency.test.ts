import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWallet, ledgerSums } from '../../src/billing/credits.js';
import { findKeyBySecret } from '../../src/domain/api-keys.js';
import { createGeneration } from '../../src/generations/accept.js';
import { compactSse } from '../../src/http/idempotency.js';
import { takeOverIdempotencyClaim } from '../../src/store/idempotency.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

type Api = ReturnType<typeof client>;

const newKey = () => `idem-${randomUUID()}`;

describeOnBackend('Idempotency-Key', 'postgres', (backend) => {
  let s: TestServer;
  let api: Api;
  let org: TestOrg;
  let image: string;
  let video: string;
  let chat: string;

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1' });
    api = client(s.url);
    org = await s.createOrg({ credits: 10_000_000 });
    const slug = (modality: string) => s.runtime.deps.catalog.list({ modality: modality as never })[0]!.slug;
    image = slug('image');
    video = 'wan-2.2'; // takes the 1–2 s videos these tests ask for (kling, the first, takes 5 or 10)
    chat = slug('chat');
  });
  afterAll(async () => s?.close());

  async function count(sql: string, params: unknown[]): Promise<number> {
    return Number((await s.db.query<{ n: number }>(sql, params)).rows[0]!.n);
  }
  /** Generations and charges of an organization whose prompt is `prompt`. */
  async function tally(orgId: string, prompt: string) {
    const ids = (await s.db.query<{ id: string }>('SELECT id FROM generations WHERE organization_id = $1 AND prompt = $2', [orgId, prompt])).rows.map((r) => r.id);
    const charges = await count(`SELECT count(*)::int AS n FROM ledger_entries WHERE kind = 'charge' AND generation_id = ANY($1::text[])`, [ids]);
    const reserves = await count(`SELECT count(*)::int AS n FROM ledger_entries WHERE kind = 'reserve' AND generation_id = ANY($1::text[])`, [ids]);
    return { generations: ids.length, charges, reserves };
  }
  async function expectWalletConsistent(orgId: string) {
    const wallet = await getWallet(s.db, orgId);
    expect(await ledgerSums(s.db, orgId)).toEqual({ balance_credits: wallet.balance_credits, held_credits: wallet.held_credits });
  }
  async function waitTerminal(key: string, id: string): Promise<any> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const res = await api('GET', `/v1/generations/${id}`, { key });
      if (['succeeded', 'failed', 'canceled'].includes(res.body.status)) return res.body;
      if (Date.now() > deadline) throw new Error(`generation ${id} still ${res.body.status}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('replays a synchronous image: same id, Idempotent-Replayed, one generation, one charge', async () => {
    const key = newKey();
    const body = { model: image, prompt: `sync-${key}`, width: 256, height: 256 };
    const first = await api('POST', '/v1/images', { key: org.live, body, headers: { 'Idempotency-Key': key } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // The same body with its keys in another order is the same request.
    const reordered = { height: 256, width: 256, prompt: body.prompt, model: image };
    const again = await api('POST', '/v1/images', { key: org.live, body: reordered, headers: { 'Idempotency-Key': key } });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toMatch(/^application\/json/);
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(again.body).toEqual(first.body);
    expect(await tally(org.id, body.prompt)).toEqual({ generations: 1, charges: 1, reserves: 1 });
    await expectWalletConsistent(org.id);
  });

  it('replays an asynchronous video 202: same generation, one charge once it completes', async () => {
    const key = newKey();
    const body = { model: video, prompt: `async-${key}`, duration_s: 2 };
    const first = await api('POST', '/v1/videos', { key: org.live, body, headers: { 'Idempotency-Key': key } });
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    const again = await api('POST', '/v1/videos', { key: org.live, body, headers: { 'Idempotency-Key': key } });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.generation_id).toBe(first.body.generation_id);
    expect(again.body).toEqual(first.body);
    const done = await waitTerminal(org.live, first.body.generation_id);
    expect(done.status).toBe('succeeded');
    expect(await tally(org.id, body.prompt)).toEqual({ generations: 1, charges: 1, reserves: 1 });
    await expectWalletConsistent(org.id);
  });

  it('20 concurrent duplicates make exactly one generation and one charge; the others get 409 or the replay', async () => {
    const key = newKey();
    const body = { model: image, prompt: `race-${key}`, width: 256, height: 256, simulate: { delay_ms: 300 } };
    const results = await Promise.all(
      Array.from({ length: 20 }, () => api('POST', '/v1/images', { key: org.live, body, headers: { 'Idempotency-Key': key } })),
    );
    const executed = results.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
    const replayed = results.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === 'true');
    const inUse = results.filter((r) => r.status === 409);
    expect(executed).toHaveLength(1);
    expect(replayed.length + inUse.length).toBe(19);
    for (const r of inUse) expect(r.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_in_use' });
    for (const r of replayed) expect(r.body.id).toBe(executed[0]!.body.id);
    // Once the first has finished, every repeat is a replay.
    const after = await api('POST', '/v1/images', { key: org.live, body, headers: { 'Idempotency-Key': key } });
    expect(after.headers.get('idempotent-replayed')).toBe('true');
    expect(after.body.id).toBe(executed[0]!.body.id);
    expect(await tally(org.id, body.prompt)).toEqual({ generations: 1, charges: 1, reserves: 1 });
    await expectWalletConsistent(org.id);
  });

  it('a different body with the same key → 422 idempotency_key_reused', async () => {
    const key = newKey();
    const body = { model: image, prompt: `diff-${key}`, width: 256, height: 256 };
    expect((await api('POST', '/v1/images', { key: org.live, body, headers: { 'Idempotency-Key': key } })).status).toBe(200);
    const res = await api('POST', '/v1/images', { key: org.live, body: { ...body, prompt: 'something else' }, headers: { 'Idempotency-Key': key } });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused', request_id: res.headers.get('x-request-id') });
    expect(await tally(org.id, 'something else')).toMatchObject({ generations: 0 });
  });

  it('the same key on a different endpoint → 422 idempotency_key_reused', async () => {
    const key = newKey();
    const body = { model: image, prompt: `endpoint-${key}` };
    expect((await api('POST', '/v1/images', { key: org.live, body: { ...body, width: 256, height: 256 }, headers: { 'Idempotency-Key': key } })).status).toBe(200);
    const res = await api('POST', '/v1/videos', { key: org.live, body: { model: video, prompt: body.prompt }, headers: { 'Idempotency-Key': key } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('idempotency_key_reused');
    expect(res.body.error.message).toContain('POST /v1/images');
  });

  describe('key values', () => {
    const body = () => ({ model: image, prompt: 'values', width: 256, height: 256 });
    it.each([
      ['empty', ''],
      ['256 characters', 'k'.repeat(256)],
      ['non-ASCII', 'clé'],
      ['a tab inside', 'a\tb'],
    ])('%s → 400 parameter_invalid, param Idempotency-Key', async (_name, value) => {
      const res = await api('POST', '/v1/images', { key: org.live, body: body(), headers: { 'Idempotency-Key': value } });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'Idempotency-Key' });
    });

    it('control characters and UTF-8 bytes sent raw → 400 in the contract envelope, never executed', async () => {
      const prompt = `raw-${randomUUID()}`;
      for (const value of [Buffer.from([0x61, 0x7f, 0x62]), Buffer.from('ключ', 'utf8'), Buffer.from([0x61, 0x01, 0x62])]) {
        const res = await rawPost(s.url, '/v1/images', org.live, value, JSON.stringify({ ...body(), prompt }));
        expect(res.status, value.toString('hex')).toBe(400);
        expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid', request_id: res.requestId });
        expect(res.requestId).toMatch(/^req_/);
      }
      expect((await tally(org.id, prompt)).generations).toBe(0);
    });

    it('255 printable characters (spaces and symbols too) are a valid key', async () => {
      const value = `${' !~"'.padEnd(254, 'x')}z`.replace(/^ /, 'a');
      expect(value).toHaveLength(255);
      const res = await api('POST', '/v1/images', { key: org.test, body: body(), headers: { 'Idempotency-Key': value } });
      expect(res.status).toBe(200);
    });
  });

  it('a 400 validation failure keeps nothing: the corrected retry with the same key executes', async () => {
    const key = newKey();
    const bad = await api('POST', '/v1/images', { key: org.live, body: { model: image, width: 256, height: 256 }, headers: { 'Idempotency-Key': key } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'parameter_missing', param: 'prompt' });
    const good = await api('POST', '/v1/images', { key: org.live, body: { model: image, prompt: `fixed-${key}`, width: 256, height: 256 }, headers: { 'Idempotency-Key': key } });
    expect(good.status).toBe(200);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a 404 from the handler (after the claim) releases the key too', async () => {
    const key = newKey();
    const bad = await api('POST', '/v1/videos', { key: org.live, body: { model: 'no-such-model', prompt: 'x' }, headers: { 'Idempotency-Key': key } });
    expect(bad.status).toBe(404);
    const good = await api('POST', '/v1/videos', { key: org.live, body: { model: video, prompt: `fixed404-${key}`, duration_s: 1 }, headers: { 'Idempotency-Key': key } });
    expect(good.status).toBe(202);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
    await waitTerminal(org.live, good.body.id);
  });

  it('a 402 is kept and replayed (its request_id is the replay\'s own)', async () => {
    const poor = await s.createOrg({ credits: 0 });
    const key = newKey();
    const body = { model: image, prompt: `poor-${key}`, width: 256, height: 256 };
    const first = await api('POST', '/v1/images', { key: poor.live, body, headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(402);
    expect(first.body.error.code).toBe('insufficient_credits');
    const again = await api('POST', '/v1/images', { key: poor.live, body, headers: { 'Idempotency-Key': key } });
    expect(again.status).toBe(402);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.error).toEqual({ ...first.body.error, request_id: again.headers.get('x-request-id') });
    expect(await tally(poor.id, body.prompt)).toEqual({ generations: 0, charges: 0, reserves: 0 });
  });

  it('keys are scoped to the API key: another key with the same value is independent', async () => {
    const created = await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'second' } });
    expect(created.status).toBe(201);
    const other = created.body.key as string;
    const key = newKey();
    const body = { model: image, prompt: `scoped-${key}`, width: 256, height: 256 };
    const a = await api('POST', '/v1/images', { key: org.live, body, headers: { 'Idempotency-Key': key } });
    const b = await api('POST', '/v1/images', { key: other, body, headers: { 'Idempotency-Key': key } });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.id).not.toBe(a.body.id);
    // …and the test key of the same organization is another key as well.
    const t = await api('POST', '/v1/images', { key: org.test, body, headers: { 'Idempotency-Key': key } });
    expect(t.status).toBe(200);
    expect(t.headers.get('idempotent-replayed')).toBeNull();
    expect(await tally(org.id, body.prompt)).toMatchObject({ generations: 3, charges: 2 });
  });

  describe('lifetime', () => {
    it('a key older than 24 hours is treated as new', async () => {
      const key = newKey();
      const body = { model: image, prompt: `old-${key}`, width: 256, height: 256 };
      const first = await api('POST', '/v1/images', { key: org.live, body, headers: { 'Idempotency-Key': key } });
      await s.db.query(`UPDATE idempotency_keys SET created_at = now() - interval '25 hours', expires_at = now() - interval '1 hour' WHERE idempotency_key = $1`, [key]);
      const again = await api('POST', '/v1/images', { key: org.live, body, headers: { 'Idempotency-Key': key } });
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBeNull();
      expect(again.body.id).not.toBe(first.body.id);
      const rows = await s.db.query<{ state: string; expires_at: Date }>('SELECT state, expires_at FROM idempotency_keys WHERE idempotency_key = $1', [key]);
      expect(rows.rows).toHaveLength(1);
      expect(rows.rows[0]!.state).toBe('completed');
      expect(rows.rows[0]!.expires_at.getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
    });

    // Turns a kept row back into the claim a request that died mid-request leaves: in flight, held by `req_dead`
    // on `node`, last renewed `lockedAgoS` seconds ago, naming what it accepted (or, with `accepted: false`, nothing).
    const orphan = (key: string, o: { lockedAgoS: number; node?: string; accepted?: boolean }) =>
      s.db.query(
        `UPDATE idempotency_keys SET state = 'in_flight', response_status = NULL, response_headers = NULL, response_body = NULL,
           request_id = 'req_dead', locked_at = now() - $2::int * interval '1 second', node_id = coalesce($3, node_id),
           resource_id = CASE WHEN $4 THEN resource_id END
         WHERE idempotency_key = $1`,
        [key, o.lockedAgoS, o.node ?? null, o.accepted !== false],
      );

    it('a claim whose request accepted a generation and then died (not renewed) is answered from that generation: replayed, charged once', async () => {
      // Before issue 17 a claim not renewed for 2 minutes was dropped and the request ran again: a second generation
      // and a second charge for one key. Now the claim names its generation, and the retry gets that one.
      const key = newKey();
      const body = { model: image, prompt: `orphan-${key}`, width: 256, height: 256 };
      const first = await api('POST', '/v1/images', { key: org.live, body, headers: { 'Idempotency-Key': key } });
      expect(first.status).toBe(200);
      await orphan(key, { lockedAgoS: 5 });
      // Its node is alive and it renewed the claim 5 s ago: still being worked on.
      const busy = await api('POST', '/v1/images', { key: org.live, body, headers: { 'Idempotency-Key': key } });
      expect(busy.status).toBe(409);
      expect(busy.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_in_use' });
      await orphan(key, { lockedAgoS: 600 });
      const res = await api('POST', '/v1/images', { key: org.live, body, headers: { 'Idempotency-Key': key } });
      expect(res.status).toBe(200);
      expect(res.headers.get('idempotent-replayed')).toBe('true');
      expect(res.body.id).toBe(first.body.id);
      // The same outputs (their URLs are signed afresh for the answer).
      expect(res.body.outputs.map((o: { id: string }) => o.id)).toEqual(first.body.outputs.map((o: { id: string }) => o.id));
      expect(await tally(org.id, body.prompt)).toEqual({ generations: 1, charges: 1, reserves: 1 });
      // The answer is kept now: the next retry is a plain replay.
      const again = await api('POST', '/v1/images', { key: org.live, body, headers: { 'Idempotency-Key': key } });
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.id).toBe(first.body.id);
      await expectWalletConsistent(org.id);
    });

    it('a key revoked since gets 401, not the answer of what its dead request accepted', async () => {
      const created = await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'short-lived' } });
      expect(created.status).toBe(201);
      const key = newKey();
      const body = { model: image, prompt: `revoked-${key}`, width: 256, height: 256 };
      const first = await api('POST', '/v1/images', { key: created.body.key, body, headers: { 'Idempotency-Key': key } });
      expect(first.status).toBe(200);
      await orphan(key, { lockedAgoS: 600 });
      expect((await api('DELETE', `/v1/api-keys/${created.body.id}`, { key: org.live })).status).toBe(200);
      const res = await api('POST', '/v1/images', { key: created.body.key, body, headers: { 'Idempotency-Key': key } });
      expect(res.status).toBe(401);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
    });

    it('a claim held on a node that stopped beating is an orphan at once, however recently it was renewed', async () => {
      const key = newKey();
      const body = { model: image, prompt: `dead-node-${key}`, width: 256, height: 256 };
      const first = await api('POST', '/v1/images', { key: org.live, body, headers: { 'Idempotency-Key': key } });
      expect(first.status).toBe(200);
      await s.db.query(`INSERT INTO node_heartbeats (node_id, beat_at) VALUES ('node-killed', now() - interval '1 minute')`);
      await orphan(key, { lockedAgoS: 0, node: 'node-killed' });
      const res = await api('POST', '/v1/images', { key: org.live, body, headers: { 'Idempotency-Key': key } });
      expect(res.status).toBe(200);
      expect(res.headers.get('idempotent-replayed')).toBe('true');
      expect(res.body.id).toBe(first.body.id);
      // A node that never beat (no row at all) is as dead.
      await orphan(key, { lockedAgoS: 0, node: 'node-never-seen' });
      const again = await api('POST', '/v1/images', { key: org.live, body, headers: { 'Idempotency-Key': key } });
      expect(again.body.id).toBe(first.body.id);
      expect(await tally(org.id, body.prompt)).toEqual({ generations: 1, charges: 1, reserves: 1 });
    });

    it('a claim whose request died before accepting anything is free again: the retry runs as the first request would have', async () => {
      const key = newKey();
      const body = { model: image, prompt: `unaccepted-${key}`, width: 256, height: 256 };
      const first = await api('POST', '/v1/images', { key: org.live, body, headers: { 'Idempotency-Key': key } });
      expect(first.status).toBe(200);
      // As if that request had died before its accepting statement: the claim names nothing. (Its generation is
      // left in the table; the retry is a new one, as it must be when nothing was accepted.)
      await orphan(key, { lockedAgoS: 0, node: 'node-killed-early', accepted: false });
      const res = await api('POST', '/v1/images', { key: org.live, body, headers: { 'Idempotency-Key': key } });
      expect(res.status).toBe(200);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
      expect(res.body.id).not.toBe(first.body.id);
    });

    it('an asynchronous generation accepted by a dead request is answered as it is now, still the one generation', async () => {
      const key = newKey();
      const body = { model: video, prompt: `orphan-async-${key}`, duration_s: 2 };
      const first = await api('POST', '/v1/videos', { key: org.live, body, headers: { 'Idempotency-Key': key } });
      expect(first.status).toBe(202);
      await waitTerminal(org.live, first.body.id);
      await orphan(key, { lockedAgoS: 0, node: 'node-killed-async' });
      const res = await api('POST', '/v1/videos', { key: org.live, body, headers: { 'Idempotency-Key': key } });
      expect(res.status).toBe(202);
      expect(res.headers.get('idempotent-replayed')).toBe('true');
      expect(res.body).toMatchObject({ id: first.body.id, status: 'succeeded' });
      expect(await tally(org.id, body.prompt)).toEqual({ generations: 1, charges: 1, reserves: 1 });
    });

    it('a request whose claim was taken over while it ran accepts nothing (409): one key, one generation', async () => {
      // A node judged dead (a long pause) comes back and reaches its accepting statement after a retry took its
      // claim over: the statement writes nothing, and the retry's generation is the only one.
      const key = newKey();
      const { principal } = (await findKeyBySecret(s.db, org.live))!;
      const deps = s.runtime.deps;
      const prompt = `taken-over-${key}`;
      await s.db.query(
        `INSERT INTO idempotency_keys (api_key_id, idempotency_key, method, path, request_sha256, state, request_id, node_id)
         VALUES ($1, $2, 'POST', '/v1/videos', 'x', 'in_flight', 'req_slow', $3)`,
        [principal.keyId, key, deps.nodeId],
      );
      const slowClaim = { apiKeyId: principal.keyId, key, requestId: 'req_slow' };
      expect(await takeOverIdempotencyClaim(s.db, slowClaim, 'req_retry', deps.nodeId)).toBeNull();
      const input = { modality: 'video' as const, model: deps.catalog.resolve(video, 'video'), prompt, params: { prompt, duration_s: 2 } };
      await expect(createGeneration(deps, principal, { ...input, claim: slowClaim })).rejects.toMatchObject({ code: 'idempotency_key_in_use' });
      expect((await tally(org.id, prompt)).generations).toBe(0);
      // The retry, which holds the claim now, accepts, and the claim names its generation.
      const g = await createGeneration(deps, principal, { ...input, claim: { ...slowClaim, requestId: 'req_retry' } });
      const row = (await s.db.query<{ resource_id: string }>('SELECT resource_id FROM idempotency_keys WHERE idempotency_key = $1', [key])).rows[0]!;
      expect(row.resource_id).toBe(g.id);
      expect(await tally(org.id, prompt)).toEqual({ generations: 1, charges: 0, reserves: 1 });
      await expectWalletConsistent(org.id);
    });
  });

  it('requests without the header are never deduplicated', async () => {
    const body = { model: image, prompt: `nokey-${randomUUID()}`, width: 256, height: 256 };
    await api('POST', '/v1/images', { key: org.live, body });
    await api('POST', '/v1/images', { key: org.live, body });
    expect((await tally(org.id, body.prompt)).generations).toBe(2);
  });

  it('a streamed chat completion is replayed as a stream through the openai SDK, charged once', async () => {
    const openai = new OpenAI({ apiKey: org.live, baseURL: `${s.url}/v1`, maxRetries: 0 });
    const key = newKey();
    const params = {
      model: chat,
      messages: [{ role: 'user' as const, content: `stream-${key}` }],
      max_tokens: 200,
      stream: true as const,
      stream_options: { include_usage: true },
      simulate: { output_tokens: 40 },
    };
    const read = async () => {
      const { data: stream, response } = await openai.chat.completions
        .create(params as OpenAI.ChatCompletionCreateParamsStreaming, { headers: { 'Idempotency-Key': key } })
        .withResponse();
      let text = '';
      let id = '';
      let usage: OpenAI.CompletionUsage | undefined;
      let finish: string | null = null;
      for await (const chunk of stream) {
        id = chunk.id;
        if (chunk.usage) usage = chunk.usage;
        text += chunk.choices[0]?.delta?.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      return { id, text, usage, finish, replayed: response.headers.get('idempotent-replayed') };
    };
    const first = await read();
    const again = await read();
    expect(first.replayed).toBeNull();
    expect(again).toEqual({ ...first, replayed: 'true' });
    expect(first.usage!.completion_tokens).toBe(40);
    expect(first.finish).toBe('stop');
    expect(await tally(org.id, `stream-${key}`)).toEqual({ generations: 1, charges: 1, reserves: 1 });
    // The non-streaming form of the same messages is a different request.
    const json = await api('POST', '/v1/chat/completions', { key: org.live, body: { ...params, stream: false }, headers: { 'Idempotency-Key': key } });
    expect(json.status).toBe(422);
  });
});

describe('compactSse', () => {
  it('merges consecutive content deltas and keeps everything else', () => {
    const c = (delta: object, finish: string | null = null) => `data: ${JSON.stringify({ id: 'gen_1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const stream = c({ role: 'assistant', content: '' }) + c({ content: 'Hel' }) + c({ content: 'lo' }) + c({ content: '!' }) + c({}, 'stop') + 'data: [DONE]\n\n';
    expect(compactSse(stream)).toBe(c({ role: 'assistant', content: '' }) + c({ content: 'Hello!' }) + c({}, 'stop') + 'data: [DONE]\n\n');
  });
});

/** A POST whose Idempotency-Key is arbitrary bytes, which fetch and node:http refuse to send: written to the socket as is. */
function rawPost(base: string, path: string, apiKey: string, keyBytes: Buffer, body: string): Promise<{ status: number; requestId: string | undefined; body: any }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname);
    let text = '';
    socket.on('data', (d) => (text += d.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', payload = ''] = text.split('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
        requestId: /^x-request-id: (\S+)$/im.exec(head)?.[1],
        body: JSON.parse(payload),
      });
    });
    socket.write(
      Buffer.concat([
        Buffer.from(`POST ${path} HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\nIdempotency-Key: `),
        keyBytes,
        Buffer.from(`\r\n\r\n${body}`),
      ]),
    );
  });
}
