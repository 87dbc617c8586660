import { beforeEach, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import {
  claimDueDeliveries,
  findDelivery,
  insertDelivery,
  insertFanOutDeliveries,
  listAttempts,
  listDeliveriesBefore,
  parkAllDeliveries,
  parkClaimedDeliveries,
  parkFanOutDeliveries,
  recordDeliveryAttempts,
  releaseAllDeliveryLeases,
  releaseDeliveryLeases,
  unparkDeliveries,
  type ClaimRequest,
} from '../../src/store/deliveries.js';
import { claimUnfannedEvents, hasUnfannedEvents, insertEvent, insertFannedOutEvent, markEventsFannedOut } from '../../src/store/events.js';
import {
  findEnabledWebhooks,
  findWebhook,
  insertWebhook,
  listWebhooksBefore,
  markWebhookDeleted,
  updateWebhookSettings,
  type WebhookRow,
} from '../../src/store/webhooks.js';
import { describeEachBackend } from '../helpers/server.js';
import { count, deferred, makeOrg, row, useDb, type Org } from './fixtures.js';

/**
 * Events, webhooks and their deliveries (events.ts, webhooks.ts, deliveries.ts) on each backend. The claims act on every
 * due delivery and unfanned event of the database: those cases start from empty tables of their own database.
 */
describeEachBackend('store: events, webhooks, deliveries', (backend) => {
  const t = useDb(backend);
  let org: Org;

  beforeEach(async () => {
    await t.db.query('DELETE FROM webhook_attempts');
    await t.db.query('DELETE FROM webhook_deliveries');
    await t.db.query('DELETE FROM events');
    org ??= await makeOrg(t.db);
  });

  const webhook = (over: Partial<Parameters<typeof insertWebhook>[1]> = {}) =>
    insertWebhook(t.db, { id: newId('whk'), organizationId: org.id, mode: 'live', url: 'https://example.test/h', events: ['generation.completed'], enabled: true, secret: newId('req'), ...over });

  const event = async (over: { mode?: 'live' | 'test'; type?: string } = {}) => {
    const id = newId('evt');
    await insertEvent(t.db, { id, organizationId: org.id, mode: over.mode ?? 'live', type: over.type ?? 'generation.completed', data: { n: 1 } });
    return id;
  };

  /** A delivery of `eventId` (a new event of its own when absent: fan-out makes one delivery per webhook and event). */
  const delivery = async (w: WebhookRow, eventId?: string, replayOf: string | null = null) =>
    insertDelivery(t.db, { id: newId('whd'), webhookId: w.id, eventId: eventId ?? (await event()), eventType: 'generation.completed', organizationId: org.id, mode: w.mode, replayOf });

  const claim = (over: Partial<ClaimRequest> = {}): ClaimRequest => ({
    owner: 'node-a', leaseSeconds: 60, limit: 10, blockedWebhookIds: [], roomWebhookIds: [], rooms: [], defaultRoom: 10, ...over,
  });

  const retries = { delaysS: [10, 60], maxAttempts: 3 };

  it('an event nobody listens to is born fanned out; one a webhook of its mode may hear waits for fan-out', async () => {
    const quiet = await event();
    expect(await hasUnfannedEvents(t.db)).toBe(false);
    await webhook({ mode: 'test' });
    expect((await row(t.db, 'events', 'id = $1', [await event()]))!.fanned_out_at).toBeInstanceOf(Date);
    await webhook();
    const heard = await event();
    expect(await row(t.db, 'events', 'id = $1', [heard])).toMatchObject({ fanned_out_at: null, data: { n: 1 } });
    expect((await row(t.db, 'events', 'id = $1', [quiet]))!.fanned_out_at).toBeInstanceOf(Date);
    expect(await hasUnfannedEvents(t.db)).toBe(true);
    const born = newId('evt');
    await insertFannedOutEvent(t.db, { id: born, organizationId: org.id, mode: 'live', type: 'webhook.test', data: {} });
    expect((await row(t.db, 'events', 'id = $1', [born]))!.fanned_out_at).toBeInstanceOf(Date);
    await t.db.query('DELETE FROM webhooks WHERE organization_id = $1', [org.id]);
  });

  it('unfanned events are claimed oldest first, skipping those another fan-out holds, until marked fanned out', async () => {
    const w = await webhook();
    const ids = [await event(), await event(), await event()];
    const held = deferred();
    const release = deferred();
    // A fan-out holding the first two in its transaction …
    const first = t.db.tx(async (q) => {
      const got = await claimUnfannedEvents(q, 2);
      held.resolve();
      await release.promise;
      await markEventsFannedOut(q, got.map((e) => e.id));
      return got.map((e) => e.id);
    });
    await held.promise;
    // … a second one on PostgreSQL gets the third (SKIP LOCKED); PGlite runs one transaction at a time, so it waits for the first.
    const second = backend === 'postgres' ? await t.db.tx((q) => claimUnfannedEvents(q, 10)) : null;
    release.resolve();
    expect(await first).toEqual(ids.slice(0, 2));
    if (second) expect(second.map((e) => e.id)).toEqual([ids[2]]);
    const rest = await claimUnfannedEvents(t.db, 10);
    expect(rest.map((e) => e.id)).toEqual([ids[2]]);
    expect(rest[0]).toMatchObject({ organization_id: org.id, mode: 'live', type: 'generation.completed' });
    await markEventsFannedOut(t.db, [ids[2]!]);
    expect(await hasUnfannedEvents(t.db)).toBe(false);
    await markWebhookDeleted(t.db, w.id);
  });

  it('webhooks are found by organization and mode, listed newest first, updated and soft-deleted', async () => {
    const a = await webhook();
    const b = await webhook({ events: ['*'], enabled: false });
    const other = await makeOrg(t.db);
    expect(await findWebhook(t.db, org.id, 'live', a.id)).toMatchObject({ id: a.id, url: 'https://example.test/h', enabled: true });
    expect(await findWebhook(t.db, org.id, 'test', a.id)).toBeNull();
    expect(await findWebhook(t.db, other.id, 'live', a.id)).toBeNull();
    const page = await listWebhooksBefore(t.db, org.id, 'live', Number.MAX_SAFE_INTEGER, 10);
    expect(page.map((w) => w.id).slice(0, 2)).toEqual([b.id, a.id]);
    expect((await listWebhooksBefore(t.db, org.id, 'live', b.seq, 1)).map((w) => w.id)).toEqual([a.id]);
    const updated = await updateWebhookSettings(t.db, a.id, { url: 'https://example.test/new', events: ['generation.failed'], enabled: false });
    expect(updated).toMatchObject({ url: 'https://example.test/new', events: ['generation.failed'], enabled: false });
    await markWebhookDeleted(t.db, a.id);
    expect(await findWebhook(t.db, org.id, 'live', a.id)).toBeNull();
    expect(await updateWebhookSettings(t.db, a.id, { url: 'https://x.test', events: ['*'], enabled: true })).toBeNull();
    expect(await row(t.db, 'webhooks', 'id = $1', [a.id])).toMatchObject({ enabled: false });
    expect((await listWebhooksBefore(t.db, org.id, 'live', Number.MAX_SAFE_INTEGER, 10)).map((w) => w.id)).not.toContain(a.id);
    await updateWebhookSettings(t.db, b.id, { url: b.url, events: b.events, enabled: true });
    expect((await findEnabledWebhooks(t.db, [org.id, other.id])).map((w) => w.id)).toEqual([b.id]);
    await markWebhookDeleted(t.db, b.id);
    expect(await findEnabledWebhooks(t.db, [org.id])).toEqual([]);
  });

  it('a webhook secret is unique', async () => {
    const w = await webhook();
    await expect(webhook({ secret: w.secret })).rejects.toMatchObject({ code: '23505' });
    await markWebhookDeleted(t.db, w.id);
  });

  it('fan-out makes one delivery per webhook and event however often it runs; a replay is another delivery', async () => {
    const w = await webhook();
    const e = await event();
    const d = { id: newId('whd'), webhookId: w.id, eventId: e, eventType: 'generation.completed', organizationId: org.id, mode: 'live' as const };
    await insertFanOutDeliveries(t.db, [d]);
    await insertFanOutDeliveries(t.db, [{ ...d, id: newId('whd') }]);
    expect(await count(t.db, 'webhook_deliveries', 'webhook_id = $1', [w.id])).toBe(1);
    const replay = await delivery(w, e, d.id);
    expect(replay).toMatchObject({ replay_of: d.id, status: 'pending', attempts: 0 });
    expect(replay.next_attempt_at).toBeInstanceOf(Date);
    expect(await findDelivery(t.db, w.id, d.id)).toMatchObject({ id: d.id, event_id: e, replay_of: null });
    expect(await findDelivery(t.db, newId('whk'), d.id)).toBeNull();
    const listed = await listDeliveriesBefore(t.db, w.id, Number.MAX_SAFE_INTEGER, null, 10);
    expect(listed.map((x) => x.id)).toEqual([replay.id, d.id]);
    expect(await listDeliveriesBefore(t.db, w.id, Number.MAX_SAFE_INTEGER, 'succeeded', 10)).toEqual([]);
    expect((await listDeliveriesBefore(t.db, w.id, replay.seq, 'pending', 10)).map((x) => x.id)).toEqual([d.id]);
    await markWebhookDeleted(t.db, w.id);
  });

  it('a claim leases due deliveries with their event and webhook; a leased one is not claimed again', async () => {
    const w = await webhook();
    const e = await event();
    const d = await delivery(w, e);
    const [c, ...more] = await claimDueDeliveries(t.db, claim());
    expect(more).toEqual([]);
    expect(c).toMatchObject({ id: d.id, webhook_id: w.id, attempts: 0, replay_of: null, mode: 'live', event_id: e, event_type: 'generation.completed', event_data: { n: 1 }, url: w.url, secret: w.secret, enabled: true, deleted: false });
    expect(await claimDueDeliveries(t.db, claim({ owner: 'node-b' }))).toEqual([]);
    expect(await row(t.db, 'webhook_deliveries', 'id = $1', [d.id])).toMatchObject({ lease_owner: 'node-a' });
    await markWebhookDeleted(t.db, w.id);
  });

  it('two nodes claiming at once never lease one delivery twice', async () => {
    const w = await webhook();
    const ds = await Promise.all([1, 2, 3, 4].map(() => delivery(w)));
    const [x, y] = await Promise.all([claimDueDeliveries(t.db, claim({ owner: 'x', limit: 3 })), claimDueDeliveries(t.db, claim({ owner: 'y', limit: 3 }))]);
    const all = [...x, ...y].map((c) => c.id).sort();
    expect(new Set(all).size).toBe(all.length);
    // The first claim locks every candidate it scanned (four times its limit) until it commits: the other may find none left.
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(ds.map((d) => d.id)).toEqual(expect.arrayContaining(all));
    await markWebhookDeleted(t.db, w.id);
  });

  it('a claim passes over blocked webhooks and gives each webhook no more than its room', async () => {
    const busy = await webhook();
    const roomy = await webhook();
    const blocked = await webhook();
    for (let i = 0; i < 3; i++) for (const w of [busy, roomy, blocked]) await delivery(w);
    const got = await claimDueDeliveries(t.db, claim({ blockedWebhookIds: [blocked.id], roomWebhookIds: [roomy.id], rooms: [2], defaultRoom: 1 }));
    const per = (id: string) => got.filter((c) => c.webhook_id === id).length;
    expect([per(busy.id), per(roomy.id), per(blocked.id)]).toEqual([1, 2, 0]);
    for (const w of [busy, roomy, blocked]) await markWebhookDeleted(t.db, w.id);
  });

  it('attempts are recorded for the holder only: succeeded, failed and scheduled by the policy, exhausted at the limit', async () => {
    const w = await webhook();
    const ok = await delivery(w);
    const bad = await delivery(w);
    await claimDueDeliveries(t.db, claim());
    const at = new Date();
    const outcome = (id: string, good: boolean) => ({ id, ok: good, responseStatus: good ? 200 : 500, error: good ? null : 'HTTP 500', startedAt: at, durationMs: 12 });
    // Someone else's result is ignored.
    await recordDeliveryAttempts(t.db, 'node-b', [outcome(ok.id, true)], retries);
    expect(await findDelivery(t.db, w.id, ok.id)).toMatchObject({ status: 'pending', attempts: 0 });
    await recordDeliveryAttempts(t.db, 'node-a', [outcome(ok.id, true), outcome(bad.id, false)], retries);
    expect(await findDelivery(t.db, w.id, ok.id)).toMatchObject({ status: 'succeeded', attempts: 1, next_attempt_at: null, last_response_status: 200 });
    const failed = (await findDelivery(t.db, w.id, bad.id))!;
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, last_error: 'HTTP 500' });
    // The first retry waits delaysS[0] = 10 s.
    const wait = failed.next_attempt_at!.getTime() - failed.updated_at.getTime();
    expect(wait).toBeGreaterThanOrEqual(9_000);
    expect(wait).toBeLessThanOrEqual(11_000);
    expect(await row(t.db, 'webhook_deliveries', 'id = $1', [bad.id])).toMatchObject({ lease_owner: null });
    for (let n = 2; n <= 3; n++) {
      await t.db.query('UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = $1', [bad.id]);
      await claimDueDeliveries(t.db, claim());
      await recordDeliveryAttempts(t.db, 'node-a', [outcome(bad.id, false)], retries);
    }
    expect(await findDelivery(t.db, w.id, bad.id)).toMatchObject({ status: 'exhausted', attempts: 3, next_attempt_at: null });
    const attempts = await listAttempts(t.db, bad.id);
    expect(attempts.map((a) => [a.attempt, a.response_status, a.duration_ms])).toEqual([[1, 500, 12], [2, 500, 12], [3, 500, 12]]);
    expect(attempts[0]!.started_at.getTime()).toBe(at.getTime());
    await markWebhookDeleted(t.db, w.id);
  });

  it('leases are handed back by their holder, one by one or all at once, and claimed deliveries can be parked', async () => {
    const w = await webhook();
    const [a, b, c] = [await delivery(w), await delivery(w), await delivery(w)];
    await claimDueDeliveries(t.db, claim());
    await releaseDeliveryLeases(t.db, [a.id], 'node-b');
    expect(await row(t.db, 'webhook_deliveries', 'id = $1', [a.id])).toMatchObject({ lease_owner: 'node-a' });
    await releaseDeliveryLeases(t.db, [a.id], 'node-a');
    expect(await row(t.db, 'webhook_deliveries', 'id = $1', [a.id])).toMatchObject({ lease_owner: null, lease_expires_at: null });
    await parkClaimedDeliveries(t.db, [b.id], 'node-a');
    expect(await row(t.db, 'webhook_deliveries', 'id = $1', [b.id])).toMatchObject({ lease_owner: null, next_attempt_at: null });
    await releaseAllDeliveryLeases(t.db, 'node-a');
    expect(await row(t.db, 'webhook_deliveries', 'id = $1', [c.id])).toMatchObject({ lease_owner: null });
    expect((await claimDueDeliveries(t.db, claim())).map((d) => d.id).sort()).toEqual([a.id, c.id].sort());
    await markWebhookDeleted(t.db, w.id);
  });

  it('parking unschedules what is still to be sent (fan-out only, or all), and unparking schedules it again', async () => {
    const w = await webhook();
    const e = await event();
    const fanned = await delivery(w, e);
    const replay = await delivery(w, e, fanned.id);
    const testDelivery = await insertDelivery(t.db, { id: newId('whd'), webhookId: w.id, eventId: e, eventType: 'webhook.test', organizationId: org.id, mode: 'live', replayOf: fanned.id });
    const next = async (id: string) => (await findDelivery(t.db, w.id, id))!.next_attempt_at;
    await parkFanOutDeliveries(t.db, w.id, 'webhook.test');
    expect(await next(fanned.id)).toBeNull();
    expect(await next(replay.id)).not.toBeNull();
    expect(await next(testDelivery.id)).not.toBeNull();
    await parkAllDeliveries(t.db, w.id);
    expect([await next(replay.id), await next(testDelivery.id)]).toEqual([null, null]);
    await unparkDeliveries(t.db, w.id);
    for (const d of [fanned, replay, testDelivery]) expect(await next(d.id)).toBeInstanceOf(Date);
    await markWebhookDeleted(t.db, w.id);
  });
});
