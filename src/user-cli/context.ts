import type { Mmgen } from '../../sdk/src/index.js';

/** What every user command gets: the client, where to write, and the common flags. */
export interface Context {
  /** Made on first use, so that `--help` and usage errors need no API key. */
  sdk(): Mmgen;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  json: boolean;
  quiet: boolean;
}

export function printJson(ctx: Context, value: unknown): void {
  ctx.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function say(ctx: Context, line: string): void {
  ctx.stdout.write(`${line}\n`);
}

/** Remarks (saved files, hints) go to stderr when stdout carries JSON. */
export function note(ctx: Context, line: string): void {
  if (ctx.quiet) return;
  (ctx.json ? ctx.stderr : ctx.stdout).write(`${line}\n`);
}

/** Fixed-width columns for human output. */
export function table(rows: string[][]): string {
  if (rows.length === 0) return '';
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}
