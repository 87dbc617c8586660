/**
 * The user commands of `mmgen` (generate, compare, generations, …): an API
 * client built on the SDK, configured by MMGEN_API_KEY and MMGEN_BASE_URL.
 * The operator commands (serve, org, wallet topup, …) stay in src/cli.ts,
 * which hands these over before it reads any server configuration.
 */
import { APIConnectionError, APIError, MmgenError, Mmgen, WaitTimeoutError } from '../../sdk/src/index.js';
import { UsageError } from './args.js';
import type { Context } from './context.js';
import { compare, COMPARE_USAGE, generate, GENERATE_USAGE } from './generate.js';
import { comparisons, generations, keys, MANAGE_USAGE, uploads, usage, wallet, webhooks } from './manage.js';
import { models, MODELS_USAGE } from './models.js';

export const USER_USAGE = `User commands (an mmgen API client; MMGEN_API_KEY=sk_…, MMGEN_BASE_URL default http://localhost:8080):
${[GENERATE_USAGE, COMPARE_USAGE, MODELS_USAGE, MANAGE_USAGE].join('\n').replace(/^/gm, '  ')}`;

/** The usage shown with a mistake in one command: its own part. */
const HELP: Record<string, string> = { generate: GENERATE_USAGE, gen: GENERATE_USAGE, compare: COMPARE_USAGE, models: MODELS_USAGE };

const COMMANDS: Record<string, (ctx: Context, args: string[]) => Promise<number>> = {
  generate,
  gen: generate,
  compare,
  generations,
  comparisons,
  uploads,
  webhooks,
  keys,
  'api-keys': keys,
  usage,
  wallet,
  models,
};

/**
 * Whether argv is a user command. `wallet topup` is the operator's; `wallet` alone is the user's. `models list` is the
 * operator's (this checkout's catalog, no server needed); `models show` asks a server for a model as it serves it.
 */
export function isUserCommand(argv: string[]): boolean {
  const [cmd, sub] = argv;
  if (cmd === 'wallet') return sub !== 'topup';
  if (cmd === 'models') return sub !== 'list';
  return cmd !== undefined && Object.hasOwn(COMMANDS, cmd);
}

/** Runs a user command and gives the process exit code: 0 done, 1 failed (API, network, failed generation), 2 misused. */
export async function runUserCommand(argv: string[]): Promise<number> {
  const [cmd, ...args] = argv;
  const run = COMMANDS[cmd!]!;
  const json = args.includes('--json');
  let client: Mmgen | undefined;
  const ctx: Context = {
    sdk: () => (client ??= new Mmgen()),
    stdout: process.stdout,
    stderr: process.stderr,
    json,
    quiet: args.includes('--quiet') || args.includes('-q'),
  };
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${USER_USAGE}\n`);
    return 0;
  }
  try {
    return await run(ctx, args);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`mmgen: ${err.message}\n\n${HELP[cmd!] ?? MANAGE_USAGE}\n\nAll commands: mmgen help\n`);
      return 2;
    }
    if (err instanceof APIError) {
      if (json && err.error) process.stdout.write(`${JSON.stringify({ error: err.error }, null, 2)}\n`);
      process.stderr.write(`mmgen: ${err.message}\n`);
      return 1;
    }
    if (err instanceof APIConnectionError) {
      process.stderr.write(`mmgen: ${err.message}\n  (is mmgen running there? MMGEN_BASE_URL sets where it is)\n`);
      return 1;
    }
    if (err instanceof WaitTimeoutError) {
      process.stderr.write(`mmgen: ${err.message}\n`);
      return 1;
    }
    if (err instanceof MmgenError || err instanceof Error) {
      // Expected failures (an unreadable input file, a failed download) read best as one line; MMGEN_DEBUG=1 shows where.
      process.stderr.write(`mmgen: ${process.env.MMGEN_DEBUG ? (err.stack ?? err.message) : err.message}\n`);
      return 1;
    }
    throw err;
  }
}
