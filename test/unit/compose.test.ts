import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { composeSchemaErrors, mmgenServices, readCompose, serviceCommand, STAND_INS } from '../helpers/compose.js';

/** docker-compose.yml, the documented multi-node example, against the Compose Specification's schema. */
describe('docker-compose.yml', () => {
  const doc = readCompose();

  it('is valid under the Compose Specification JSON Schema', () => {
    expect(composeSchemaErrors(doc)).toEqual([]);
  });

  it('the schema check refuses what compose refuses (an unknown key, ports as a number, a bad duration)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmgen-compose-'));
    const bad = join(dir, 'compose.yml');
    writeFileSync(bad, 'services:\n  a:\n    image: x\n    bogus_key: 1\n    ports: 5\n    stop_grace_period: soon\n');
    const errors = composeSchemaErrors(readCompose(bad)).join('\n');
    expect(errors).toMatch(/bogus_key/);
    expect(errors).toMatch(/\/services\/a\/ports must be array/);
    expect(errors).toMatch(/stop_grace_period must match format "duration"/);
  });

  it('every service is either built from this repository or has a stand-in in the container test', () => {
    const built = mmgenServices(doc).map(([name]) => name);
    const thirdParty = Object.keys(doc.services).filter((n) => !built.includes(n));
    expect(thirdParty.sort()).toEqual(Object.keys(STAND_INS).sort());
    // Two API nodes and a worker: the topology the container test runs.
    expect(Object.fromEntries(mmgenServices(doc).map(([n, s]) => [n, serviceCommand(s).join(' ')]))).toEqual({
      api1: 'serve --no-worker',
      api2: 'serve --no-worker',
      worker: 'worker',
    });
  });
});
