import { afterAll, beforeAll, expect, it } from 'vitest';
import { runAdminCommand } from '../../src/admin/commands.js';
import { auditHash, recordAudit, operatorOrigin, verifyAuditChains, type ChainReport } from '../../src/domain/audit.js';
import type { AuditEventRow } from '../../src/store/audit.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * The audit log (issue 31 item 4): every change made through the API and the operator's commands is recorded with
 * its actor, address, request id, target and values before and after, never a secret; owners and admins read their
 * own organization's (and mode's) entries, filtered and paged, or exported as JSON Lines; the entries form a hash
 * chain per organization that `verify` walks, and a row changed or deleted in the database breaks it.
 */
describeOnBackend('audit log', 'pglite', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let a: TestOrg;
  let b: TestOrg;

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_ALLOW_PRIVATE_NETWORK: '1' });
    api = client(s.url);
    a = await s.createOrg({ credits: 1_000, enterprise: true });
    b = await s.createOrg({ credits: 0 });
  });
  afterAll(async () => s?.close());

  const events = async (key: string, query = '') => {
    const res = await api('GET', `/v1/audit-events${query}`, { key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { data: any[]; has_more: boolean };
  };
  const chainOf = (reports: ChainReport[], org: string) => reports.find((r) => r.organization_id === org)!;

  it('records every change through the API with actor, address, request id, before and after, and never a secret', async () => {
    const created = await api('POST', '/v1/api-keys', { key: a.live, body: { name: 'ci', role: 'developer', monthly_budget_usd: 10 } });
    expect(created.status).toBe(201);
    const secret = created.body.key as string;
    const patched = await api('PATCH', `/v1/api-keys/${created.body.id}`, { key: a.live, body: { name: 'ci renamed', monthly_budget_usd: 25 } });
    expect(patched.status).toBe(200);
    expect((await api('DELETE', `/v1/api-keys/${created.body.id}`, { key: a.live })).status).toBe(200);

    const hook = await api('POST', '/v1/webhooks', { key: a.live, body: { url: 'http://127.0.0.1:9/a', events: ['*'] } });
    expect(hook.status).toBe(201);
    expect((await api('PATCH', `/v1/webhooks/${hook.body.id}`, { key: a.live, body: { enabled: false } })).status).toBe(200);
    expect((await api('DELETE', `/v1/webhooks/${hook.body.id}`, { key: a.live })).status).toBe(200);

    expect((await api('PATCH', '/v1/organization', { key: a.live, body: { monthly_budget_usd: 100, budget_action: 'block' } })).status).toBe(200);
    expect((await api('PATCH', '/v1/organization', { key: a.live, body: { paused: true } })).status).toBe(200);
    expect((await api('PATCH', '/v1/organization', { key: a.live, body: { paused: false } })).status).toBe(200);
    expect((await api('PATCH', '/v1/organization/moderation', { key: a.live, body: { threshold: 0.5, prompt_blocklist: ['forbidden'] } })).status).toBe(200);
    await runAdminCommand(s.runtime.deps, { name: 'wallet.topup', args: { actor: 'alice@host (cli)', org: a.id, credits: 250, reference: 'audit-topup' } });
    // A repeated reference moves no money and records nothing.
    await runAdminCommand(s.runtime.deps, { name: 'wallet.topup', args: { actor: 'alice@host (cli)', org: a.id, credits: 250, reference: 'audit-topup' } });
    await runAdminCommand(s.runtime.deps, { name: 'catalog.access', args: { actor: 'alice@host (cli)', org: a.id, body: { mode: 'deny', models: ['flux-schnell'] } } });

    const list = await events(a.live, '?limit=100');
    const actions = list.data.map((e) => e.action).reverse();
    expect(actions).toEqual([
      'organization.created',
      'wallet.topped_up',
      'api_key.created',
      'api_key.updated',
      'api_key.revoked',
      'webhook.created',
      'webhook.updated',
      'webhook.deleted',
      'organization.budget_updated',
      'organization.paused',
      'organization.unpaused',
      'moderation_policy.updated',
      'wallet.topped_up',
      'organization.model_access_set',
    ]);
    // Newest first, seq contiguous within the organization's chain.
    expect(list.data.map((e) => e.seq)).toEqual(list.data.map((_, i) => list.data.length - i));

    const byAction = (action: string) => list.data.filter((e) => e.action === action);
    const keyCreated = byAction('api_key.created')[0];
    const ownerKeyId = keyCreated.actor.id as string;
    expect(keyCreated.actor).toEqual({ type: 'api_key', id: expect.stringMatching(/^key_/), user_id: a.userId });
    expect(keyCreated.client_address).toMatch(/127\.0\.0\.1/);
    expect(keyCreated.request_id).toMatch(/^req_/);
    expect(keyCreated.mode).toBe('live');
    expect(keyCreated.target).toEqual({ type: 'api_key', id: created.body.id });
    expect(keyCreated.before).toBeNull();
    expect(keyCreated.after).toMatchObject({ name: 'ci', role: 'developer', monthly_budget_usd: 10 });
    const keyUpdated = byAction('api_key.updated')[0];
    expect(keyUpdated.before).toMatchObject({ name: 'ci', monthly_budget_usd: 10 });
    expect(keyUpdated.after).toMatchObject({ name: 'ci renamed', monthly_budget_usd: 25 });
    expect(byAction('api_key.revoked')[0]).toMatchObject({ before: { name: 'ci renamed' }, after: null });
    expect(byAction('webhook.updated')[0]).toMatchObject({ before: { enabled: true }, after: { enabled: false } });
    expect(byAction('organization.budget_updated')[0]).toMatchObject({
      mode: 'live', before: { monthly_budget_usd: null, budget_action: 'notify' }, after: { monthly_budget_usd: 100, budget_action: 'block' },
    });
    expect(byAction('organization.paused')[0]).toMatchObject({ before: { paused: false }, after: { paused: true, pause_reason: { kind: 'owner' } } });
    expect(byAction('moderation_policy.updated')[0]).toMatchObject({ before: { threshold: 0.8 }, after: { threshold: 0.5, prompt_blocklist: ['forbidden'] } });
    const [topup, initial] = byAction('wallet.topped_up');
    expect(topup).toMatchObject({
      mode: null,
      actor: { type: 'operator', id: 'alice@host (cli)', user_id: null }, client_address: null, request_id: null,
      target: { type: 'wallet', id: a.id }, before: { balance_credits: 1_000 }, after: { balance_credits: 1_250, credits: 250, reference: 'audit-topup' },
    });
    expect(initial).toMatchObject({ actor: { type: 'operator', id: 'test' }, before: { balance_credits: 0 }, after: { balance_credits: 1_000, credits: 1_000 } });
    expect(byAction('organization.model_access_set')[0]).toMatchObject({ actor: { type: 'operator' }, after: { mode: 'deny', models: ['flux-schnell'] } });

    // No secret anywhere: not the key's, not the webhook's, not the owner's keys' made with the organization.
    const all = JSON.stringify(list.data);
    expect(all).not.toContain(secret);
    expect(all).not.toContain(hook.body.secret);
    expect(all).not.toContain(a.live);
    expect(all).not.toMatch(/sk_(live|test)_[A-Za-z0-9]{20}|whsec_/);

    // Filters: action (exact and prefix), actor, target, time.
    expect((await events(a.live, '?action=api_key.revoked')).data.map((e) => e.target.id)).toEqual([created.body.id]);
    expect((await events(a.live, '?action=webhook.*')).data.map((e) => e.action)).toEqual(['webhook.deleted', 'webhook.updated', 'webhook.created']);
    expect((await events(a.live, `?actor=${ownerKeyId}&limit=100`)).data).toHaveLength(10);
    expect((await events(a.live, `?actor=${a.userId}&limit=100`)).data).toHaveLength(10);
    expect((await events(a.live, '?actor_type=operator&limit=100')).data).toHaveLength(4);
    expect((await events(a.live, `?target_type=api_key&target_id=${created.body.id}`)).data).toHaveLength(3);
    const middle = list.data[5];
    expect((await events(a.live, `?until=${encodeURIComponent(middle.created_at)}&limit=100`)).data.every((e) => e.created_at < middle.created_at)).toBe(true);
    expect((await events(a.live, `?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).data).toEqual([]);
    const bad = await api('GET', '/v1/audit-events?since=yesterday', { key: a.live });
    expect([bad.status, bad.body.error.code, bad.body.error.param]).toEqual([400, 'parameter_invalid', 'since']);

    // Cursor paging walks the same entries.
    const paged: any[] = [];
    let cursor = '';
    for (;;) {
      const page = await events(a.live, `?limit=4${cursor}`);
      paged.push(...page.data);
      if (!page.has_more) break;
      cursor = `&starting_after=${page.data[page.data.length - 1].id}`;
    }
    expect(paged.map((e) => e.id)).toEqual(list.data.map((e) => e.id));

    // The JSON Lines export: the same entries, streamed.
    const exported = await fetch(`${s.url}/v1/audit-events/export`, { headers: { authorization: `Bearer ${a.live}` } });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = (await exported.text()).trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual(list.data);
    const filtered = await fetch(`${s.url}/v1/audit-events/export?action=api_key.*`, { headers: { authorization: `Bearer ${a.live}` } });
    expect((await filtered.text()).trimEnd().split('\n')).toHaveLength(3);
  });

  it('owners and admins read it, of their own organization and mode only', async () => {
    const mk = async (role: string) => (await api('POST', '/v1/api-keys', { key: a.live, body: { name: role, role } })).body;
    const admin = await mk('admin');
    const developer = await mk('developer');
    expect((await api('GET', '/v1/audit-events', { key: admin.key })).status).toBe(200);
    for (const path of ['/v1/audit-events', '/v1/audit-events/export']) {
      const refused = await api('GET', path, { key: developer.key });
      expect([refused.status, refused.body.error.code]).toEqual([403, 'insufficient_role']);
    }
    // Another organization: none of A's entries; a test key of A: the organization's, none of the live keys'.
    const other = JSON.stringify((await events(b.live, '?limit=100')).data);
    expect(other).not.toContain(a.id);
    expect((await events(b.live, '?limit=100')).data.every((e) => e.organization_id === b.id)).toBe(true);
    const testView = (await events(a.test, '?limit=100')).data;
    expect(testView.length).toBeGreaterThan(0);
    expect(testView.every((e) => e.mode === null)).toBe(true);
    expect(JSON.stringify(testView)).not.toContain(admin.id);
    const lastLive = (await events(a.live, '?limit=1')).data[0].id;
    const hidden = await api('GET', `/v1/audit-events?starting_after=${lastLive}`, { key: b.live });
    expect([hidden.status, hidden.body.error.code]).toEqual([404, 'resource_not_found']);
  });

  it("a signed-in person's change is recorded in the mode the session acts in; their own account's in both", async () => {
    const org = await s.createOrg({ credits: 0 });
    const inv = await api('POST', '/v1/invitations', { key: org.live, body: { email: `audit-mode-${Date.now()}@example.test`, role: 'owner' } });
    expect(inv.status, JSON.stringify(inv.body)).toBe(201);
    const accepted = await api('POST', '/v1/invitations/accept', { body: { token: new URL(inv.body.url as string).hash.replace('#token=', ''), password: 'audit mode password' } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    const headers: Record<string, string> = { cookie: accepted.headers.getSetCookie().map((c) => c.split(';')[0]).join('; '), 'x-csrf-token': accepted.body.csrf_token as string };
    // In live mode: a live key and an invitation, both live-mode business.
    const liveKey = await api('POST', '/v1/api-keys', { headers, body: { name: 'made live in the dashboard' } });
    expect(liveKey.status, JSON.stringify(liveKey.body)).toBe(201);
    const invited = await api('POST', '/v1/invitations', { headers, body: { email: `audit-mode-2-${Date.now()}@example.test`, role: 'owner' } });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    // In test mode: a test key; the switch itself is the person's own.
    const switched = await api('PATCH', '/v1/session', { headers, body: { mode: 'test' } });
    expect(switched.status, JSON.stringify(switched.body)).toBe(200);
    headers['x-csrf-token'] = switched.body.csrf_token as string;
    const testKey = await api('POST', '/v1/api-keys', { headers, body: { name: 'made in test mode' } });
    expect(testKey.status, JSON.stringify(testKey.body)).toBe(201);

    const live = (await events(org.live, '?limit=100')).data;
    const test = (await events(org.test, '?limit=100')).data;
    const entry = (list: any[], action: string, target: string) => list.find((e) => e.action === action && e.target.id === target);
    expect(entry(live, 'api_key.created', liveKey.body.id)).toMatchObject({ mode: 'live', actor: { type: 'member' } });
    expect(entry(live, 'invitation.created', invited.body.id)).toMatchObject({ mode: 'live', actor: { type: 'member' } });
    expect(entry(test, 'api_key.created', liveKey.body.id)).toBeUndefined();
    expect(entry(test, 'invitation.created', invited.body.id)).toBeUndefined();
    expect(entry(test, 'api_key.created', testKey.body.id)).toMatchObject({ mode: 'test', actor: { type: 'member' } });
    expect(entry(live, 'api_key.created', testKey.body.id)).toBeUndefined();
    // The switch is the person's own: both modes read it.
    expect(live.find((e) => e.action === 'session.switched')).toMatchObject({ mode: null });
    expect(test.find((e) => e.action === 'session.switched')).toMatchObject({ mode: null });
  });

  it('concurrent writers take turns: the chain never forks', async () => {
    const org = await s.createOrg({ credits: 0 });
    await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        i % 2 === 0
          ? api('POST', '/v1/api-keys', { key: org.live, body: { name: `k${i}` } }).then((r) => expect(r.status).toBe(201))
          : runAdminCommand(s.runtime.deps, { name: 'wallet.topup', args: { actor: 'race', org: org.id, credits: 1, reference: `race-${i}` } }),
      ),
    );
    const report = chainOf(await verifyAuditChains(s.db), org.id);
    expect(report).toMatchObject({ ok: true, entries: 25, problem: null });
  });

  it('the database refuses to change or delete an entry', async () => {
    await expect(s.db.query("UPDATE audit_events SET action = 'x.y' WHERE chain = $1", [a.id])).rejects.toThrow(/append-only/);
    await expect(s.db.query('DELETE FROM audit_events WHERE chain = $1', [a.id])).rejects.toThrow(/append-only/);
  });

  it('verify passes, then names the first entry changed, then the first deleted, when someone gets past the trigger', async () => {
    const org = await s.createOrg({ credits: 10 });
    for (let i = 0; i < 4; i++) expect((await api('POST', '/v1/api-keys', { key: org.live, body: { name: `v${i}` } })).status).toBe(201);
    await recordAudit(s.db, { ...operatorOrigin('verify test'), organizationId: null, action: 'catalog.margin_set', target: { type: 'catalog', id: '*' }, before: null, after: { margin_percent: '5' } });
    const verified = await runAdminCommand(s.runtime.deps, { name: 'audit.verify', args: {} }) as ChainReport[];
    expect(verified.every((r) => r.ok), JSON.stringify(verified.filter((r) => !r.ok))).toBe(true);
    expect(chainOf(verified, org.id).entries).toBe(6);
    expect(verified.some((r) => r.chain === 'installation')).toBe(true);

    // Someone with the database's owner rights turns the trigger off and edits history.
    await s.db.exec('ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_change');
    try {
      const third = (await s.db.query<{ id: string; after: unknown }>('SELECT id, after FROM audit_events WHERE chain = $1 AND seq = 3', [org.id])).rows[0]!;
      await s.db.query(`UPDATE audit_events SET after = jsonb_set(after, '{name}', '"tampered"') WHERE id = $1`, [third.id]);
      let report = chainOf(await verifyAuditChains(s.db), org.id);
      expect(report).toMatchObject({ ok: false, entries: 2, problem: { kind: 'changed', seq: 3, id: third.id } });
      // Put back exactly: it verifies again (the hash is over the values, not the row's storage).
      await s.db.query('UPDATE audit_events SET after = $2::jsonb WHERE id = $1', [third.id, JSON.stringify(third.after)]);
      expect(chainOf(await verifyAuditChains(s.db), org.id).ok).toBe(true);

      // A changed entry whose hash was recomputed too is caught by its successor.
      const row = (await s.db.query<AuditEventRow>('SELECT * FROM audit_events WHERE id = $1', [third.id])).rows[0]!;
      const { hash: _old, ...fields } = { ...row, after: { ...(row.after as object), name: 'tampered' } };
      await s.db.query('UPDATE audit_events SET after = $2::jsonb, hash = $3 WHERE id = $1', [third.id, JSON.stringify(fields.after), auditHash(fields)]);
      report = chainOf(await verifyAuditChains(s.db), org.id);
      expect(report).toMatchObject({ ok: false, entries: 3, problem: { kind: 'changed', seq: 3 } });

      // A deleted entry in the middle, and one at the end.
      const other = await s.createOrg({ credits: 10 });
      for (let i = 0; i < 3; i++) await api('POST', '/v1/api-keys', { key: other.live, body: { name: `d${i}` } });
      await s.db.query('DELETE FROM audit_events WHERE chain = $1 AND seq = 2', [other.id]);
      expect(chainOf(await verifyAuditChains(s.db), other.id)).toMatchObject({ ok: false, entries: 1, problem: { kind: 'deleted', seq: 2 } });
      const third2 = await s.createOrg({ credits: 0 });
      await api('POST', '/v1/api-keys', { key: third2.live, body: { name: 'last' } });
      await s.db.query('DELETE FROM audit_events WHERE chain = $1 AND seq = 2', [third2.id]);
      expect(chainOf(await verifyAuditChains(s.db), third2.id)).toMatchObject({ ok: false, entries: 1, problem: { kind: 'deleted', seq: 2 } });
    } finally {
      await s.db.exec('ALTER TABLE audit_events ENABLE TRIGGER audit_events_no_change');
    }
  });
});

