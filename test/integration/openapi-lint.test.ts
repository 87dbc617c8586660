import { readFileSync } from 'node:fs';
import { Spectral, type ISpectralDiagnostic, type RulesetDefinition } from '@stoplight/spectral-core';
import { oas } from '@stoplight/spectral-rulesets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LICENSE } from '../../src/http/openapi.js';
import { TAGS } from '../../src/http/openapi-tags.js';
import { ADMIN_TOKEN } from '../helpers/operator-catalog.js';
import { client, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The served documents through Stoplight Spectral's standard `spectral:oas` ruleset, in-process: every finding,
 * whatever its severity (error, warning, information, hint), fails here, so a new operation without a description
 * or a tag the document does not describe is caught in `npm test`, not by a reader's linter.
 */
const SEVERITY = ['error', 'warning', 'info', 'hint'];

async function lint(doc: unknown): Promise<string[]> {
  const spectral = new Spectral();
  // The package's own typing of its ruleset is looser than RulesetDefinition; it is one (what the CLI's `spectral:oas` loads).
  spectral.setRuleset({ extends: [[oas as RulesetDefinition, 'recommended']] });
  // A string is parsed as YAML, of which JSON is a part: each finding then has its place in the document.
  const results: ISpectralDiagnostic[] = await spectral.run(JSON.stringify(doc, null, 2));
  return results.map((r) => `${SEVERITY[r.severity] ?? r.severity} ${r.code} at ${r.path.join('.')}: ${r.message}`);
}

describe('the served OpenAPI documents through Spectral (spectral:oas)', () => {
  let s: TestServer;
  let doc: any;
  let admin: any;

  beforeAll(async () => {
    s = await startTestServer('pglite', { MMGEN_ADMIN_TOKEN: ADMIN_TOKEN });
    const api = client(s.url);
    doc = (await api('GET', '/v1/openapi.json')).body;
    admin = (await api('GET', '/v1/admin/openapi.json', { key: ADMIN_TOKEN })).body;
  });
  afterAll(async () => s?.close());

  it('finds nothing in /v1/openapi.json', async () => {
    expect(await lint(doc)).toEqual([]);
  });

  it('finds nothing in /v1/admin/openapi.json', async () => {
    expect(admin.info.title).toBe('mmgen admin API');
    expect(await lint(admin)).toEqual([]);
  });

  it('would find an operation without a description, and a tag the document does not list', async () => {
    // The rules the documents pass are on: the same document, broken in the two ways the issue found, fails them.
    const broken = structuredClone(doc);
    delete broken.paths['/v1/models/{id}'].get.description;
    broken.tags = broken.tags.filter((t: { name: string }) => t.name !== 'Wallet');
    const found = await lint(broken);
    expect(found).toEqual(
      expect.arrayContaining([expect.stringMatching(/^warning operation-description at paths\.\/v1\/models\/\{id\}\.get/), expect.stringMatching(/^warning operation-tag-defined at paths\.\/v1\/wallet\.get\.tags\.0/)]),
    );
  });

  it('describes every tag its operations use, and names the licence package.json declares', () => {
    const used = new Set(Object.values(doc.paths as Record<string, Record<string, { tags: string[] }>>).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags)));
    expect(doc.tags.map((t: { name: string }) => t.name).sort()).toEqual([...used].sort());
    for (const t of doc.tags) expect(t.description).toBe(TAGS[t.name as keyof typeof TAGS]);
    expect(admin.tags.map((t: { name: string }) => t.name)).toEqual(['Admin']);
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { license: string };
    expect(doc.info.license).toEqual(LICENSE);
    expect(LICENSE.name).toBe(pkg.license);
    expect(doc.info.contact.url).toBe(s.url);
  });
});
