import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalog, type CatalogModel } from '../../src/catalog/index.js';
import { loadConfig } from '../../src/config.js';
import type { ProviderDeclaration } from '../../src/providers/declaration.js';
import { PROVIDER_DECLARATIONS, PROVIDER_NAMES } from '../../src/providers/index.js';
import { recordedLifecycle } from '../../src/providers/lifecycle.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import { checkProviders } from '../../src/providers/schema-check.js';
import type { SimulatorJobs } from '../../src/providers/simulator/jobs.js';
import type { ProviderAdapter, UpstreamRequest, UpstreamStatus } from '../../src/providers/types.js';
import { documentedBody, recordForRequest, upstreamInput } from '../../src/providers/upstream-input.js';
import { recordFinder, SHIPPED_RECORDS } from '../../src/providers/upstream-models.js';
import type { UpstreamModelRecord, UpstreamRecords } from '../../src/providers/upstream-record.js';

/**
 * docs/architecture.md, "Add a provider", walked: a provider of the test's own (Acme, an image API on a loopback
 * server) declared as the section says, with a records folder of its own, and registered the way the real ones
 * are (a list of declarations; here the registered ones and Acme). Each derived structure must then see it: the
 * credentials config.ts reads, the registry's adapters, the catalog's route check and records, and
 * `mmgen providers check`. A list kept by hand in any of them would not know Acme, and this test would fail.
 */
const UPSTREAM = 'acme-image-1';
const INPUT = { type: 'object' as const, properties: { prompt: { type: 'string' }, seed: { type: 'integer' } }, required: ['prompt'], additionalProperties: false };
const RECORD: UpstreamModelRecord = {
  upstream: UPSTREAM,
  call: {},
  sources: ['https://docs.acme.invalid/images'],
  lifecycle: { deprecated: null, shutdown: null, replacement: null, source: null },
  pricing: null,
  input: INPUT,
  map: { prompt: 'prompt', seed: 'seed' },
  set: {},
};
const PNG = Buffer.from('89504e470d0a1a0a', 'hex');

/** Acme's adapter: the least a provider folder's index.ts holds, building its body from its own records. */
class AcmeAdapter implements ProviderAdapter {
  readonly name = 'acme';
  readonly modalities = ['image'] as const;

  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    private readonly records: UpstreamRecords,
  ) {}

  async submit(req: UpstreamRequest): Promise<{ upstreamId: string; status: UpstreamStatus }> {
    const record = recordForRequest(this.records, req);
    const body = documentedBody(this.name, record, upstreamInput(record, req.params));
    const res = await fetch(`${this.baseUrl}/images`, { method: 'POST', headers: { authorization: `Bearer ${this.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const answer = (await res.json()) as { id: string; png: string };
    return { upstreamId: answer.id, status: { state: 'succeeded', outputs: [{ bytes: Buffer.from(answer.png, 'base64'), mime: 'image/png' }] } };
  }

  async poll(): Promise<UpstreamStatus> {
    throw new Error('Acme answers at once');
  }

  async cancel(): Promise<void> {}

  async findByClientRef(): Promise<string | null> {
    return null;
  }
}

const MODEL: CatalogModel = {
  slug: 'acme-image',
  display_name: 'Acme Image',
  modality: 'image',
  routes: [{ provider: 'acme', upstream: UPSTREAM }],
  capabilities: ['text-to-image'],
  unit_cost_usd: '0.01',
  status: 'active',
};

const refuse = () => Promise.reject(new Error('no simulator jobs here'));
const noJobs: SimulatorJobs = { submit: refuse, findByClientRef: refuse, cancel: refuse, get: refuse };

describe('add a provider (docs/architecture.md): one folder and one registration line', () => {
  let server: Server;
  let url: string;
  let folder: string;
  let acme: ProviderDeclaration;
  let registered: readonly ProviderDeclaration[];
  const received: Array<{ authorization: string | undefined; body: unknown }> = [];
  let published: object = INPUT;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        if (req.method === 'POST' && req.url === '/v1/images') {
          received.push({ authorization: req.headers.authorization, body: JSON.parse(text) });
          res.end(JSON.stringify({ id: `acme_${received.length}`, png: PNG.toString('base64') }));
        } else if (req.method === 'GET' && req.url === `/schemas/${UPSTREAM}`) {
          res.end(JSON.stringify(published));
        } else {
          res.statusCode = 404;
          res.end('{}');
        }
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    // The folder: its records (models/), beside what provider.ts declares.
    folder = mkdtempSync(join(tmpdir(), 'mmgen-acme-'));
    mkdirSync(join(folder, 'models'));
    writeFileSync(join(folder, 'models', `${UPSTREAM}.json`), JSON.stringify(RECORD));

    // provider.ts: the declaration.
    acme = {
      name: 'acme',
      env: { keyVar: 'ACME_API_KEY', baseUrlVar: 'ACME_BASE_URL', defaultBaseUrl: 'https://api.acme.invalid/v1' },
      records: pathToFileURL(join(folder, 'models') + '/'),
      schemaSource: {
        urlVar: { name: 'ACME_SCHEMA_URL', default: 'https://schemas.acme.invalid' },
        async published(record, credentials) {
          const res = await fetch(`${credentials.schemaUrl}/schemas/${record.upstream}`, { headers: { authorization: `Bearer ${credentials.apiKey}` } });
          return res.json();
        },
      },
      modelList: null,
      create: ({ credentials, records }) => new AcmeAdapter(credentials.baseUrl, credentials.apiKey, records),
    };
    // index.ts: the registration line.
    registered = [...PROVIDER_DECLARATIONS, acme];
  });

  afterAll(async () => {
    await new Promise((done) => server?.close(done));
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  const env = () => ({ MMGEN_DATA_DIR: '/tmp/mmgen-unused', ACME_API_KEY: 'acme-key', ACME_BASE_URL: `${url}/v1/`, ACME_SCHEMA_URL: url });

  it('the registered providers have distinct names and variables', () => {
    expect(new Set(PROVIDER_NAMES).size).toBe(PROVIDER_NAMES.length);
    const vars = PROVIDER_DECLARATIONS.flatMap((p) => [p.env.keyVar, p.env.baseUrlVar, ...[p.schemaSource?.urlVar, p.modelList?.urlVar].flatMap((v) => (v ? [v.name] : []))]);
    expect(new Set(vars).size).toBe(vars.length);
  });

  it('config reads its credential, base URL and schema URL from the variables it declares', () => {
    expect(loadConfig(env(), registered).providers.acme).toEqual({ apiKey: 'acme-key', baseUrl: `${url}/v1`, schemaUrl: url });
    expect(() => loadConfig({ ...env(), ACME_BASE_URL: 'ftp://acme' }, registered)).toThrow(/ACME_BASE_URL must use http or https/);
    // Unregistered, the same variables configure nothing.
    expect(loadConfig(env()).providers.acme).toBeUndefined();
  });

  it('the registry builds its adapter, which sends what its records map', async () => {
    const registry = new ProviderRegistry(loadConfig(env(), registered), noJobs, registered);
    const route = registry.choose('live', MODEL);
    expect(route.adapter.name).toBe('acme');
    expect(registry.circuitState('acme')).toBe('closed');
    const req: UpstreamRequest = { clientRef: 'gen_1#1', attempt: 1, modality: 'image', model: MODEL, upstreamModel: route.upstreamModel, params: { prompt: 'a red kite', seed: 7, num_outputs: 1 } };
    const { status } = await route.adapter.submit(req);
    expect(status?.state).toBe('succeeded');
    expect(status?.outputs?.[0]?.bytes).toEqual(PNG);
    expect(received.at(-1)).toEqual({ authorization: 'Bearer acme-key', body: { prompt: 'a red kite', seed: 7 } });
    // The registered providers alone have no adapter for it.
    expect(() => new ProviderRegistry(loadConfig(env(), registered), noJobs).choose('live', MODEL)).toThrow(/No provider for 'acme-image' is configured/);
    await registry.close();
  });

  it('the catalog serves its routes by its records; an unregistered name fails the catalog\'s first read', () => {
    expect(recordFinder(registered)('acme', UPSTREAM)?.sources).toEqual(RECORD.sources);
    const catalog = new Catalog([MODEL], recordedLifecycle('2026-01-01', recordFinder(registered)));
    expect(catalog.resolve('acme-image', 'image').routes).toEqual(MODEL.routes);
    expect(() => new Catalog([MODEL], recordedLifecycle('2026-01-01', SHIPPED_RECORDS)).models).toThrow(/no provider 'acme' is registered/);
  });

  it('`mmgen providers check` reads its published schema, and reports its drift', async () => {
    const check = () =>
      checkProviders({ models: [MODEL], credentials: loadConfig(env(), registered).providers, today: '2026-01-01', nearDays: 30, providers: registered });
    expect(await check()).toEqual({ checked: 1, lifecycleOnly: 0, findings: [] });
    published = { ...INPUT, properties: { ...INPUT.properties, style: { type: 'string' } } };
    try {
      const report = await check();
      expect(report.findings).toEqual([{ provider: 'acme', upstream: UPSTREAM, slugs: ['acme-image'], kind: 'drift', detail: 'published field style is not recorded' }]);
    } finally {
      published = INPUT;
    }
  });

  /** Lists of the same words that are not lists of upstream providers, and why. */
  const NOT_PROVIDER_LISTS: Record<string, string> = {
    [join('http', 'route.ts')]: "the other APIs whose shape mmgen's compatible paths speak ('openai' | 'anthropic')",
  };

  it('no module but src/providers/index.ts lists providers or reaches into a provider folder', () => {
    const src = resolve('src');
    const folders = PROVIDER_NAMES.map((n) => join(src, 'providers', n));
    const offences: string[] = [];
    for (const file of tsFiles(src)) {
      const where = relative(src, file);
      const own = folders.find((f) => file.startsWith(`${f}/`));
      if (where === join('providers', 'index.ts') || own) continue;
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        // An import into a provider's folder: its declaration or its adapter, reached from outside the registration.
        if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
          const target = resolve(dirname(file), node.moduleSpecifier.text);
          if (folders.some((f) => target.startsWith(`${f}/`))) offences.push(`${where} imports ${node.moduleSpecifier.text}`);
        }
        // A hand-kept list: two or more provider names as the strings of an array, the keys of an object or the members of a union.
        const names = (nodes: readonly ts.Node[]) =>
          nodes.filter((n) => {
            const text = ts.isStringLiteral(n) ? n.text : ts.isLiteralTypeNode(n) && ts.isStringLiteral(n.literal) ? n.literal.text : (ts.isPropertyAssignment(n) || ts.isPropertySignature(n)) && (ts.isIdentifier(n.name) || ts.isStringLiteral(n.name)) ? n.name.text : undefined;
            return text !== undefined && PROVIDER_NAMES.includes(text);
          }).length;
        const list = ts.isArrayLiteralExpression(node) ? node.elements : ts.isObjectLiteralExpression(node) ? node.properties : ts.isUnionTypeNode(node) ? node.types : ts.isTypeLiteralNode(node) ? node.members : undefined;
        if (list && names(list) >= 2 && !NOT_PROVIDER_LISTS[where]) offences.push(`${where}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} lists providers`);
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(offences).toEqual([]);
  });
});

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}
