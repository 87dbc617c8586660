import { operatorOrigin } from '../../src/domain/audit.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { costInCredits } from '../../src/billing/credits.js';
import { createOrganization } from '../../src/domain/organizations.js';
import type { SyncResult } from '../../src/domain/catalog-sync.js';
import { shippedRecord } from '../../src/providers/upstream-models.js';
import type { Db } from '../../src/store/db.js';
import { startFakes, type Fakes } from '../fakes/index.js';
import { TEST_CATALOG_DATE } from '../helpers/catalog.js';
import { ADMIN_TOKEN } from '../helpers/operator-catalog.js';
import { mmgen, spawnMmgen, type MmgenProcess } from '../helpers/processes.js';
import { client, freshDb } from '../helpers/server.js';

// Two mmgen processes and the CLI on one PostgreSQL, on a machine shared with others: generous limits.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 180_000 });

/**
 * `mmgen catalog sync --apply` takes the approved findings into the RUNNING catalog (issue 28, item 1's "done
 * when"): the strict fakes change upstream (a model released with its schema, one removed, a schema drifted, a
 * deprecation published), the sync reports exactly those, `--apply` takes them through the admin use case,
 * audited, and both nodes serve the result within seconds, with no restart. Nothing is written into the
 * repository's records (those are `--write-records`, test/integration/catalog-sync.test.ts).
 */
const FLUX_2_INPUT = {
  type: 'object' as const,
  properties: { prompt: { type: 'string' }, image_size: { type: 'string', enum: ['square_hd', 'landscape_4_3'] }, num_images: { type: 'integer', minimum: 1, maximum: 4 } },
  required: ['prompt'],
};

const CHANGES = {
  new: 'new:fal:fal-ai/flux-2-pro',
  gone: 'gone:anthropic:claude-haiku-4-5-20251001',
  schema: 'schema:fal:fal-ai/flux/schnell',
  deprecation: 'deprecation:openai:gpt-4o',
};

/** The definition of the new model the operator approves, as `--add` takes it. */
const ADD = {
  provider: 'fal',
  upstream: 'fal-ai/flux-2-pro',
  model: { slug: 'flux-2-pro', display_name: 'FLUX.2 [pro]', modality: 'image', capabilities: ['text-to-image'], unit_cost_usd: '0.03' },
  record: { map: { prompt: 'prompt', num_outputs: 'num_images' }, set: { image_size: 'square_hd' }, price_source: 'estimate: the test' },
};

describe('mmgen catalog sync --apply on a running catalog of two nodes', { tags: ['postgres'] }, () => {
  let db: Db;
  let drop: () => Promise<void>;
  let fakes: Fakes;
  let a: MmgenProcess;
  let b: MmgenProcess;
  let env: Record<string, string>;
  let dir: string;
  let org: { id: string; live: string };
  const cli = (args: string[]) => mmgen(['catalog', ...args], { ...env, MMGEN_DATA_DIR: join(dir, 'cli') });

  beforeAll(async () => {
    const fresh = await freshDb('postgres');
    db = fresh.db;
    drop = fresh.drop;
    fakes = await startFakes({ jobMs: 20 });
    dir = mkdtempSync(join(tmpdir(), 'mmgen-sync-running-'));
    env = { ...fakes.env, DATABASE_URL: fresh.url!, MMGEN_ADMIN_TOKEN: ADMIN_TOKEN, MMGEN_ALLOW_PRIVATE_NETWORK: '1', MMGEN_DB_POOL_SIZE: '4' };
    [a, b] = await Promise.all([spawnMmgen(['serve'], { ...env, MMGEN_DATA_DIR: join(dir, 'a') }), spawnMmgen(['serve'], { ...env, MMGEN_DATA_DIR: join(dir, 'b') })]);
    const created = await createOrganization(db, { name: 'sync', plan: 'team', enterprise: false, credits: 1_000_000 }, operatorOrigin('test'));
    org = { id: created.organization.id, live: created.keys.live };
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await fakes?.close();
    await db?.close();
    await drop?.();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Asks a node until `ok` holds of its answer (the nodes follow the catalog's version every second). */
  async function eventually(node: MmgenProcess, path: string, ok: (r: { status: number; body: any }) => boolean) {
    const api = client(node.url);
    const t0 = Date.now();
    let r = await api('GET', path, { key: org.live });
    while (!ok(r) && Date.now() - t0 < 15_000) {
      await new Promise((res) => setTimeout(res, 150));
      r = await api('GET', path, { key: org.live });
    }
    return r;
  }

  it('reports a new, a removed, a drifted and a deprecated model; --apply takes them; both nodes serve the result', async () => {
    fakes.fal.listing.add('fal-ai/flux-2-pro', { input: FLUX_2_INPUT });
    fakes.anthropic.listing.remove('claude-haiku-4-5-20251001');
    fakes.fal.drifted.set('fal-ai/flux/schnell', (input) => ({ ...input, properties: { ...input.properties, num_images: { type: 'integer', minimum: 1, maximum: 2 } } }));
    fakes.openai.listing.deprecate('gpt-4o', { shutdown: '2027-02-14' });

    const reported = await cli(['sync', '--json']);
    expect(reported.stderr).toBe('');
    expect(reported.code).toBe(1);
    const report = JSON.parse(reported.stdout) as SyncResult;
    expect(report.findings.map((f) => f.id).sort()).toEqual(Object.values(CHANGES).sort());
    expect(report.findings.find((f) => f.id === CHANGES.schema)?.details).toEqual(['num_images: maximum 4 → 2']);
    expect(report.applied).toEqual([]);

    // A new model needs its definition: naming it without one is refused, and nothing is taken.
    const bare = await cli(['sync', '--apply', '--only', CHANGES.new]);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toMatch(/new upstream model: give the model to add/);

    const file = join(dir, 'add.json');
    writeFileSync(file, JSON.stringify(ADD));
    const taken = await cli(['sync', '--apply', '--only', Object.values(CHANGES).join(','), '--add', file, '--json']);
    expect(taken.stderr).toBe('');
    const result = JSON.parse(taken.stdout) as SyncResult;
    expect(result.applied.map((x) => `${x.id} ${x.target} ${x.changed.join('+')}`).sort()).toEqual(
      [
        `${CHANGES.gone} anthropic:claude-haiku-4-5-20251001 lifecycle`,
        `${CHANGES.deprecation} openai:gpt-4o lifecycle`,
        `${CHANGES.schema} fal:fal-ai/flux/schnell input`,
        `${CHANGES.new} flux-2-pro model`,
      ].sort(),
    );
    expect(taken.code).toBe(0);

    for (const node of [a, b]) {
      // The model gone upstream is shut down as of the catalog's date, so delisted.
      const haiku = await eventually(node, '/v1/models/claude-haiku-4.5', (r) => r.status !== 200 || r.body.status === 'delisted');
      expect([haiku.status, haiku.body.status ?? haiku.body.error?.code]).not.toEqual([200, 'active']);
      // The changed records and each new model are taken in transactions of their own (addenda): wait for the last.
      const listed = await eventually(node, '/v1/models', (r) => {
        const slugs = r.body.data.map((m: { slug: string }) => m.slug);
        return !slugs.includes('claude-haiku-4.5') && slugs.includes('flux-2-pro');
      });
      expect(listed.body.data.map((m: { slug: string }) => m.slug)).not.toContain('claude-haiku-4.5');
      expect(listed.body.data.map((m: { slug: string }) => m.slug)).toContain('flux-2-pro');
      // The published shutdown reaches the deprecation every answer about gpt-4o carries.
      const gpt4o = await eventually(node, '/v1/models/gpt-4o', (r) => r.body.deprecation?.shutdown_on === '2027-02-14');
      expect(gpt4o.body.deprecation).toMatchObject({ shutdown_on: '2027-02-14' });
      // The drifted schema narrows what flux-schnell declares (its parameters intersect its routes').
      const schnell = await eventually(node, '/v1/models/flux-schnell', (r) => r.body.parameters?.properties?.num_outputs?.maximum === 2);
      expect(schnell.body.parameters.properties.num_outputs.maximum).toBe(2);
    }

    // The new model, with the schema fal publishes, called through the strict fake on the node that did not run the CLI.
    const made = await client(b.url)('POST', '/v1/images', { key: org.live, body: { model: 'flux-2-pro', prompt: 'a lighthouse' } });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body).toMatchObject({ status: 'succeeded', charged_credits: costInCredits('0.03', 1) });
    expect(fakes.fal.calls('POST', '/fal-ai/flux-2-pro')).toHaveLength(1);
    expect(fakes.fal.refused).toHaveLength(0);

    // Audited: who, and the record before and after.
    const audit = await cli(['audit', '--target', 'openai:gpt-4o', '--json']);
    const [entry] = JSON.parse(audit.stdout) as Array<{ action: string; actor: string; before: { lifecycle: { shutdown: string } }; after: { lifecycle: { shutdown: string; source: string } } }>;
    expect(entry).toMatchObject({ action: 'record.sync', before: { lifecycle: { shutdown: shippedRecord('openai', 'gpt-4o')!.lifecycle.shutdown } }, after: { lifecycle: { shutdown: '2027-02-14' } } });
    expect(entry!.actor).toMatch(/\(cli\)$/);
    expect(entry!.after.lifecycle.source).toContain(`on ${TEST_CATALOG_DATE} (mmgen catalog sync)`);

    // Nothing is left to report, and the repository's records are as they were.
    const again = await cli(['sync', '--json']);
    expect((JSON.parse(again.stdout) as SyncResult).findings).toEqual([]);
    expect(again.code).toBe(0);
    expect(shippedRecord('openai', 'gpt-4o')!.lifecycle.shutdown).not.toBe('2027-02-14');
  });

  it('the admin API runs the same sync: a report without `apply` changes nothing', async () => {
    const admin = client(a.url);
    const before = (await admin('GET', '/v1/admin/models', { key: ADMIN_TOKEN })).body.version;
    const res = await admin('POST', '/v1/admin/catalog/sync', { key: ADMIN_TOKEN, body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ date: TEST_CATALOG_DATE, findings: [], applied: [], added: [] });
    expect((await admin('GET', '/v1/admin/models', { key: ADMIN_TOKEN })).body.version).toBe(before);
    const unknown = await admin('POST', '/v1/admin/catalog/sync', { key: ADMIN_TOKEN, body: { apply: ['gone:fal:nothing'] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'parameter_invalid', param: 'apply[0]' });
  });
});
