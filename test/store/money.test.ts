import { expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { reserveAndAccept } from '../../src/store/accepting.js';
import { errorCode } from '../../src/store/db.js';
import { chargeAndFinish, finishStatement, MAX_FINISH_BATCH, type AttemptEnd } from '../../src/store/finishing.js';
import { selectGeneration, type OutputRow } from '../../src/store/generations.js';
import { insertIdempotencyClaim } from '../../src/store/idempotency.js';
import { insertComparison } from '../../src/store/comparisons.js';
import {
  addToWalletBalance,
  applyPendingSettlements,
  holdIfAvailable,
  insertLedgerEntry,
  insertWallet,
  selectOrganizationsWithPending,
  selectWalletWithPending,
  sumLedger,
} from '../../src/store/ledger.js';
import { insertOrganizationRow } from '../../src/store/organizations.js';
import { insertWebhook } from '../../src/store/webhooks.js';
import { findKeyWithOrganization } from '../../src/store/api-keys.js';
import { describeEachBackend } from '../helpers/server.js';
import { accept, acceptance, count, makeOrg, row, useDb, type Org } from './fixtures.js';

/**
 * The store's money statements (ledger.ts, accepting.ts, finishing.ts) on each backend: what each returns and what it
 * leaves in wallets, ledger_entries, wallet_pending, usage_rollups, generations, jobs and events. The invariant every
 * case ends on: a wallet row plus its pending settlements equals its ledger's sums.
 */
describeEachBackend('store: ledger, accepting, finishing', (backend) => {
  const t = useDb(backend);

  async function expectLedgerAgrees(orgId: string): Promise<void> {
    expect(await selectWalletWithPending(t.db, orgId)).toEqual(await sumLedger(t.db, orgId));
  }

  const ended = (over: Partial<AttemptEnd> = {}): AttemptEnd => ({
    status: 'succeeded', charged: 0, result: null, error: null, upstreamId: 'up_1', outputs: [], ...over,
  });

  const output = (generationId: string, position: number): OutputRow => ({
    id: newId('out'), generation_id: generationId, position, type: 'image', mime: 'image/png', width: 64, height: 64,
    duration_s: null, blob_key: `outputs/${generationId}-${position}.png`, size_bytes: 123, moderation_status: 'approved',
  });

  it('a wallet row is made once; a second for the same organization is a unique violation', async () => {
    const id = newId('org');
    await insertOrganizationRow(t.db, { id, name: 'bare', plan: 'free', enterprise: false });
    expect(await selectWalletWithPending(t.db, id)).toBeUndefined();
    await insertWallet(t.db, id);
    expect(await selectWalletWithPending(t.db, id)).toEqual({ balance_credits: 0, held_credits: 0 });
    const err = await insertWallet(t.db, id).catch((e: unknown) => e);
    expect(errorCode(err)).toBe('23505');
  });

  it('addToWalletBalance makes the row when there is none, and adds to it after', async () => {
    const id = newId('org');
    await insertOrganizationRow(t.db, { id, name: 'bare', plan: 'free', enterprise: false });
    await addToWalletBalance(t.db, id, 70);
    await addToWalletBalance(t.db, id, 30);
    expect(await selectWalletWithPending(t.db, id)).toEqual({ balance_credits: 100, held_credits: 0 });
  });

  it('a ledger row is written once per kind and reference, and the sums are the ledger', async () => {
    const org = await makeOrg(t.db, { credits: 500 });
    expect(await sumLedger(t.db, org.id)).toEqual({ balance_credits: 500, held_credits: 0 });
    const entry = { organizationId: org.id, reference: 'manual-1', note: 'goodwill' };
    expect(await insertLedgerEntry(t.db, 'adjustment', 25, 0, entry)).toBe(true);
    expect(await insertLedgerEntry(t.db, 'adjustment', 999, 0, entry)).toBe(false);
    // The same reference under another kind is another movement.
    expect(await insertLedgerEntry(t.db, 'topup', 5, 0, entry)).toBe(true);
    expect(await sumLedger(t.db, org.id)).toEqual({ balance_credits: 530, held_credits: 0 });
    expect(await row(t.db, 'ledger_entries', 'organization_id = $1 AND kind = $2', [org.id, 'adjustment'])).toMatchObject({ balance_delta: 25, note: 'goodwill' });
    expect(await sumLedger(t.db, newId('org'))).toEqual({ balance_credits: 0, held_credits: 0 });
  });

  it('holdIfAvailable holds what fits and refuses what does not, leaving the wallet as it was', async () => {
    const org = await makeOrg(t.db, { credits: 100 });
    expect(await holdIfAvailable(t.db, org.id, 60)).toBe(true);
    expect(await holdIfAvailable(t.db, org.id, 41)).toBe(false);
    expect(await holdIfAvailable(t.db, org.id, 40)).toBe(true);
    expect(await row(t.db, 'wallets', 'organization_id = $1', [org.id])).toMatchObject({ balance_credits: 100, held_credits: 100 });
  });

  it('of holds racing for the same credits, only those that fit are taken', async () => {
    const org = await makeOrg(t.db, { credits: 100 });
    const held = await Promise.all(Array.from({ length: 5 }, () => holdIfAvailable(t.db, org.id, 30)));
    expect(held.filter(Boolean)).toHaveLength(3);
    expect(await row(t.db, 'wallets', 'organization_id = $1', [org.id])).toMatchObject({ held_credits: 90 });
  });

  it('a free queued generation is accepted with its job due now, and no hold', async () => {
    const org = await makeOrg(t.db);
    const a = acceptance(org);
    const out = await reserveAndAccept(t.db, a);
    expect(out).toMatchObject({ written: true, walletFree: null });
    expect(await row(t.db, 'generations', 'id = $1', [a.id])).toMatchObject({
      status: 'queued', sync: false, price_credits: 0, reserved_credits: 0, runner_node: null, started_at: null, price_version: 'pv1',
      params: { prompt: 'a lighthouse', size: '1024x1024' },
    });
    const job = await row<{ lease_owner: string | null; run_at: Date }>(t.db, 'jobs', 'generation_id = $1', [a.id]);
    expect(job?.lease_owner).toBeNull();
    expect(await count(t.db, 'ledger_entries', 'generation_id = $1', [a.id])).toBe(0);
  });

  it('a priced generation holds its price with a reserve row, and answers what the wallet has free', async () => {
    const org = await makeOrg(t.db, { credits: 100 });
    const a = acceptance(org, { price: 30 });
    expect(await reserveAndAccept(t.db, a)).toMatchObject({ written: true, walletFree: 70 });
    expect(await row(t.db, 'wallets', 'organization_id = $1', [org.id])).toMatchObject({ balance_credits: 100, held_credits: 30 });
    expect(await row(t.db, 'ledger_entries', 'generation_id = $1', [a.id])).toMatchObject({ kind: 'reserve', balance_delta: 0, held_delta: 30, reference: `${a.id}#1` });
    await expectLedgerAgrees(org.id);
  });

  it('a price the wallet cannot cover writes nothing at all', async () => {
    const org = await makeOrg(t.db, { credits: 10 });
    const a = acceptance(org, { price: 11 });
    expect(await reserveAndAccept(t.db, a)).toEqual({ written: false, reason: 'insufficient_credits' });
    expect(await count(t.db, 'generations', 'id = $1', [a.id])).toBe(0);
    expect(await count(t.db, 'jobs', 'generation_id = $1', [a.id])).toBe(0);
    expect(await count(t.db, 'ledger_entries', 'generation_id = $1', [a.id])).toBe(0);
    expect(await row(t.db, 'wallets', 'organization_id = $1', [org.id])).toMatchObject({ held_credits: 0 });
  });

  it('accepts racing for the last credits: exactly as many as the wallet covers are written', async () => {
    const org = await makeOrg(t.db, { credits: 50 });
    const outcomes = await Promise.all(Array.from({ length: 4 }, () => reserveAndAccept(t.db, acceptance(org, { price: 20 }))));
    expect(outcomes.filter((o) => o.written)).toHaveLength(2);
    expect(outcomes.filter((o) => !o.written)).toEqual([
      { written: false, reason: 'insufficient_credits' },
      { written: false, reason: 'insufficient_credits' },
    ]);
    expect(await count(t.db, 'generations', 'organization_id = $1', [org.id])).toBe(2);
    await expectLedgerAgrees(org.id);
  });

  it('a synchronous generation starts running, its job leased to the accepting node', async () => {
    const org = await makeOrg(t.db);
    const a = await accept(t.db, org, { sync: true, nodeId: 'node-sync', leaseSeconds: 120 });
    const g = await row<{ status: string; runner_node: string; started_at: Date | null }>(t.db, 'generations', 'id = $1', [a.id]);
    expect(g).toMatchObject({ status: 'running', runner_node: 'node-sync' });
    expect(g?.started_at).toBeInstanceOf(Date);
    const job = await row<{ lease_owner: string; lease_expires_at: Date; run_at: Date }>(t.db, 'jobs', 'generation_id = $1', [a.id]);
    expect(job?.lease_owner).toBe('node-sync');
    // The lease's end is the job's due time (migration 0009): about two minutes ahead of the acceptance.
    expect(job!.run_at.getTime()).toBe(job!.lease_expires_at.getTime());
    expect(job!.run_at.getTime() - a.createdAt.getTime()).toBeGreaterThan(100_000);
  });

  it('a cached key is confirmed by its fingerprint: unchanged, the generation is written; changed, nothing is', async () => {
    const org = await makeOrg(t.db, { credits: 100 });
    const key = await findKeyWithOrganization(t.db, org.liveKeyId);
    const ok = acceptance(org, { price: 10, keyFingerprint: key!.fingerprint });
    expect(await reserveAndAccept(t.db, ok)).toMatchObject({ written: true });
    const stale = acceptance(org, { price: 10, keyFingerprint: 'not-the-fingerprint' });
    expect(await reserveAndAccept(t.db, stale)).toEqual({ written: false, reason: 'key_changed' });
    expect(await count(t.db, 'generations', 'id = $1', [stale.id])).toBe(0);
    expect(await row(t.db, 'wallets', 'organization_id = $1', [org.id])).toMatchObject({ held_credits: 10 });
  });

  it('with an Idempotency-Key claim, the generation is written only while the claim is held, and names it', async () => {
    const org = await makeOrg(t.db);
    const claim = { apiKeyId: org.liveKeyId, key: `idem-${newId('req')}`, requestId: newId('req') };
    await insertIdempotencyClaim(t.db, { ...claim, method: 'POST', path: '/v1/images', requestSha256: 'h', nodeId: 'node-a' });
    const a = acceptance(org, { claim });
    expect(await reserveAndAccept(t.db, a)).toMatchObject({ written: true });
    expect(await row(t.db, 'idempotency_keys', 'api_key_id = $1 AND idempotency_key = $2', [claim.apiKeyId, claim.key])).toMatchObject({ resource_id: a.id });
    // Taken over by another request: this one accepts nothing.
    const lost = acceptance(org, { claim: { ...claim, requestId: newId('req') } });
    expect(await reserveAndAccept(t.db, lost)).toEqual({ written: false, reason: 'claim_lost' });
    expect(await count(t.db, 'generations', 'id = $1', [lost.id])).toBe(0);
  });

  it('an acceptance that breaks a constraint fails with the database error (nothing is hidden as a refusal)', async () => {
    const org = await makeOrg(t.db);
    const a = await accept(t.db, org);
    const err = await reserveAndAccept(t.db, acceptance(org, { id: a.id })).catch((e: unknown) => e);
    expect(errorCode(err)).toBe('23505');
  });

  it('a succeeded attempt is charged, the rest released, its outputs, event and pending settlement written, its job gone', async () => {
    const org = await makeOrg(t.db, { credits: 100 });
    const a = await accept(t.db, org, { price: 40 });
    const g = (await selectGeneration(t.db, a.id))!;
    const outs = [output(a.id, 0), output(a.id, 1)];
    const [done] = await chargeAndFinish(t.db, [{ g, end: ended({ charged: 25, outputs: outs, result: { note: 'ok' }, priceVersion: 'pv2' }) }]);
    expect(done).toMatchObject({ id: a.id, status: 'succeeded', charged_credits: 25, refunded_credits: 15, upstream_id: 'up_1', price_version: 'pv2', result: { note: 'ok' } });
    expect(done).not.toHaveProperty('x_charged');
    const ledger = (await t.db.query<{ kind: string; balance_delta: number; held_delta: number }>(
      'SELECT kind, balance_delta, held_delta FROM ledger_entries WHERE generation_id = $1 ORDER BY kind', [a.id])).rows;
    expect(ledger).toEqual([
      { kind: 'charge', balance_delta: -25, held_delta: -25 },
      { kind: 'release', balance_delta: 0, held_delta: -15 },
      { kind: 'reserve', balance_delta: 0, held_delta: 40 },
    ]);
    expect(await count(t.db, 'jobs', 'generation_id = $1', [a.id])).toBe(0);
    expect(await count(t.db, 'generation_outputs', 'generation_id = $1', [a.id])).toBe(2);
    const event = await row<{ type: string; data: Record<string, unknown>; fanned_out_at: Date | null }>(t.db, 'events', `data->>'generation_id' = $1`, [a.id]);
    expect(event).toMatchObject({ type: 'generation.completed', data: { generation_id: a.id, modality: 'image', status: 'succeeded', charged_credits: 25 } });
    // Nobody listens (no webhook): the event is born fanned out.
    expect(event?.fanned_out_at).toBeInstanceOf(Date);
    expect(await row(t.db, 'wallet_pending', 'organization_id = $1', [org.id])).toMatchObject({
      balance_delta: -25, held_delta: -40, generations: 1, charged_credits: 25, refunded_credits: 15, model: 'test-image', price_version: 'pv2',
    });
    await expectLedgerAgrees(org.id);
  });

  it('a failed attempt releases its whole hold, and its event carries the refund and the error, unfanned when a webhook listens', async () => {
    const org = await makeOrg(t.db, { credits: 100 });
    await insertWebhook(t.db, { id: newId('whk'), organizationId: org.id, mode: 'live', url: 'https://example.test/h', events: ['*'], enabled: true, secret: 's' });
    const a = await accept(t.db, org, { price: 40 });
    const g = (await selectGeneration(t.db, a.id))!;
    const error = { type: 'provider_error', code: 'upstream_failed', message: 'no' };
    const [done] = await chargeAndFinish(t.db, [{ g, end: ended({ status: 'failed', error }) }]);
    expect(done).toMatchObject({ status: 'failed', charged_credits: 0, refunded_credits: 40, error });
    expect(await count(t.db, 'ledger_entries', `generation_id = $1 AND kind = 'charge'`, [a.id])).toBe(0);
    const event = await row<{ type: string; data: Record<string, unknown>; fanned_out_at: Date | null }>(t.db, 'events', `data->>'generation_id' = $1`, [a.id]);
    expect(event).toMatchObject({ type: 'generation.failed', data: { refunded_credits: 40, error }, fanned_out_at: null });
    await expectLedgerAgrees(org.id);
  });

  it('an attempt is finished once: a second finish, or one after a cancel, changes nothing and answers null', async () => {
    const org = await makeOrg(t.db, { credits: 100 });
    const a = await accept(t.db, org, { price: 10 });
    const g = (await selectGeneration(t.db, a.id))!;
    expect((await chargeAndFinish(t.db, [{ g, end: ended({ charged: 10 }) }]))[0]).not.toBeNull();
    expect(await chargeAndFinish(t.db, [{ g, end: ended({ charged: 10 }) }])).toEqual([null]);
    expect(await count(t.db, 'ledger_entries', `generation_id = $1 AND kind = 'charge'`, [a.id])).toBe(1);
    const c = await accept(t.db, org, { price: 10 });
    await t.db.query(`UPDATE generations SET status = 'canceled' WHERE id = $1`, [c.id]);
    expect(await chargeAndFinish(t.db, [{ g: (await selectGeneration(t.db, c.id))!, end: ended({ charged: 10 }) }])).toEqual([null]);
    expect(await count(t.db, 'ledger_entries', `generation_id = $1 AND kind = 'charge'`, [c.id])).toBe(0);
  });

  it('two finishes of one attempt racing: one finishes it, the other answers null', async () => {
    const org = await makeOrg(t.db, { credits: 100 });
    const a = await accept(t.db, org, { price: 10 });
    const g = (await selectGeneration(t.db, a.id))!;
    const both = await Promise.all([chargeAndFinish(t.db, [{ g, end: ended({ charged: 10 }) }]), chargeAndFinish(t.db, [{ g, end: ended({ charged: 10 }) }])]);
    expect(both.map(([r]) => r === null).sort()).toEqual([false, true]);
    expect(await count(t.db, 'wallet_pending', 'organization_id = $1', [org.id])).toBe(1);
    await expectLedgerAgrees(org.id);
  });

  it('a batch finishes several generations in one statement; a generation twice in it is finished once', async () => {
    const org = await makeOrg(t.db, { credits: 100 });
    const gens = await Promise.all([1, 2, 3].map(async () => (await selectGeneration(t.db, (await accept(t.db, org, { price: 10 })).id))!));
    const items = [...gens.map((g) => ({ g, end: ended({ charged: 10 }) })), { g: gens[0]!, end: ended({ charged: 10 }) }];
    const rows = await chargeAndFinish(t.db, items);
    expect(rows.slice(0, 3).map((r) => r?.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(rows[3]).toBeNull();
    // One pending settlement for the batch's organization, key and model.
    expect(await row(t.db, 'wallet_pending', 'organization_id = $1', [org.id])).toMatchObject({ generations: 3, charged_credits: 30, balance_delta: -30, held_delta: -30 });
    expect(await chargeAndFinish(t.db, [])).toEqual([]);
    await expectLedgerAgrees(org.id);
  });

  it('finishStatement rounds a batch up to its slots and refuses more than the largest', () => {
    expect(finishStatement(1).slots).toBe(1);
    expect(finishStatement(3).slots).toBe(4);
    expect(finishStatement(MAX_FINISH_BATCH).slots).toBe(MAX_FINISH_BATCH);
    expect(() => finishStatement(MAX_FINISH_BATCH + 1)).toThrow(/at most/);
  });

  it('a redacted record replaces the prompt and params and stops being a cache entry', async () => {
    const org = await makeOrg(t.db);
    const a = await accept(t.db, org, { cacheKey: 'ck-1' });
    const g = (await selectGeneration(t.db, a.id))!;
    const [done] = await chargeAndFinish(t.db, [{ g, end: ended({ record: { prompt: null, params: { size: '1024x1024' } } }) }]);
    expect(done).toMatchObject({ prompt: null, params: { size: '1024x1024' }, cache_key: null });
  });

  it('the last child of a comparison to finish completes it, with one comparison.completed event naming every child', async () => {
    const org = await makeOrg(t.db);
    const cmp = await insertComparison(t.db, {
      id: newId('cmp'), organizationId: org.id, apiKeyId: org.liveKeyId, mode: 'live', modality: 'image', prompt: 'p', models: ['m1', 'm2'], params: {}, reservedCredits: 0,
    });
    const kids = [await accept(t.db, org, { comparisonId: cmp.id, model: 'm1' }), await accept(t.db, org, { comparisonId: cmp.id, model: 'm2' })];
    const [first, second] = await Promise.all(kids.map(async (k) => (await selectGeneration(t.db, k.id))!));
    await chargeAndFinish(t.db, [{ g: first!, end: ended() }]);
    expect(await row(t.db, 'comparisons', 'id = $1', [cmp.id])).toMatchObject({ status: 'running', remaining: 1, completed_at: null });
    await chargeAndFinish(t.db, [{ g: second!, end: ended({ status: 'failed', error: { type: 'x', code: 'y', message: 'z' } }) }]);
    expect(await row(t.db, 'comparisons', 'id = $1', [cmp.id])).toMatchObject({ status: 'completed', remaining: 0 });
    const events = (await t.db.query<{ type: string; data: Record<string, unknown> }>(`SELECT type, data FROM events WHERE data->>'comparison_id' = $1 ORDER BY type`, [cmp.id])).rows;
    // The last child's event and the comparison's are written by one statement: no order between them is promised.
    expect(events.map((e) => e.type)).toEqual(['comparison.completed', 'generation.completed', 'generation.failed']);
    expect(events[0]!.data).toEqual({ comparison_id: cmp.id, status: 'completed', generation_ids: [kids[0]!.id, kids[1]!.id] });
  });

  it('pending settlements are applied once: to the wallet row and the usage rollups, then gone', async () => {
    const org = await makeOrg(t.db, { credits: 100 });
    for (const charged of [10, 20]) {
      const a = await accept(t.db, org, { price: 30 });
      await chargeAndFinish(t.db, [{ g: (await selectGeneration(t.db, a.id))!, end: ended({ charged }) }]);
    }
    expect(await selectOrganizationsWithPending(t.db)).toContain(org.id);
    const before = await selectWalletWithPending(t.db, org.id);
    expect(await applyPendingSettlements(t.db, org.id)).toBe(2);
    expect(await count(t.db, 'wallet_pending', 'organization_id = $1', [org.id])).toBe(0);
    expect(await row(t.db, 'wallets', 'organization_id = $1', [org.id])).toMatchObject(before!);
    expect(await row(t.db, 'wallets', 'organization_id = $1', [org.id])).toMatchObject({ balance_credits: 70, held_credits: 0 });
    expect(await row(t.db, 'usage_rollups', 'organization_id = $1', [org.id])).toMatchObject({ generations: 2, charged_credits: 30, refunded_credits: 30, mode: 'live', model: 'test-image' });
    expect(await applyPendingSettlements(t.db, org.id)).toBe(0);
    expect(await selectOrganizationsWithPending(t.db)).not.toContain(org.id);
    await expectLedgerAgrees(org.id);
  });

  it('settlers racing over one organization apply each pending row once', async () => {
    const org = await makeOrg(t.db, { credits: 100 });
    for (let i = 0; i < 3; i++) {
      const a = await accept(t.db, org, { price: 10 });
      await chargeAndFinish(t.db, [{ g: (await selectGeneration(t.db, a.id))!, end: ended({ charged: 10 }) }]);
    }
    const applied = await Promise.all([applyPendingSettlements(t.db, org.id), applyPendingSettlements(t.db, org.id), applyPendingSettlements(t.db, org.id)]);
    expect(applied.reduce((s, n) => s + n, 0)).toBe(3);
    expect(await row(t.db, 'wallets', 'organization_id = $1', [org.id])).toMatchObject({ balance_credits: 70, held_credits: 0 });
    expect(await row(t.db, 'usage_rollups', 'organization_id = $1', [org.id])).toMatchObject({ generations: 3, charged_credits: 30 });
  });

  it('the database refuses an overdraft whatever the caller does', async () => {
    const org: Org = await makeOrg(t.db, { credits: 5 });
    const err = await t.db.query('UPDATE wallets SET held_credits = 6 WHERE organization_id = $1', [org.id]).catch((e: unknown) => e);
    expect(errorCode(err)).toBe('23514');
  });
});
