import { operatorOrigin } from '../../src/domain/audit.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { costInCredits } from '../../src/billing/credits.js';
import { createOrganization } from '../../src/domain/organizations.js';
import type { Db } from '../../src/store/db.js';
import { startFakes, type Fakes } from '../fakes/index.js';
import { mmgen, spawnMmgen, type MmgenProcess } from '../helpers/processes.js';
import { client, freshDb } from '../helpers/server.js';
import { ADMIN_TOKEN, newReplicateRecord } from '../helpers/operator-catalog.js';

// Two real mmgen processes on one PostgreSQL, on a machine shared with others: generous limits.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

/**
 * Issue 28's "done when": a model added through the admin API of one node is served by a second node within
 * seconds, with no restart, called through the strict fakes and charged at its configured price and margin; a
 * change made with `mmgen catalog …` reaches both. The nodes are separate processes, so nothing is shared but the
 * database.
 */
describe('the operator catalog across two nodes on one PostgreSQL', { tags: ['postgres'] }, () => {
  let db: Db;
  let drop: () => Promise<void>;
  let fakes: Fakes;
  let a: MmgenProcess;
  let b: MmgenProcess;
  let env: Record<string, string>;
  const dirs: string[] = [];
  let org: { id: string; live: string };

  beforeAll(async () => {
    const fresh = await freshDb('postgres');
    db = fresh.db;
    drop = fresh.drop;
    fakes = await startFakes({ jobMs: 20 });
    env = { ...fakes.env, DATABASE_URL: fresh.url!, MMGEN_ADMIN_TOKEN: ADMIN_TOKEN, MMGEN_ALLOW_PRIVATE_NETWORK: '1', MMGEN_DB_POOL_SIZE: '4' };
    const withDir = () => {
      const dir = mkdtempSync(join(tmpdir(), 'mmgen-catalog-node-'));
      dirs.push(dir);
      return { ...env, MMGEN_DATA_DIR: dir };
    };
    [a, b] = await Promise.all([spawnMmgen(['serve'], withDir()), spawnMmgen(['serve'], withDir())]);
    const created = await createOrganization(db, { name: 'nodes', plan: 'team', enterprise: false, credits: 1_000_000 }, operatorOrigin('test'));
    org = { id: created.organization.id, live: created.keys.live };
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await fakes?.close();
    await db?.close();
    await drop?.();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('a model added on node A is served by node B within seconds, at its price and margin', async () => {
    const record = newReplicateRecord('acme/flux-nodes');
    // The provider has the model: its fake publishes its documented schema, and judges its predictions by it.
    fakes.replicate.listing.add(record.upstream, { input: record.input });
    const apiA = client(a.url);
    const apiB = client(b.url);
    expect((await apiB('GET', '/v1/models/acme-flux-nodes', { key: org.live })).status).toBe(404);
    const added = await apiA('POST', '/v1/admin/models', {
      key: ADMIN_TOKEN,
      body: {
        model: { slug: 'acme-flux-nodes', display_name: 'Acme Flux', modality: 'image', routes: [{ provider: 'replicate', upstream: 'acme/flux-nodes' }], capabilities: ['text-to-image'], unit_cost_usd: '0.04' },
        records: [record],
      },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const t0 = Date.now();
    let seen = await apiB('GET', '/v1/models/acme-flux-nodes', { key: org.live });
    while (seen.status !== 200 && Date.now() - t0 < 15_000) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await apiB('GET', '/v1/models/acme-flux-nodes', { key: org.live });
    }
    expect(seen.status).toBe(200);
    // Within seconds: the nodes poll the catalog's version every second.
    expect(Date.now() - t0).toBeLessThan(10_000);
    const res = await apiB('POST', '/v1/images', { key: org.live, body: { model: 'acme-flux-nodes', prompt: 'a lighthouse' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: 'succeeded', reserved_credits: costInCredits('0.04', 1), charged_credits: costInCredits('0.04', 1) });
    expect(fakes.replicate.calls('POST', '/v1/models/acme/flux-nodes/predictions')).toHaveLength(1);
    expect(fakes.byProvider.get('replicate')!.refused).toHaveLength(0);

    // A margin set with `mmgen catalog` (straight to the database) reaches both nodes.
    const cli = await mmgen(['catalog', 'edit', 'acme-flux-nodes', '--margin', '25', '--json'], { ...env, MMGEN_DATA_DIR: dirs[0]! });
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ slug: 'acme-flux-nodes', margin_percent: '25' });
    const charged = costInCredits('0.05', 1);
    for (const api of [apiA, apiB]) {
      const deadline = Date.now() + 10_000;
      let price = (await api('GET', '/v1/models/acme-flux-nodes', { key: org.live })).body.pricing.unit_cost_usd;
      while (price !== 0.05 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        price = (await api('GET', '/v1/models/acme-flux-nodes', { key: org.live })).body.pricing.unit_cost_usd;
      }
      expect(price).toBe(0.05);
      const again = await api('POST', '/v1/images', { key: org.live, body: { model: 'acme-flux-nodes', prompt: 'a harbour' } });
      expect(again.body).toMatchObject({ reserved_credits: charged, charged_credits: charged });
    }
    const audit = await mmgen(['catalog', 'audit', '--target', 'acme-flux-nodes', '--json'], { ...env, MMGEN_DATA_DIR: dirs[0]! });
    const entries = JSON.parse(audit.stdout) as Array<{ action: string; actor: string; before: { margin_percent: string | null }; after: { margin_percent: string | null } }>;
    expect(entries[0]).toMatchObject({ action: 'model.edit', before: { margin_percent: null }, after: { margin_percent: '25' } });
    expect(entries[0]!.actor).toMatch(/\(cli\)$/);
    expect(entries[1]).toMatchObject({ action: 'model.add' });
  });

  it('`mmgen catalog add` takes a definition file, and refuses a bad one naming the field', async () => {
    const file = join(dirs[0]!, 'bad.json');
    writeFileSync(file, JSON.stringify({ model: { slug: 'Bad Slug', display_name: 'x', modality: 'image', routes: [{ provider: 'replicate', upstream: 'x/y' }], capabilities: [], unit_cost_usd: '1' } }));
    const bad = await mmgen(['catalog', 'add', '--file', file], { ...env, MMGEN_DATA_DIR: dirs[0]! });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/model\.slug/);
  });
});
