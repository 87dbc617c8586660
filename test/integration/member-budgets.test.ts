import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkBudgets } from '../../src/domain/spending.js';
import { browser } from '../helpers/browser-session.js';
import { budgetYardsticks } from '../helpers/budgets.js';
import { expectWalletMatchesLedger } from '../helpers/money.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * Member budgets (issue 31): a monthly budget over all of a member's keys and their dashboard session's generations,
 * set on PATCH /v1/members/{id}, notifying or blocking like a key's (contract §7), on every node, concurrently too.
 */
describeOnBackend('member budgets', 'postgres', (backend) => {
  let s: TestServer;
  let node2: TestServer;
  let api: ReturnType<typeof client>;
  let api2: ReturnType<typeof client>;

  beforeAll(async () => {
    // The scheduler is slowed right down: the threshold test calls the check itself.
    const env = { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_SCHEDULER_INTERVAL_MS: '3600000' };
    s = await startTestServer(backend, env);
    node2 = await startTestServer(backend, env, { sameDbAs: s });
    api = client(s.url);
    api2 = client(node2.url);
  });
  afterAll(async () => {
    await node2?.close();
    await s?.close();
  });

  const { image, budgetFor, generationsOf } = budgetYardsticks(() => s);
  const imageBody = (prompt: string) => ({ model: image().slug, prompt });
  const wallet = async (key: string) => (await api('GET', '/v1/wallet', { key })).body;

  /** A person invited into `org` at `role` and signed in (live mode), with two live keys of their own. */
  let people = 0;
  async function memberOf(org: TestOrg, role: 'admin' | 'developer' | 'viewer' = 'developer') {
    const email = `member${++people}@example.test`;
    const inv = await api('POST', '/v1/invitations', { key: org.live, body: { email, role } });
    expect(inv.status, JSON.stringify(inv.body)).toBe(201);
    const b = browser(s.url);
    const accepted = await b.call('POST', '/v1/invitations/accept', { body: { token: new URL(inv.body.url).hash.replace('#token=', ''), password: 'member budgets password' } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    const id = (await b.call('GET', '/v1/session')).body.member_id as string;
    const keys: string[] = [];
    const keyIds: string[] = [];
    for (const name of ['one', 'two']) {
      const k = await b.call('POST', '/v1/api-keys', { body: { name: `${email} ${name}` } });
      expect(k.status, JSON.stringify(k.body)).toBe(201);
      keys.push(k.body.key);
      keyIds.push(k.body.id);
    }
    return { id, session: b, keys: keys as [string, string], keyIds };
  }

  it('a block budget counts all of the member’s keys and their session, on every node: the request that would pass it is refused, nothing reserved', async () => {
    const org = await s.createOrg({ credits: 10_000_000 });
    const dev = await memberOf(org);
    const [k1, k2] = dev.keys;
    // Each key is used once before the budget exists, so each node has it cached as concerned by no blocking budget.
    expect((await api('POST', '/v1/images', { key: k1, body: imageBody('before 1') })).status).toBe(200);
    expect((await api2('POST', '/v1/images', { key: k2, body: imageBody('before 2') })).status).toBe(200);

    // Room for exactly two more images.
    const budget = budgetFor(4);
    const set = await api('PATCH', `/v1/members/${dev.id}`, { key: org.live, body: { monthly_budget_usd: budget, budget_action: 'block' } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ id: dev.id, role: 'developer', monthly_budget_usd: budget, budget_action: 'block' });
    expect(set.body.spent_usd).toBeCloseTo((2 * image().credits) / 1000, 9);

    // One by the first key on this node, one by the person signed in (their session key).
    expect((await api('POST', '/v1/images', { key: k1, body: imageBody('after 1') })).status).toBe(200);
    const played = await dev.session.call('POST', '/v1/images', { body: imageBody('playground') });
    expect(played.status, JSON.stringify(played.body)).toBe(200);

    const before = await wallet(org.live);
    const generated = await generationsOf(org.id);
    // The second key, on the other node whose cache still has it without a blocking budget: refused.
    const refused = await api2('POST', '/v1/images', { key: k2, body: imageBody('too much') });
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({ type: 'billing_error', code: 'budget_exceeded' });
    expect(refused.body.error.message).toContain(`member ${dev.id}`);
    expect(refused.body.error.message).toContain(`monthly budget of $${budget.toFixed(2)}`);
    expect(refused.body.error.message).not.toMatch(/API key's spend|organization's spend/);
    // The first key and the session, too; nothing was reserved (balance and held alike) and no generation written.
    expect((await api('POST', '/v1/images', { key: k1, body: imageBody('too much 1') })).status).toBe(402);
    expect((await dev.session.call('POST', '/v1/images', { body: imageBody('too much 2') })).status).toBe(402);
    expect(await wallet(org.live)).toEqual(before);
    expect(await generationsOf(org.id)).toBe(generated);

    // The spend shown is the server's: the four images, in the list and on the member.
    const shown = (await api('GET', `/v1/members/${dev.id}`, { key: org.live })).body;
    expect(shown.spent_usd).toBeCloseTo((4 * image().credits) / 1000, 9);
    const listed = (await api('GET', '/v1/members', { key: org.live })).body.data;
    expect(listed.find((m: any) => m.id === dev.id)).toMatchObject({ monthly_budget_usd: budget, budget_action: 'block', spent_usd: shown.spent_usd });
    // The owner is another member: their key is not concerned; the member's test keys never spend.
    expect(listed.find((m: any) => m.id === org.userId)).toMatchObject({ monthly_budget_usd: null, budget_action: 'notify', spent_usd: 0 });
    expect((await api('POST', '/v1/images', { key: org.live, body: imageBody('owner') })).status).toBe(200);
    const testKey = await dev.session.call('POST', '/v1/api-keys', { body: { name: 'sandbox', mode: 'test' } });
    expect(testKey.status).toBe(201);
    expect((await api('POST', '/v1/images', { key: testKey.body.key, body: imageBody('sandbox') })).status).toBe(200);

    // Back to notify: the member's keys pass again, on both nodes (their cached principals learn it too).
    const lifted = await api('PATCH', `/v1/members/${dev.id}`, { key: org.live, body: { budget_action: 'notify' } });
    expect(lifted.body).toMatchObject({ monthly_budget_usd: budget, budget_action: 'notify' });
    expect((await api2('POST', '/v1/images', { key: k2, body: imageBody('lifted') })).status).toBe(200);
    // And clearing the budget keeps the action.
    const cleared = await api('PATCH', `/v1/members/${dev.id}`, { key: org.live, body: { monthly_budget_usd: null, budget_action: 'block' } });
    expect(cleared.body).toMatchObject({ monthly_budget_usd: null, budget_action: 'block' });
    expect((await api('POST', '/v1/images', { key: k1, body: imageBody('cleared') })).status).toBe(200);
    await expectWalletMatchesLedger(s.db, org.id);

    // Each change is in the audit log, with the budget before and after, by the owner key.
    const audit = (await api('GET', '/v1/audit-events?limit=100', { key: org.live })).body.data.filter((e: any) => e.action === 'member.budget_updated');
    expect(audit.map((e: any) => [e.before, e.after]).reverse()).toEqual([
      [{ monthly_budget_usd: null, budget_action: 'notify' }, { monthly_budget_usd: budget, budget_action: 'block' }],
      [{ monthly_budget_usd: budget, budget_action: 'block' }, { monthly_budget_usd: budget, budget_action: 'notify' }],
      [{ monthly_budget_usd: budget, budget_action: 'notify' }, { monthly_budget_usd: null, budget_action: 'block' }],
    ]);
    expect(audit[0]).toMatchObject({ target: { type: 'member', id: dev.id }, actor: { type: 'api_key', user_id: org.userId } });
  });

  it('concurrently from two keys of the member, on two nodes: exactly as many are accepted as fit', async () => {
    const org = await s.createOrg({ credits: 10_000_000 });
    const dev = await memberOf(org);
    const fit = 3;
    expect((await api('PATCH', `/v1/members/${dev.id}`, { key: org.live, body: { monthly_budget_usd: budgetFor(fit), budget_action: 'block' } })).status).toBe(200);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? api : api2)('POST', '/v1/images', { key: dev.keys[i % 2]!, body: imageBody(`race ${i}`) })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((x) => x === 200), JSON.stringify(statuses)).toHaveLength(fit);
    expect(statuses.filter((x) => x === 402)).toHaveLength(10 - fit);
    for (const r of results.filter((x) => x.status === 402)) expect(r.body.error.code).toBe('budget_exceeded');
    expect(await generationsOf(org.id)).toBe(fit);
    expect((await api('GET', `/v1/members/${dev.id}`, { key: org.live })).body.spent_usd).toBeCloseTo((fit * image().credits) / 1000, 9);
    const w = await wallet(org.live);
    expect(10_000_000 - w.balance_credits - w.held_credits).toBe(fit * image().credits);
    await expectWalletMatchesLedger(s.db, org.id);
  });

  it("a member's notify budget adds nothing to their keys' acceptance (one statement, no transaction, no lock); a block budget brings the checked one", async () => {
    const org = await s.createOrg({ credits: 10_000_000 });
    const dev = await memberOf(org);
    const db = s.runtime.deps.db;
    // Every statement this node runs, and whether it ran in a transaction; restored at the end.
    const seen: Array<{ sql: string; inTx: boolean }> = [];
    const { query, tx } = db;
    db.query = ((sql: string, params?: readonly unknown[]) => {
      seen.push({ sql, inTx: false });
      return query.call(db, sql, params);
    }) as typeof db.query;
    db.tx = ((fn: Parameters<typeof db.tx>[0]) =>
      tx.call(db, (q) => fn({ query: ((sql: string, params?: readonly unknown[]) => (seen.push({ sql, inTx: true }), q.query(sql, params))) as typeof q.query }))) as typeof db.tx;
    try {
      const accepting = () => seen.filter((x) => x.sql.includes('INSERT INTO generations'));
      const budgetChecks = () => seen.filter((x) => /FOR NO KEY UPDATE|member_spent/.test(x.sql));
      expect((await api('PATCH', `/v1/members/${dev.id}`, { key: org.live, body: { monthly_budget_usd: 100 } })).status).toBe(200);
      // Twice, so that the second may come from this node's key cache.
      for (const i of [1, 2]) {
        seen.length = 0;
        expect((await api('POST', '/v1/images', { key: dev.keys[0], body: imageBody(`unchecked ${i}`) })).status).toBe(200);
        expect(accepting().map((x) => x.inTx)).toEqual([false]);
        expect(budgetChecks()).toEqual([]);
      }
      expect((await api('PATCH', `/v1/members/${dev.id}`, { key: org.live, body: { budget_action: 'block' } })).status).toBe(200);
      seen.length = 0;
      expect((await api('POST', '/v1/images', { key: dev.keys[0], body: imageBody('checked') })).status).toBe(200);
      // The lock, then the budgets' statement, then the accepting statement, in one transaction.
      const order = seen.filter((x) => x.inTx && /FOR NO KEY UPDATE|member_spent|INSERT INTO generations/.test(x.sql)).map((x) => x.sql.includes('FOR NO KEY UPDATE') ? 'lock' : x.sql.includes('member_spent') ? 'budgets' : 'accept');
      expect(order).toEqual(['lock', 'budgets', 'accept']);
    } finally {
      db.query = query;
      db.tx = tx;
    }
  });

  it('a notify budget lets every request through and fires each threshold once, naming the member', async () => {
    const org = await s.createOrg({ credits: 10_000_000 });
    const dev = await memberOf(org);
    const budget = budgetFor(2);
    const set = await api('PATCH', `/v1/members/${dev.id}`, { key: org.live, body: { monthly_budget_usd: budget } });
    expect(set.body.budget_action).toBe('notify');
    for (let i = 0; i < 3; i++) expect((await api('POST', '/v1/images', { key: dev.keys[i % 2]!, body: imageBody(`notify ${i}`) })).status).toBe(200);
    await checkBudgets(s.runtime.deps);
    await checkBudgets(node2.runtime.deps);
    const events = (await s.db.query<{ data: any }>("SELECT data FROM events WHERE organization_id = $1 AND type = 'usage.budget_threshold' ORDER BY seq", [org.id])).rows.map((r) => r.data);
    expect(events.map((e) => e.threshold_percent)).toEqual([50, 80, 100]);
    for (const e of events) expect(e).toMatchObject({ api_key_id: null, member_id: dev.id, organization_id: org.id, monthly_budget_usd: budget, period: new Date().toISOString().slice(0, 7) });
    expect(events[2].spent_usd).toBeCloseTo((3 * image().credits) / 1000, 9);
    // A key's own budget still names the key and no member.
    const keyBudget = await api('PATCH', `/v1/api-keys/${dev.keyIds[0]}`, { key: org.live, body: { monthly_budget_usd: budgetFor(1) } });
    expect(keyBudget.status).toBe(200);
    await checkBudgets(s.runtime.deps);
    const forKey = (await s.db.query<{ data: any }>("SELECT data FROM events WHERE organization_id = $1 AND type = 'usage.budget_threshold' AND data->>'api_key_id' IS NOT NULL", [org.id])).rows.map((r) => r.data);
    expect(forKey.length).toBeGreaterThan(0);
    for (const e of forKey) expect(e).toMatchObject({ api_key_id: dev.keyIds[0], member_id: null });
  });

  it('only admins and owners set budgets, within their role; validated like keys’ budgets; another organization’s member is 404', async () => {
    const org = await s.createOrg({ credits: 1000 });
    const dev = await memberOf(org);
    const admin = await memberOf(org, 'admin');
    const viewerKey = (await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'viewer', role: 'viewer' } })).body.key;
    const developerKey = (await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'developer', role: 'developer' } })).body.key;
    const body = { monthly_budget_usd: 5, budget_action: 'block' };
    for (const [who, res] of [
      ['viewer key', await api('PATCH', `/v1/members/${dev.id}`, { key: viewerKey, body })],
      ['developer key', await api('PATCH', `/v1/members/${dev.id}`, { key: developerKey, body })],
      ['developer key of the member', await api('PATCH', `/v1/members/${dev.id}`, { key: dev.keys[0], body })],
      ['developer session (their own budget)', await dev.session.call('PATCH', `/v1/members/${dev.id}`, { body })],
      // An admin does not manage an owner.
      ['admin session on the owner', await admin.session.call('PATCH', `/v1/members/${org.userId}`, { body })],
    ] as const) {
      expect([who, res.status, res.body.error?.code]).toEqual([who, 403, 'insufficient_role']);
    }
    expect((await api('GET', `/v1/members/${dev.id}`, { key: org.live })).body).toMatchObject({ monthly_budget_usd: null, budget_action: 'notify' });
    expect((await api('GET', `/v1/members/${org.userId}`, { key: org.live })).body).toMatchObject({ monthly_budget_usd: null, budget_action: 'notify' });
    // An admin session sets a developer's budget.
    const byAdmin = await admin.session.call('PATCH', `/v1/members/${dev.id}`, { body });
    expect(byAdmin.status, JSON.stringify(byAdmin.body)).toBe(200);
    expect(byAdmin.body).toMatchObject({ monthly_budget_usd: 5, budget_action: 'block', role: 'developer' });
    const entry = (await api('GET', '/v1/audit-events?limit=5', { key: org.live })).body.data.find((e: any) => e.action === 'member.budget_updated');
    expect(entry).toMatchObject({ actor: { type: 'member', id: admin.id }, target: { id: dev.id }, after: { monthly_budget_usd: 5, budget_action: 'block' } });

    for (const [bad, param] of [
      [{ monthly_budget_usd: -1 }, 'monthly_budget_usd'],
      [{ monthly_budget_usd: 1.234 }, 'monthly_budget_usd'],
      [{ monthly_budget_usd: '5' }, 'monthly_budget_usd'],
      [{ budget_action: 'stop' }, 'budget_action'],
    ] as const) {
      const res = await api('PATCH', `/v1/members/${dev.id}`, { key: org.live, body: bad });
      expect([JSON.stringify(bad), res.status, res.body.error?.code, res.body.error?.param]).toEqual([JSON.stringify(bad), 400, 'parameter_invalid', param]);
    }

    // Another organization's owner: the member is 404, as one that never existed, and nothing changes.
    const other = await s.createOrg({ credits: 1000 });
    for (const res of [
      await api('GET', `/v1/members/${dev.id}`, { key: other.live }),
      await api('PATCH', `/v1/members/${dev.id}`, { key: other.live, body: { monthly_budget_usd: null } }),
      await api('PATCH', '/v1/members/usr_ZZZZZZZZZZZZZZZZZZZZZZZZ', { key: other.live, body: { monthly_budget_usd: null } }),
    ]) {
      expect([res.status, res.body.error.code]).toEqual([404, 'resource_not_found']);
    }
    expect((await api('GET', `/v1/members/${dev.id}`, { key: org.live })).body).toMatchObject({ monthly_budget_usd: 5, budget_action: 'block' });
  });
});
