import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * The architecture's dependency rules (.dependency-cruiser.cjs; docs/architecture.md, "Rules"),
 * checked by dependency-cruiser over the server, the dashboard and the SDK.
 */
const run = promisify(execFile);

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  cycle?: Array<{ name: string }>;
}

describe('dependency rules', () => {
  it('hold: no cycles, no use case reaching http, no provider reaching the store, the dashboard only over /v1', async () => {
    const bin = join(process.cwd(), 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
    const { stdout } = await run(process.execPath, [bin, 'src', 'web/src', 'sdk/src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], {
      maxBuffer: 256 << 20,
    }).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }));
    const result = JSON.parse(stdout) as { summary: { violations: Violation[]; totalCruised: number } };
    const violations = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.cycle ? v.cycle.map((c) => c.name).join(' → ') : v.to}`);
    expect(violations).toEqual([]);
    // The cruise saw the whole tree, not an empty folder.
    expect(result.summary.totalCruised).toBeGreaterThan(150);
  }, 180_000);
});
