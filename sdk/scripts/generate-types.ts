/**
 * Regenerates src/generated/openapi.ts and src/generated/modalities.ts (the
 * modalities' endpoints) from the OpenAPI document mmgen serves,
 * and src/model-parameters.generated.ts from the parameters of this checkout's
 * catalog (scripts/model-parameters.ts).
 *
 *   npm run generate -w @mmgen/sdk                 # boots this checkout's mmgen in-process (in-memory database)
 *   npm run generate -w @mmgen/sdk -- --url URL    # or reads URL/v1/openapi.json from a running mmgen
 *   npm run generate -w @mmgen/sdk -- --catalog-date YYYY-MM-DD   # the models as served on that day (default: the tests' date)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { runtimeOn, startServer } from '../../src/main.js';
import { PGliteDb } from '../../src/store/db.js';
import { DEFAULT_CATALOG_DATE, MODEL_PARAMETERS_PATH, renderModelParameterTypes, servedModelParameters } from './model-parameters.js';
import { GENERATED_MODALITIES_PATH, GENERATED_TYPES_PATH, renderModalityEndpoints, renderOpenApiTypes } from './openapi-types.js';

async function fetchDocument(baseUrl: string): Promise<Record<string, unknown>> {
  const res = await fetch(new URL('/v1/openapi.json', baseUrl));
  if (!res.ok) throw new Error(`GET ${baseUrl}/v1/openapi.json answered ${res.status}`);
  return (await res.json()) as Record<string, unknown>;
}

/** Serves this checkout's mmgen on a loopback port just long enough to read its document. */
async function documentFromThisCheckout(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mmgen-generate-'));
  const config = loadConfig({ LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '0', MMGEN_DATA_DIR: dataDir });
  const runtime = await runtimeOn(config, await PGliteDb.open(undefined), pino({ level: 'silent' }));
  const server = await startServer(runtime, { port: 0, host: '127.0.0.1', worker: false });
  try {
    return await fetchDocument(server.url);
  } finally {
    await server.close();
    await runtime.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const { values } = parseArgs({ options: { url: { type: 'string' }, 'catalog-date': { type: 'string' } } });
const document = values.url ? await fetchDocument(values.url) : await documentFromThisCheckout();
const sdkDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(sdkDir, GENERATED_TYPES_PATH);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, await renderOpenApiTypes(document));
process.stdout.write(`Wrote ${out}\n`);
const modalitiesOut = join(sdkDir, GENERATED_MODALITIES_PATH);
writeFileSync(modalitiesOut, renderModalityEndpoints(document));
process.stdout.write(`Wrote ${modalitiesOut}\n`);

const date = values['catalog-date'] ?? DEFAULT_CATALOG_DATE;
if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error(`--catalog-date wants YYYY-MM-DD, not '${date}'`);
const modelsOut = join(sdkDir, MODEL_PARAMETERS_PATH);
writeFileSync(modelsOut, renderModelParameterTypes(servedModelParameters(date), date));
process.stdout.write(`Wrote ${modelsOut} (the catalog of ${date})\n`);
