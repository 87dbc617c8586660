import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TEST_CATALOG_DATE } from './catalog.js';

/** Real `mmgen` processes, for tests about what crosses a process boundary (CLI, locks, several nodes). */
export const BIN = join(process.cwd(), 'bin', 'mmgen');
const run = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one `mmgen` command to completion. */
export async function mmgen(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(BIN, args, { env: { ...process.env, LOG_LEVEL: 'silent', MMGEN_CATALOG_DATE: TEST_CATALOG_DATE, MMGEN_MODERATION_LOCAL: 'off', ...env }, timeout: timeoutMs });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

export interface MmgenProcess {
  proc: ChildProcess;
  pid: number;
  /** The API's base URL (serve only). */
  url: string;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** The JSON log lines written so far (anything else skipped). */
  logs(): Array<Record<string, unknown>>;
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `bin/mmgen <args>` as its own process and resolves once it is ready:
 * `serve` when it logs its URL, `worker` when it logs that it started.
 */
export function spawnMmgen(args: string[], env: Record<string, string>, timeoutMs = 90_000, bin = BIN): Promise<MmgenProcess> {
  const serving = args[0] === 'serve';
  const proc = spawn(bin, args, {
    env: { ...process.env, LOG_LEVEL: 'info', PORT: '0', HOST: '127.0.0.1', MMGEN_CATALOG_DATE: TEST_CATALOG_DATE, MMGEN_MODERATION_LOCAL: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const ready = serving ? /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"mmgen is listening"/ : /"msg":"mmgen worker started"/;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`mmgen ${args.join(' ')} did not start in time: ${out.slice(-4000)}`));
    }, timeoutMs);
    let started = false;
    const onData = (d: Buffer) => {
      out += d.toString();
      if (started) return;
      const m = ready.exec(out);
      if (!m) return;
      started = true;
      clearTimeout(timer);
      resolve({
        proc,
        pid: proc.pid!,
        url: m[1] ?? '',
        output: () => out,
        logs: () =>
          out.split('\n').flatMap((line) => {
            if (!line.startsWith('{')) return [];
            try {
              return [JSON.parse(line) as Record<string, unknown>];
            } catch {
              return [];
            }
          }),
        exited,
        stop: async () => {
          if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
          return exited;
        },
      });
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      if (!started) reject(new Error(`mmgen ${args.join(' ')} exited with ${code}: ${out.slice(-4000)}`));
    });
  });
}

export type ServeProcess = MmgenProcess & { stdout(): string };

/** `mmgen serve [args]` on a free port, once it listens. */
export async function serve(env: Record<string, string>, args: string[] = []): Promise<ServeProcess> {
  const p = await spawnMmgen(['serve', ...args], env);
  return { ...p, stdout: p.output };
}

export async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = 60_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
