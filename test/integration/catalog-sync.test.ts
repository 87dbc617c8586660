import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/catalog/models.js';
import { loadConfig } from '../../src/config.js';
import { syncCatalog, type SyncReport } from '../../src/providers/catalog-sync.js';
import { applyFindings, approvedFindings } from '../../src/providers/catalog-sync-apply.js';
import type { ProviderDeclaration } from '../../src/providers/declaration.js';
import { PROVIDER_DECLARATIONS } from '../../src/providers/index.js';
import { recordedLifecycle } from '../../src/providers/lifecycle.js';
import { recordFinder } from '../../src/providers/upstream-models.js';
import { readRecordFolder, recordFileName } from '../../src/providers/upstream-record.js';
import { startFakes, type Fakes } from '../fakes/index.js';
import { mmgen } from '../helpers/processes.js';

/**
 * `mmgen catalog sync` (issue 28): the strict fakes' model lists and schemas against the records. Seeded from the
 * records they agree; then each provider changes upstream as a test tells it (a model added, one removed, a schema
 * drifted, a deprecation published), the sync reports exactly those, and `--write-records` writes the approved
 * ones into a copy of the records (never the repository's), after which the sync finds only the new models left.
 * `--apply`, into the running catalog, is test/scenarios/catalog-sync-running.test.ts.
 */
const today = new Date().toISOString().slice(0, 10);
const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

const FLUX_2_INPUT = {
  type: 'object' as const,
  properties: { prompt: { type: 'string' }, image_size: { type: 'string', enum: ['square_hd', 'landscape_4_3'] }, seed: { type: 'integer' } },
  required: ['prompt'],
};

const CHANGES = {
  new: ['new:openai:gpt-image-2.6-flare', 'new:fal:fal-ai/flux-2-pro'],
  gone: ['gone:anthropic:claude-haiku-4-5-20251001', 'gone:replicate:stability-ai/stable-diffusion-3.5-large'],
  schema: ['schema:fal:fal-ai/flux/schnell'],
  deprecation: ['deprecation:openai:gpt-4o', 'deprecation:fal:fal-ai/flux/dev'],
};

describe('mmgen catalog sync', () => {
  let fakes: Fakes;
  let dir: string;
  let env: Record<string, string>;
  /** The registered providers with their records in a copy under `dir`. */
  let copied: ProviderDeclaration[];
  const repoRecords = new Map<string, string>();

  beforeAll(async () => {
    fakes = await startFakes();
    dir = mkdtempSync(join(tmpdir(), 'mmgen-sync-'));
    env = {
      ...fakes.env,
      MMGEN_DATA_DIR: join(dir, 'data'),
      FAL_OPENAPI_URL: `${fakes.fal.url}/openapi/queue/openapi.json`,
      FAL_PLATFORM_URL: `${fakes.fal.url}/v1`,
    };
    copied = PROVIDER_DECLARATIONS.map((p) => {
      const folder = join(dir, 'records', p.name);
      mkdirSync(folder, { recursive: true });
      cpSync(fileURLToPath(p.records), folder, { recursive: true });
      for (const f of readdirSync(fileURLToPath(p.records))) repoRecords.set(`${p.name}/${f}`, readFileSync(new URL(f, p.records), 'utf8'));
      return { ...p, records: pathToFileURL(`${folder}/`) };
    });
  });
  afterAll(async () => {
    await fakes?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const sync = (): Promise<SyncReport> =>
    syncCatalog({ models: CATALOG, credentials: loadConfig(env, copied).providers, today, providers: copied });

  it('finds nothing while the fakes publish what the records say, having read every list and schema', async () => {
    const report = await sync();
    expect(report.findings).toEqual([]);
    const listed = Object.fromEntries(report.providers.map((p) => [p.provider, p.listed]));
    expect(listed).toEqual({
      openai: fakes.openai.listing.all().length,
      anthropic: fakes.anthropic.listing.all().length,
      replicate: null,
      // fal lists active and deprecated endpoints only.
      fal: fakes.fal.listing.all().filter((m) => m.status !== 'retired').length,
      elevenlabs: fakes.elevenlabs.listing.all().length,
    });
    // Every live record of the providers that publish schemas was compared.
    for (const p of ['replicate', 'fal']) {
      const live = [...readRecordFolder(p, copied.find((d) => d.name === p)!.records).values()].filter((r) => !r.lifecycle.shutdown || r.lifecycle.shutdown > today);
      expect(report.providers.find((x) => x.provider === p)?.schemas).toBe(live.length);
    }
    // Anthropic's list asked for its retired models too; fal's was read page by page, by its cursor.
    expect(fakes.anthropic.calls('GET', '/v1/models').at(-1)?.query.getAll('lifecycle[]')).toEqual(['active', 'deprecated', 'retired']);
    const falPages = fakes.fal.calls('GET', '/v1/models');
    expect(falPages.length).toBe(Math.ceil(listed.fal! / fakes.fal.pageSize));
    expect(falPages.slice(1).every((c) => c.query.get('cursor') !== null)).toBe(true);
  }, 120_000);

  describe('after upstream changes', () => {
    beforeAll(() => {
      fakes.openai.listing.add('gpt-image-2.6-flare');
      fakes.fal.listing.add('fal-ai/flux-2-pro', { input: FLUX_2_INPUT });
      fakes.anthropic.listing.remove('claude-haiku-4-5-20251001');
      fakes.replicate.listing.remove('stability-ai/stable-diffusion-3.5-large');
      fakes.fal.drifted.set('fal-ai/flux/schnell', (input) => ({
        ...input,
        properties: { ...input.properties, turbo_mode: { type: 'string', enum: ['off', 'on'] } },
        required: [...((input as { required?: string[] }).required ?? []), 'turbo_mode'],
      }));
      fakes.openai.listing.deprecate('gpt-4o', { shutdown: '2027-02-14' });
      fakes.fal.listing.deprecate('fal-ai/flux/dev');
    });

    it('the CLI reports a new, a removed, a drifted and a deprecated model on each kind of list, and exits 1', async () => {
      // Without --write-records it reads the running catalog: here a fresh embedded database, slow to open on a loaded machine.
      const r = await mmgen(['catalog', 'sync', '--json'], env, 170_000);
      expect(r.stderr).toBe('');
      const report = JSON.parse(r.stdout) as SyncReport & { applied: unknown[] };
      expect(report.findings.map((f) => f.id).sort()).toEqual(Object.values(CHANGES).flat().sort());
      const byId = new Map(report.findings.map((f) => [f.id, f]));
      expect(byId.get('deprecation:openai:gpt-4o')?.details).toEqual(['shutdown 2027-02-14 (published), recorded 2027-01-14']);
      expect(byId.get('schema:fal:fal-ai/flux/schnell')?.details).toEqual(['published field turbo_mode is not recorded', 'turbo_mode is now required']);
      expect(byId.get('gone:anthropic:claude-haiku-4-5-20251001')?.slugs).toEqual(['claude-haiku-4.5']);
      expect(report.applied).toEqual([]);
      expect(r.code).toBe(1);
    }, 180_000);

    it('the CLI writes nothing unless told which findings: --apply or --write-records alone, or naming no finding, is a usage error', async () => {
      const alone = await mmgen(['catalog', 'sync', '--apply'], env);
      expect(alone.code).toBe(2);
      expect(alone.stderr).toMatch(/--apply needs --only/);
      const records = await mmgen(['catalog', 'sync', '--write-records'], env);
      expect(records.code).toBe(2);
      expect(records.stderr).toMatch(/--write-records needs --only/);
      const drafts = join(dir, 'drafts');
      const unknown = await mmgen(['catalog', 'sync', '--drafts', drafts, '--only', 'new:fal:fal-ai/not-listed'], env);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/not a finding of this run: new:fal:fal-ai\/not-listed/);
      // A draft of the approved new model only, with the schema fal publishes for it: a valid record, outside the catalog.
      const ok = await mmgen(['catalog', 'sync', '--json', '--drafts', drafts, '--only', 'new:fal:fal-ai/flux-2-pro'], env);
      expect(JSON.parse(ok.stdout).drafts).toEqual([join(drafts, 'fal', recordFileName('fal-ai/flux-2-pro'))]);
      const draft = readRecordFolder('fal', pathToFileURL(`${join(drafts, 'fal')}/`)).get('fal-ai/flux-2-pro');
      expect(draft?.input.properties).toEqual(FLUX_2_INPUT.properties);
      expect(draft?.sources[0]).toContain(`GET ${fakes.fal.url}/v1/models`);
      expect(readdirSync(drafts)).toEqual(['fal']);
    }, 120_000);

    it('--write-records writes the approved changes into the record files, after which only the new models are left', async () => {
      const report = await sync();
      const approved = approvedFindings(report, [...CHANGES.gone, ...CHANGES.schema, ...CHANGES.deprecation], { drafts: false });
      expect(() => approvedFindings(report, CHANGES.new, { drafts: false })).toThrow(/--drafts/);
      const written = applyFindings(approved, copied);
      expect(written.map((w) => `${w.id} ${w.field}`).sort()).toEqual([
        'deprecation:fal:fal-ai/flux/dev lifecycle',
        'deprecation:openai:gpt-4o lifecycle',
        'gone:anthropic:claude-haiku-4-5-20251001 lifecycle',
        'gone:replicate:stability-ai/stable-diffusion-3.5-large lifecycle',
        'schema:fal:fal-ai/flux/schnell input',
      ]);
      for (const w of written) expect(w.file.startsWith(dir)).toBe(true);

      const record = (provider: string, upstream: string) => readRecordFolder(provider, copied.find((d) => d.name === provider)!.records).get(upstream)!;
      const gpt4o = record('openai', 'gpt-4o');
      expect(gpt4o.lifecycle).toMatchObject({ deprecated: '2026-10-14', shutdown: '2027-02-14', replacement: 'gpt-6-luna' });
      expect(gpt4o.lifecycle.source).toMatch(new RegExp(`^GET ${fakes.openai.baseUrl}/models on ${today} \\(mmgen catalog sync\\); before: https://developers.openai.com/api/docs/deprecations`));
      expect(record('fal', 'fal-ai/flux/dev').lifecycle).toMatchObject({ deprecated: today, shutdown: null });
      expect(record('anthropic', 'claude-haiku-4-5-20251001').lifecycle.shutdown).toBe(today);
      expect(record('replicate', 'stability-ai/stable-diffusion-3.5-large').lifecycle.shutdown).toBe(today);
      const schnell: { properties: Record<string, unknown>; required?: unknown } = record('fal', 'fal-ai/flux/schnell').input;
      expect(schnell.properties.turbo_mode).toEqual({ type: 'string', enum: ['off', 'on'] });
      expect(schnell.required).toEqual(['prompt', 'turbo_mode']);

      const again = await sync();
      expect(again.findings.map((f) => f.id).sort()).toEqual([...CHANGES.new].sort());
      // The catalog served from the written records no longer routes to the models gone upstream.
      const lifecycle = recordedLifecycle(tomorrow, recordFinder(copied));
      const haiku = CATALOG.find((m) => m.slug === 'claude-haiku-4.5')!;
      expect(lifecycle.liveRoutes(haiku, tomorrow).routes).toEqual([]);
      // The repository's records are as they were.
      for (const p of PROVIDER_DECLARATIONS) {
        for (const f of readdirSync(fileURLToPath(p.records))) expect(readFileSync(new URL(f, p.records), 'utf8')).toBe(repoRecords.get(`${p.name}/${f}`));
      }
    }, 120_000);
  });
});
