import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import { MediaError } from './errors.js';

// The process's, not an installation's: the binary, the cap on encoders running at once (they share the host's CPU
// whichever runtime asked), the codec and what the binary can do. No configuration sets them (configureFfmpeg is
// for tests, which put back what they change), so several runtimes in one process share them as they share the CPU.
let ffmpegPath: string = ffmpegInstaller.path;
let maxProcesses = Math.max(1, Math.min(4, cpus().length));
let videoCodec: 'auto' | 'h264' | 'mpeg4' = 'auto';

/**
 * Overrides the ffmpeg binary (e.g. a system one), how many may run at once,
 * and the video codec ('mpeg4' avoids shipping GPL x264 output, and lets the
 * fallback path be exercised on a binary that has libx264).
 */
export function configureFfmpeg(opts: { path?: string; maxProcesses?: number; videoCodec?: 'auto' | 'h264' | 'mpeg4' }): void {
  if (opts.videoCodec !== undefined) videoCodec = opts.videoCodec;
  if (opts.path !== undefined) {
    ffmpegPath = opts.path;
    capabilities = undefined;
  }
  if (opts.maxProcesses !== undefined) {
    if (!Number.isInteger(opts.maxProcesses) || opts.maxProcesses < 1) {
      throw new RangeError('maxProcesses must be a positive integer');
    }
    maxProcesses = opts.maxProcesses;
    drainQueue();
  }
}

export function getFfmpegPath(): string {
  return ffmpegPath;
}

// A counting semaphore: a burst of distinct video keys must queue rather than
// fork one encoder per request and starve the event loop's host of CPU.
let running = 0;
const waiting: Array<() => void> = [];

function drainQueue(): void {
  while (running < maxProcesses && waiting.length > 0) {
    running++;
    waiting.shift()?.();
  }
}

async function acquire(): Promise<() => void> {
  if (running < maxProcesses) {
    running++;
  } else {
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    running--;
    drainQueue();
  };
}

export interface FfmpegRun {
  stdout: Buffer;
  stderr: string;
}

export interface FfmpegOptions {
  /** Written to ffmpeg's stdin; a producer lets large inputs stream with backpressure. */
  stdin?: Buffer | ((write: (chunk: Buffer) => Promise<void>) => Promise<void>);
  timeoutMs: number;
}

/**
 * Runs ffmpeg and resolves with its output; rejects on a non-zero exit or when
 * the time limit passes (the process is killed, so a wedged encoder cannot
 * pile up).
 */
export async function runFfmpeg(args: string[], opts: FfmpegOptions): Promise<FfmpegRun> {
  const release = await acquire();
  try {
    return await spawnFfmpeg(args, opts);
  } finally {
    release();
  }
}

const STDIN_CLOSED = new Error('ffmpeg stdin closed');

function spawnFfmpeg(args: string[], opts: FfmpegOptions): Promise<FfmpegRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpegPath, ['-hide_banner', '-nostdin', '-loglevel', 'error', ...args], {
      stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let err = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs);
    child.stdout?.on('data', (b: Buffer) => out.push(b));
    child.stderr?.on('data', (b: Buffer) => {
      // Only the tail matters for the error message; bound it.
      err = (err + b.toString('utf8')).slice(-4000);
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new MediaError(`cannot run ffmpeg at ${ffmpegPath}: ${e.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) reject(new MediaError(`ffmpeg timed out after ${opts.timeoutMs} ms`));
      else if (code !== 0) reject(new MediaError(`ffmpeg failed (${code ?? signal}): ${err.trim()}`));
      else resolve({ stdout: Buffer.concat(out), stderr: err });
    });

    const stdin = child.stdin;
    if (stdin && opts.stdin !== undefined) {
      // EPIPE when ffmpeg exits early is reported through 'close' with its own
      // message, which is more useful than the write error.
      stdin.on('error', () => {});
      const write = (chunk: Buffer): Promise<void> =>
        new Promise((res, rej) => {
          // Stops the producer once ffmpeg has gone (failed or timed out)
          // instead of letting it draw every remaining frame for nothing.
          if (stdin.destroyed || !stdin.writable) return rej(STDIN_CLOSED);
          if (stdin.write(chunk)) return res();
          const done = (): void => {
            stdin.off('drain', done);
            stdin.off('close', done);
            res();
          };
          stdin.on('drain', done);
          stdin.on('close', done);
        });
      const src = opts.stdin;
      const feed = Buffer.isBuffer(src) ? write(src) : src(write);
      feed.then(
        () => stdin.end(),
        (e: unknown) => {
          child.kill('SIGKILL');
          // A closed stdin means ffmpeg exited; 'close' reports why.
          if (e !== STDIN_CLOSED) reject(e instanceof Error ? e : new MediaError(String(e)));
        },
      );
    }
  });
}

export interface FfmpegCapabilities {
  h264: boolean;
  mpeg4: boolean;
  mp3: boolean;
  aac: boolean;
}

let capabilities: Promise<FfmpegCapabilities> | undefined;

/** Which encoders the binary has; asked once per binary because it costs a process spawn. */
export function ffmpegCapabilities(): Promise<FfmpegCapabilities> {
  capabilities ??= runFfmpeg(['-encoders'], { timeoutMs: 10_000 }).then(
    ({ stdout }) => {
      const list = stdout.toString('utf8');
      const has = (name: string): boolean => new RegExp(`^\\s*[A-Z.]{6}\\s+${name}\\s`, 'm').test(list);
      return { h264: has('libx264'), mpeg4: has('mpeg4'), mp3: has('libmp3lame'), aac: has('aac') };
    },
    (e: unknown) => {
      capabilities = undefined;
      throw e;
    },
  );
  return capabilities;
}

/** The video encoder to use: the configured one, else H.264 when available, else MPEG-4 Part 2. */
export async function chooseVideoCodec(): Promise<'h264' | 'mpeg4'> {
  const caps = await ffmpegCapabilities();
  const want = videoCodec === 'auto' ? (caps.h264 ? 'h264' : 'mpeg4') : videoCodec;
  if (want === 'h264' ? !caps.h264 : !caps.mpeg4) throw new MediaError(`this ffmpeg has no ${want === 'h264' ? 'libx264' : 'mpeg4'} encoder`);
  return want;
}

/** A private temporary directory that is removed whatever happens inside. */
export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'mmgen-media-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
