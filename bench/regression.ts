/**
 * `npm run bench:regression -- <commit>`: bench:gateway's figure (mmgen's added p50 on POST /v1/chat/completions)
 * of this checkout beside the given commit's, in one run, alternated in rounds (bench/side-by-side.ts), printing
 * this ÷ that. The commit is checked out in a temporary git worktree with this checkout's node_modules copied into
 * it (copied, not linked: a link would resolve the workspace packages, such as @mmgen/sdk, to this checkout's
 * files), and removed afterwards.
 *
 * Exit status: 0, or 1 when the ratio exceeds BENCH_REGRESSION_LIMIT (default 1.10; 0 turns the check off), so a
 * scheduled run fails the day a regression lands. On a busy machine read the CPU-per-request ratio beside it.
 *
 * Knobs: those of the gateway mode of bench/side-by-side.ts (BENCH_ROUNDS 40, BENCH_SEQUENTIAL 50, BENCH_WARMUP
 * 1500), BENCH_PG_URL; BENCH_KEEP_WORKTREE=1 leaves the worktree in place (its path is printed).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { compareGateway, printGateway } from './side-by-side.js';

const run = promisify(execFile);

async function main(): Promise<number> {
  const commit = process.argv[2];
  if (!commit) {
    console.error('usage: npm run bench:regression -- <commit>');
    return 2;
  }
  const sha = (await run('git', ['rev-parse', '--verify', `${commit}^{commit}`])).stdout.trim();
  const dir = join(mkdtempSync(join(tmpdir(), 'mmgen-regression-')), 'checkout');
  await run('git', ['worktree', 'add', '--detach', dir, sha]);
  try {
    // cp -a keeps node_modules' own relative links (workspace packages) pointing inside the copy.
    await run('cp', ['-a', '--reflink=auto', join(process.cwd(), 'node_modules'), join(dir, 'node_modules')], { maxBuffer: 1 << 24 });
    const c = await compareGateway(dir, process.cwd(), {
      rounds: Number(process.env.BENCH_ROUNDS ?? 40),
      sequential: Number(process.env.BENCH_SEQUENTIAL ?? 50),
      warmup: Number(process.env.BENCH_WARMUP ?? 1500),
    });
    printGateway(c, `${commit} (${sha.slice(0, 10)})`);
    const limit = Number(process.env.BENCH_REGRESSION_LIMIT ?? 1.1);
    if (limit > 0 && c.ratio > limit) {
      console.log(`REGRESSION: this build adds ${c.ratio.toFixed(2)}× the latency of ${commit} (limit ${limit})`);
      return 1;
    }
    return 0;
  } finally {
    if (process.env.BENCH_KEEP_WORKTREE === '1') console.log(`worktree kept: ${dir}`);
    else {
      await run('git', ['worktree', 'remove', '--force', dir]).catch(() => undefined);
      rmSync(join(dir, '..'), { recursive: true, force: true });
    }
  }
}

process.exitCode = await main().catch((err: unknown) => {
  console.error(err);
  return 1;
});
