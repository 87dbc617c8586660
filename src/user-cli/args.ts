import { parseArgs } from 'node:util';

/** A mistake in how the command was called: printed with the usage, exit code 2. */
export class UsageError extends Error {}

export type OptionSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }>;
export type Values = Record<string, string | boolean | string[] | boolean[] | undefined>;

/** Flags every user command takes. */
const COMMON: OptionSpec = {
  json: { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
};

export function parse(args: string[], options: OptionSpec, positionals: { min: number; max: number; names: string }): { values: Values; positionals: string[] } {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args, options: { ...COMMON, ...options }, allowPositionals: true, strict: true }) as { values: Values; positionals: string[] };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const n = parsed.positionals.length;
  if (n < positionals.min) throw new UsageError(`missing ${positionals.names}`);
  if (n > positionals.max) throw new UsageError(`unexpected argument: ${parsed.positionals[positionals.max]}`);
  return parsed;
}

export function str(v: Values[string]): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function strings(v: Values[string]): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : [];
}

export function int(v: Values[string], flag: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^-?\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw new UsageError(`--${flag} must be a whole number`);
  return Number(v);
}

export function num(v: Values[string], flag: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== 'string' || v.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${flag} must be a number`);
  return n;
}

/** A comma-separated list flag: `--models a,b` (repeating the flag works too). */
export function list(v: Values[string]): string[] | undefined {
  const all = strings(v).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  return all.length ? all : undefined;
}

/**
 * `--param key=value`: any request field the dedicated flags do not cover.
 * The value is read as JSON when it is JSON (`5`, `true`, `{"delay_ms":500}`), else as text.
 */
export function params(v: Values[string]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of strings(v)) {
    const eq = p.indexOf('=');
    if (eq <= 0) throw new UsageError(`--param takes key=value, got ${JSON.stringify(p)}`);
    const raw = p.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // plain text
    }
    out[p.slice(0, eq)] = value;
  }
  return out;
}

/** Drops undefined entries so that the request carries only what was given. */
export function defined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
