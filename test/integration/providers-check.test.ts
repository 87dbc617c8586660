import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/catalog/models.js';
import { PROVIDER_NAMES } from '../../src/providers/index.js';
import { shippedRecord } from '../../src/providers/upstream-models.js';
import { startFakes, type Fakes } from '../fakes/index.js';
import { mmgen } from '../helpers/processes.js';

/**
 * `mmgen providers check` (issue 18): the recorded schemas against those the
 * Replicate and fal fakes publish (each model's version schema, each
 * endpoint's OpenAPI document), and every record's shutdown date against today.
 */
interface Report {
  checked: number;
  lifecycleOnly: number;
  findings: Array<{ provider: string; upstream: string; kind: string; detail: string }>;
}

describe('mmgen providers check', () => {
  let fakes: Fakes;
  let dataDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    fakes = await startFakes();
    dataDir = mkdtempSync(join(tmpdir(), 'mmgen-check-'));
    env = {
      MMGEN_DATA_DIR: dataDir,
      REPLICATE_API_TOKEN: fakes.replicate.key, REPLICATE_BASE_URL: fakes.replicate.baseUrl,
      FAL_KEY: fakes.fal.key, FAL_BASE_URL: fakes.fal.baseUrl,
      FAL_OPENAPI_URL: `${fakes.fal.url}/openapi/queue/openapi.json`,
    };
  });
  afterAll(async () => {
    await fakes?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const run = async (args: string[] = []) => {
    const r = await mmgen(['providers', 'check', '--json', ...args], env);
    return { code: r.code, report: JSON.parse(r.stdout) as Report, stderr: r.stderr };
  };

  const routes = CATALOG.filter((m) => m.status === 'active').flatMap((m) => m.routes);
  const distinct = (provider: string) => new Set(routes.filter((r) => r.provider === provider).map((r) => r.upstream)).size;

  it('reads every published schema; with none drifted, its findings are the shutdown dates the records carry', async () => {
    const { code, report } = await run(['--near-days', '30']);
    expect(report.checked).toBe(distinct('replicate') + distinct('fal'));
    expect(report.findings.filter((f) => f.kind === 'drift' || f.kind === 'unreachable')).toEqual([]);
    // Lifecycle is checked for every route, credentials or not: derived here from the same records, against today.
    const today = new Date().toISOString().slice(0, 10);
    const soon = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const expected = PROVIDER_NAMES.flatMap((p) =>
      [...new Set(routes.filter((r) => r.provider === p).map((r) => r.upstream))].flatMap((u) => {
        const shutdown = shippedRecord(p, u)?.lifecycle.shutdown;
        if (!shutdown || shutdown > soon) return [];
        return [`${shutdown < today ? 'shutdown_past' : 'shutdown_near'} ${p} ${u}`];
      }),
    );
    expect(report.findings.map((f) => `${f.kind} ${f.provider} ${f.upstream}`).sort()).toEqual(expected.sort());
    expect(code).toBe(expected.length > 0 ? 1 : 0);
  }, 120_000);

  it('reports a drifted schema on each provider, field by field, and exits 1', async () => {
    fakes.fal.drifted.set('fal-ai/flux/schnell', (input) => ({
      ...input,
      properties: { ...input.properties, turbo_mode: { type: 'string', enum: ['off', 'on'] } },
      required: [...((input as { required?: string[] }).required ?? []), 'turbo_mode'],
    }));
    fakes.replicate.drifted.set('black-forest-labs/flux-schnell', (input) => {
      const { go_fast: _gone, ...properties } = input.properties as Record<string, { enum?: unknown[] }>;
      // A value added upstream to an enum mmgen knows.
      properties.output_format = { ...properties.output_format, enum: [...(properties.output_format?.enum ?? []), 'avif'] };
      return { ...input, properties };
    });
    try {
      const { code, report } = await run(['--near-days', '0']);
      const drift = report.findings.filter((f) => f.kind === 'drift').map((f) => `${f.provider} ${f.upstream}: ${f.detail}`);
      expect(drift.sort()).toEqual([
        'fal fal-ai/flux/schnell: published field turbo_mode is not recorded',
        'fal fal-ai/flux/schnell: turbo_mode is now required',
        expect.stringMatching(/^replicate black-forest-labs\/flux-schnell: output_format: values \[.*\] → \[.*"avif"\]$/),
        'replicate black-forest-labs/flux-schnell: recorded field go_fast is no longer published',
      ]);
      expect(code).toBe(1);
    } finally {
      fakes.fal.drifted.clear();
      fakes.replicate.drifted.clear();
    }
  }, 120_000);
});
