import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DAY_MS, MovableClock } from '../../src/clock.js';
import { runRetention } from '../../src/request-log/retention.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/** Every file under a directory, recursively. */
function files(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    out = statSync(p).isDirectory() ? out.concat(files(p)) : out.concat(p);
  }
  return out;
}

describeOnBackend('payload capture and redaction', 'pglite', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;
  const clock = new MovableClock();
  const SECRET = 'TOPSECRET-7f3a9c1e';

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_REQUEST_LOG_BATCH_MS: '5', MMGEN_RETENTION_INTERVAL_MS: '86400000' }, { clock });
    api = client(s.url);
    org = await s.createOrg({ credits: 1_000_000 });
  });
  afterAll(async () => s?.close());

  const model = (modality: string) => s.runtime.deps.catalog.list({ modality: modality as never })[0]!.slug;
  const payloadsDir = () => join(s.config.dataDir, 'files', 'payloads');
  /** The tables (every one of the schema, partitions included) with a row whose text holds any of `needles`. */
  async function tablesHolding(needles: string[], partitionsExpected = true): Promise<string[]> {
    const tables = (await s.db.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 1`,
    )).rows.map((r) => r.name);
    // The request log's rows are read from its day partitions, which are tables of their own.
    expect(tables).toContain('generations');
    if (partitionsExpected) expect(tables.some((t) => /^request_log_e\d{8}$/.test(t))).toBe(true);
    const out: string[] = [];
    for (const t of tables) {
      const rows = (await s.db.query<{ row: string }>(`SELECT t::text AS row FROM "${t}" t`)).rows;
      if (rows.some((r) => needles.some((n) => r.row.includes(n)))) out.push(t);
    }
    return out;
  }

  it('is off by default; an owner sets it, and a bad rule is refused with its param', async () => {
    const policy = (await api('GET', '/v1/organization/data-policy', { key: org.live })).body;
    expect(policy).toMatchObject({ object: 'data_policy', capture: 'off', redact_fields: [], redact_patterns: [], request_log_days: 30 });
    expect(policy.expiry.request_log.written_today_expires_on).toBe(new Date(clock.now() + 30 * DAY_MS).toISOString().slice(0, 10));
    const bad = await api('PATCH', '/v1/organization/data-policy', { key: org.live, body: { redact_patterns: ['(a)\\1'] } });
    expect([bad.status, bad.body.error.param]).toEqual([400, 'redact_patterns[0]']);
    const badField = await api('PATCH', '/v1/organization/data-policy', { key: org.live, body: { redact_fields: ['a..b'] } });
    expect([badField.status, badField.body.error.param]).toEqual([400, 'redact_fields[0]']);
    const set = await api('PATCH', '/v1/organization/data-policy', {
      key: org.live,
      body: { capture: 'full', redact_patterns: ['TOPSECRET-[0-9a-f]+'], redact_fields: ['metadata.internal'] },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ capture: 'full', redact_patterns: ['TOPSECRET-[0-9a-f]+'] });
  });

  it('keeps bodies with the secret in no stored byte: plain, streamed chat, compatible routes, failures', async () => {
    const ids: string[] = [];
    const send = async (path: string, body: unknown, expected: number) => {
      const res = await fetch(`${s.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${org.live}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      expect(res.status, `${path}: ${text.slice(0, 300)}`).toBe(expected);
      ids.push(res.headers.get('x-request-id')!);
      return text;
    };
    const prompt = `a lighthouse, password ${SECRET}, key sk_live_${'A'.repeat(30)}`;
    const imageAnswer = JSON.parse(await send('/v1/images', { model: model('image'), prompt, width: 256, height: 256 }, 200)) as { id: string; prompt: string };
    const imageId = imageAnswer.id;
    expect(imageAnswer.prompt).toBe(prompt);
    const streamed = await send('/v1/chat/completions', { model: model('chat'), stream: true, messages: [{ role: 'user', content: `echo ${SECRET}` }] }, 200);
    expect(streamed).toContain('data:');
    await send('/v1/chat/completions', { model: model('chat'), messages: [{ role: 'user', content: `say ${SECRET}` }] }, 200);
    await send('/v1/messages', { model: model('chat'), max_tokens: 50, messages: [{ role: 'user', content: `say ${SECRET}` }] }, 200);
    await send('/v1/messages', { model: model('chat'), max_tokens: 50, stream: true, messages: [{ role: 'user', content: `say ${SECRET}` }] }, 200);
    await send('/v1/images', { model: model('image'), prompt, width: 256, height: 256, simulate: { outcome: 'failure' } }, 502);
    await send('/v1/images', { model: model('image'), prompt, width: 'wide' }, 400);
    await send('/v1/images', { model: model('image'), prompt: `${SECRET}`, metadata: { internal: 'not for the log' } }, 400);

    await s.runtime.deps.requestLog.flush();
    await new Promise((r) => setTimeout(r, 300));
    const rows = (await api('GET', '/v1/requests?limit=100', { key: org.live })).body.data as Array<{ id: string; payload_captured: boolean }>;
    for (const id of ids) expect(rows.find((r) => r.id === id), id).toMatchObject({ payload_captured: true });

    // What was kept is the request, redacted: the rest of the prompt is there, the secret and the key are not.
    const stored = files(payloadsDir());
    expect(stored.filter((f) => f.endsWith('.json'))).toHaveLength(ids.length);
    const first = JSON.parse(readFileSync(join(payloadsDir(), `${ids[0]}.json`), 'utf8'));
    expect(first.request.body.prompt).toBe('a lighthouse, password [REDACTED], key [REDACTED]');
    expect(first.response.status).toBe(200);
    const stream = JSON.parse(readFileSync(join(payloadsDir(), `${ids[1]}.json`), 'utf8'));
    expect(Array.isArray(stream.response.body)).toBe(true);
    for (const f of stored) {
      const bytes = readFileSync(f);
      expect(bytes.includes(SECRET), f).toBe(false);
      expect(bytes.includes('sk_live_AAAA'), f).toBe(false);
      expect(bytes.includes(org.live), f).toBe(false);
      expect(bytes.includes('not for the log'), f).toBe(false);
    }
    // The request log's rows hold no body at all.
    const dump = JSON.stringify((await s.db.query('SELECT * FROM request_log')).rows);
    expect(dump).not.toContain(SECRET);
    expect(dump).toContain(ids[0]);
    // Every table, every row (partitions included), as text: the secret and the key are in none, the generations'
    // own records included: once a generation ends, its request and a chat's answer are kept redacted.
    await s.runtime.deps.finishes.flush();
    expect(await tablesHolding([SECRET, 'sk_live_AAAA', org.live])).toEqual([]);
    // The caller got its answer as sent; what is read back afterwards is the kept record.
    const kept = (await api('GET', `/v1/generations/${imageId}`, { key: org.live })).body;
    expect(kept.prompt).toBe('a lighthouse, password [REDACTED], key [REDACTED]');
    // A redacted record is no cache entry: the same seeded request twice is made twice.
    const listed = (await api('GET', '/v1/models?modality=image', { key: org.live })).body.data as Array<{ slug: string; parameters: { properties: Record<string, unknown>; required?: string[] } }>;
    const seedable = listed.find((m) => 'seed' in m.parameters.properties && (m.parameters.required ?? []).every((f) => f === 'prompt' || f === 'model'))!;
    const seeded = { model: seedable.slug, prompt: `a harbour ${SECRET}`, seed: 7 };
    const made = await api('POST', '/v1/images', { key: org.live, body: seeded });
    const again = await api('POST', '/v1/images', { key: org.live, body: seeded });
    expect([made.status, again.status, again.body.cache_hit], JSON.stringify(made.body)).toEqual([200, 200, false]);
    expect(again.body.prompt).toBe(seeded.prompt);
    // Every file the blob store holds, not only the captured documents (the generated images too).
    for (const f of files(join(s.config.dataDir, 'files'))) {
      const bytes = readFileSync(f);
      expect(bytes.includes(SECRET) || bytes.includes('sk_live_AAAA'), f).toBe(false);
    }
  });

  it("deletes captured payloads with their rows' partition", async () => {
    expect(files(payloadsDir()).length).toBeGreaterThan(0);
    // The last request's row (the listing above, captured too) is written in the recorder's next batch, stamped with the
    // time it was served; retention runs on what is written.
    await s.runtime.deps.requestLog.flush();
    clock.advance(31 * DAY_MS);
    await runRetention(s.runtime.deps);
    expect(files(payloadsDir()).filter((f) => f.endsWith('.json'))).toEqual([]);
  });

  it("removes the secret from the generations' records too once generation_days has passed: then no table holds it", async () => {
    const set = await api('PATCH', '/v1/organization/data-policy', { key: org.live, body: { generation_days: 1 } });
    expect(set.status).toBe(200);
    // The request log's partitions of the calls above went with the previous test's 31 days.
    expect(await tablesHolding([SECRET, 'sk_live_AAAA'], false)).toEqual([]);
    clock.advance(2 * DAY_MS);
    await runRetention(s.runtime.deps);
    expect(await tablesHolding([SECRET, 'sk_live_AAAA', org.live], false)).toEqual([]);
  });
});
