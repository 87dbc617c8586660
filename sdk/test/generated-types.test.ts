import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES, VERSION } from '@mmgen/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '../../src/domain/webhooks/events.js';
import { ERROR_TABLE } from '../../src/errors.js';
import { MODALITIES } from '../../src/catalog/index.js';
import type { TestServer } from '../../test/helpers/server.js';
import { GENERATED_MODALITIES_PATH, GENERATED_TYPES_PATH, renderModalityEndpoints, renderOpenApiTypes } from '../scripts/openapi-types.js';
import { startMmgen } from './helpers.js';

const SDK_DIR = join(process.cwd(), 'sdk');

describe('the SDK agrees with the mmgen it ships with', () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startMmgen();
  });
  afterAll(async () => s?.close());

  it(`${GENERATED_TYPES_PATH} is what openapi-typescript makes of the served /v1/openapi.json (else: npm run generate -w @mmgen/sdk)`, async () => {
    const res = await fetch(`${s.url}/v1/openapi.json`);
    expect(res.status).toBe(200);
    const expected = await renderOpenApiTypes((await res.json()) as Record<string, unknown>);
    const checkedIn = readFileSync(join(SDK_DIR, GENERATED_TYPES_PATH), 'utf8');
    // One assertion on the whole text, so that a failure shows the diff.
    expect(checkedIn, 'the checked-in types drifted from the API: run `npm run generate -w @mmgen/sdk`').toBe(expected);
  });

  it(`${GENERATED_MODALITIES_PATH} is each modality's endpoint as the served document declares it (x-mmgen-modality)`, async () => {
    const document = (await (await fetch(`${s.url}/v1/openapi.json`)).json()) as Record<string, unknown>;
    const checkedIn = readFileSync(join(SDK_DIR, GENERATED_MODALITIES_PATH), 'utf8');
    expect(checkedIn, 'the checked-in modalities drifted from the API: run `npm run generate -w @mmgen/sdk`').toBe(renderModalityEndpoints(document));
    // Every modality the API serves has its endpoint there.
    expect(checkedIn.match(/"path"/g)?.length).toBe(MODALITIES.length);
  });

  it('knows every error code mmgen can answer with', () => {
    expect([...ERROR_CODES].sort()).toEqual(Object.keys(ERROR_TABLE).sort());
  });

  it('types every webhook event type mmgen sends', () => {
    const source = readFileSync(join(SDK_DIR, 'src/webhooks.ts'), 'utf8');
    const typed = [...source.matchAll(/EventBase<\s*'([a-z_.]+)'/g)].map((m) => m[1]);
    expect(typed.sort()).toEqual([...EVENT_TYPES, TEST_EVENT_TYPE].sort());
  });

  it('reports the version of its package.json', () => {
    expect(VERSION).toBe((JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8')) as { version: string }).version);
  });
});
