import { expect, it } from 'vitest';
import type { ModelDefinition } from '../../src/catalog/index.js';
import { operatorOrigin, recordAudit } from '../../src/domain/audit.js';
import { newId } from '../../src/ids.js';
import {
  appendAuditRow,
  lockChainHead,
  selectAuditEvent,
  selectAuditEvents,
  selectChainBatch,
  selectChains,
  type AuditEventRow,
} from '../../src/store/audit.js';
import {
  bumpCatalogVersion,
  catalogVersion,
  insertAudit,
  readOverlay,
  replaceModelAccess,
  selectAudit,
  selectGlobalMargin,
  selectModelAccess,
  selectModelRow,
  selectRecord,
  updateGlobalMargin,
  upsertModelRow,
  upsertRecord,
} from '../../src/store/catalog.js';
import { keepUrlSigningSecret } from '../../src/store/settings.js';
import { describeEachBackend } from '../helpers/server.js';
import { count, makeOrg, useDb } from './fixtures.js';

/**
 * The operator's catalog (catalog.ts), the installation's settings (settings.ts) and the audit log's hash chains
 * (audit.ts) on each backend.
 */
describeEachBackend('store: catalog, settings, audit', (backend) => {
  const t = useDb(backend);

  it('the catalog version moves by one per change, and the overlay reads models, margins, access and records as of it', async () => {
    const v0 = await catalogVersion(t.db);
    expect(await bumpCatalogVersion(t.db)).toBe(v0 + 1);
    expect(await catalogVersion(t.db)).toBe(v0 + 1);
    const definition = { slug: 'op-model', note: 'unchecked here' } as unknown as ModelDefinition;
    await upsertModelRow(t.db, { slug: 'op-model', definition, disabled: false, marginPercent: '12.5' });
    await upsertModelRow(t.db, { slug: 'op-model', definition, disabled: true, marginPercent: null });
    await upsertModelRow(t.db, { slug: 'a-disabled', definition: null, disabled: true, marginPercent: null });
    expect(await t.db.tx((q) => selectModelRow(q, 'op-model'))).toEqual({ slug: 'op-model', definition, disabled: true, margin_percent: null });
    expect(await selectModelRow(t.db, 'none')).toBeUndefined();
    await upsertRecord(t.db, 'fal', 'fal-ai/x', { id: 1 });
    await upsertRecord(t.db, 'fal', 'fal-ai/x', { id: 2 });
    expect(await selectRecord(t.db, 'fal', 'fal-ai/x')).toEqual({ id: 2 });
    expect(await selectRecord(t.db, 'fal', 'none')).toBeUndefined();
    expect(await selectGlobalMargin(t.db)).toBeNull();
    await updateGlobalMargin(t.db, '7.5');
    expect(await selectGlobalMargin(t.db)).toBe('7.5');
    const org = await makeOrg(t.db);
    expect(await selectModelAccess(t.db, org.id)).toBeNull();
    await replaceModelAccess(t.db, org.id, { mode: 'allow', models: ['op-model'] });
    await replaceModelAccess(t.db, org.id, { mode: 'deny', models: ['a-disabled'] });
    expect(await selectModelAccess(t.db, org.id)).toEqual({ mode: 'deny', models: ['a-disabled'] });
    const { overlay, records } = await readOverlay(t.db);
    expect(overlay.version).toBe(v0 + 1);
    expect(overlay.marginPercent).toBe('7.5');
    expect(overlay.models.map((m) => m.slug)).toEqual(['a-disabled', 'op-model']);
    expect(overlay.access.get(org.id)).toEqual({ mode: 'deny', models: ['a-disabled'] });
    expect(records).toEqual([{ provider: 'fal', upstream: 'fal-ai/x', record: { id: 2 } }]);
    await replaceModelAccess(t.db, org.id, null);
    expect(await selectModelAccess(t.db, org.id)).toBeNull();
    await expect(updateGlobalMargin(t.db, '-1')).rejects.toMatchObject({ code: '23514' });
  });

  it('concurrent changes each move the version once', async () => {
    const v0 = await catalogVersion(t.db);
    const got = await Promise.all([1, 2, 3, 4].map(() => bumpCatalogVersion(t.db)));
    expect(got.sort()).toEqual([v0 + 1, v0 + 2, v0 + 3, v0 + 4]);
  });

  it("the catalog's own audit: newest first, paged back by id, filtered by target", async () => {
    await insertAudit(t.db, { actor: 'op', action: 'model.added', target: 'm1', before: null, after: { a: 1 } });
    await insertAudit(t.db, { actor: 'op', action: 'model.edited', target: 'm1', before: { a: 1 }, after: { a: 2 } });
    await insertAudit(t.db, { actor: 'op', action: 'margin.set', target: 'global', before: undefined, after: undefined });
    const all = await selectAudit(t.db, { limit: 10 });
    expect(all.map((e) => e.action)).toEqual(['margin.set', 'model.edited', 'model.added']);
    expect(all[2]).toMatchObject({ actor: 'op', target: 'm1', before: null, after: { a: 1 } });
    expect(typeof all[0]!.id).toBe('number');
    expect((await selectAudit(t.db, { limit: 10, before: all[0]!.id })).map((e) => e.action)).toEqual(['model.edited', 'model.added']);
    expect((await selectAudit(t.db, { limit: 1, target: 'm1' })).map((e) => e.action)).toEqual(['model.edited']);
  });

  it('the URL-signing secret: the first kept wins, whoever asks after', async () => {
    const kept = await keepUrlSigningSecret(t.db, 'first');
    expect(kept).toBe('first');
    expect(await keepUrlSigningSecret(t.db, 'second')).toBe('first');
  });

  it("an audit chain's head is made at its first entry and moves with each; entries are append-only", async () => {
    const chain = `chain-${newId('aud')}`;
    expect(await lockChainHead(t.db, chain, 'genesis')).toEqual({ last_seq: 0, last_hash: 'genesis' });
    expect(await lockChainHead(t.db, chain, 'other')).toEqual({ last_seq: 0, last_hash: 'genesis' });
    const entry: AuditEventRow = {
      id: newId('aud'), chain, seq: 1, organization_id: null, at: new Date('2030-01-01T00:00:00Z'), mode: null, actor_type: 'operator', actor_id: 'op',
      actor_user_id: null, client_address: null, request_id: null, action: 'installation.changed', target_type: 'installation', target_id: 'i',
      before: null, after: { x: 1 }, prev_hash: 'genesis', hash: 'h1',
    };
    await appendAuditRow(t.db, entry);
    expect(await lockChainHead(t.db, chain, 'genesis')).toEqual({ last_seq: 1, last_hash: 'h1' });
    await expect(appendAuditRow(t.db, { ...entry, id: newId('aud') })).rejects.toMatchObject({ code: '23505' });
    await expect(t.db.query('UPDATE audit_events SET action = $2 WHERE id = $1', [entry.id, 'x.y'])).rejects.toThrow(/append-only/);
    await expect(t.db.query('DELETE FROM audit_events WHERE id = $1', [entry.id])).rejects.toThrow(/append-only/);
    expect(await selectChainBatch(t.db, chain, 0, 10)).toEqual([entry]);
    // A chain whose head is gone is still listed, with its entries.
    await t.db.query('DELETE FROM audit_chains WHERE chain = $1', [chain]);
    expect((await selectChains(t.db)).find((c) => c.chain === chain)).toEqual({ chain, head: null });
  });

  it('appends racing on one chain are serialized by its head: one entry per seq, each after the last', async () => {
    const org = await makeOrg(t.db);
    const origin = operatorOrigin('racer');
    await Promise.all([1, 2, 3, 4, 5].map((n) => recordAudit(t.db, { ...origin, organizationId: org.id, action: 'organization.touched', target: { type: 'organization', id: org.id }, before: null, after: { n } })));
    const chain = await selectChainBatch(t.db, org.id, 0, 100);
    expect(chain.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    for (let i = 1; i < chain.length; i++) expect(chain[i]!.prev_hash).toBe(chain[i - 1]!.hash);
    expect((await selectChains(t.db)).find((c) => c.chain === org.id)).toEqual({ chain: org.id, head: { last_seq: 6, last_hash: chain[5]!.hash } });
    expect((await selectChainBatch(t.db, org.id, 4, 1)).map((e) => e.seq)).toEqual([5]);
  });

  it("an organization's entries are read newest first, in the caller's mode and the organization-wide ones, by every filter", async () => {
    const org = await makeOrg(t.db);
    const at = (s: number) => new Date(Date.UTC(2031, 0, 1, 0, 0, s));
    const append = async (over: Partial<AuditEventRow>) => {
      const head = await lockChainHead(t.db, org.id, 'g');
      const e: AuditEventRow = {
        id: newId('aud'), chain: org.id, seq: head.last_seq + 1, organization_id: org.id, at: at(head.last_seq), mode: null, actor_type: 'member', actor_id: 'usr_1',
        actor_user_id: 'usr_1', client_address: '127.0.0.1', request_id: 'req_1', action: 'api_key.created', target_type: 'api_key', target_id: 'key_1',
        before: null, after: null, prev_hash: head.last_hash, hash: `h${head.last_seq + 1}`, ...over,
      };
      await appendAuditRow(t.db, e);
      return e;
    };
    // The organization's creation is entry 1 (recorded by createOrganization).
    const live = await append({ mode: 'live' });
    const test = await append({ mode: 'test', action: 'api_key.revoked' });
    const byKey = await append({ mode: 'live', actor_type: 'api_key', actor_id: 'key_9', actor_user_id: 'usr_2', action: 'webhook.created', target_type: 'webhook', target_id: 'whk_1' });
    const ids = async (f: Partial<Parameters<typeof selectAuditEvents>[1]>, limit = 10) =>
      (await selectAuditEvents(t.db, { organizationId: org.id, mode: 'live', ...f }, limit)).map((e) => e.id);
    const created = (await selectChainBatch(t.db, org.id, 0, 1))[0]!.id;
    expect(await ids({})).toEqual([byKey.id, live.id, created]);
    expect(await ids({ mode: 'test' })).toEqual([test.id, created]);
    expect(await ids({ action: 'api_key.created' })).toEqual([live.id]);
    expect(await ids({ action: 'api_key.*', mode: 'test' })).toEqual([test.id]);
    expect(await ids({ actor: 'usr_2' })).toEqual([byKey.id]);
    expect(await ids({ actor: 'key_9' })).toEqual([byKey.id]);
    expect(await ids({ actorType: 'api_key' })).toEqual([byKey.id]);
    expect(await ids({ targetType: 'webhook', targetId: 'whk_1' })).toEqual([byKey.id]);
    expect(await ids({ since: at(2), until: at(4) })).toEqual([byKey.id]);
    expect(await ids({ beforeSeq: byKey.seq }, 1)).toEqual([live.id]);
    expect(await selectAuditEvent(t.db, org.id, 'live', live.id)).toMatchObject({ id: live.id, client_address: '127.0.0.1', request_id: 'req_1' });
    expect(await selectAuditEvent(t.db, org.id, 'live', test.id)).toBeUndefined();
    expect(await count(t.db, 'audit_events', 'chain = $1', [org.id])).toBe(4);
  });
});
