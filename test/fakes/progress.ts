/**
 * How far a fake upstream job has got, for the progress fal's queue status and
 * Replicate's prediction report: waiting in the queue (with requests ahead of
 * it), running (a fraction done, which the fakes print as a model's tqdm bar),
 * or finished.
 *
 * By default a job's timeline is its `jobMs`: queued for the first third, its
 * queue position falling from QUEUE_AHEAD to 0, then running. A test that
 * must see each stage through mmgen's backing-off polls sets `steps` instead:
 * each status read then moves the job one step (`queued` reads with positions
 * `queued - 1` down to 0, then `running` reads from 0 % upwards, then
 * finished), whatever the clock says.
 */
export interface ProgressSteps {
  queued: number;
  running: number;
}

export type JobStage = { state: 'queued'; ahead: number } | { state: 'running'; done: number } | { state: 'finished' };

const QUEUE_AHEAD = 2;

export class JobTimeline {
  private reads = 0;

  constructor(
    private readonly createdAt: number,
    private readonly jobMs: number,
    private readonly steps: ProgressSteps | undefined,
  ) {}

  /** Where the job is now; `read` counts this look as a status read (which moves a stepped job on). */
  stage(read: boolean): JobStage {
    if (this.steps) {
      if (read) this.reads++;
      const { queued, running } = this.steps;
      if (this.reads <= queued) return { state: 'queued', ahead: Math.max(0, queued - Math.max(1, this.reads)) };
      if (this.reads <= queued + running) return { state: 'running', done: (this.reads - queued - 1) / running };
      return { state: 'finished' };
    }
    const elapsed = Date.now() - this.createdAt;
    const queueMs = this.jobMs / 3;
    if (elapsed < queueMs) return { state: 'queued', ahead: Math.min(QUEUE_AHEAD, Math.floor((QUEUE_AHEAD + 1) * (1 - elapsed / queueMs))) };
    if (elapsed < this.jobMs) return { state: 'running', done: (elapsed - queueMs) / (this.jobMs - queueMs) };
    return { state: 'finished' };
  }
}

const TQDM_TOTAL = 20;
const PARTIAL = ' ▏▎▍▌▋▊▉';

const clock = (s: number) => `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(Math.floor(s % 60)).padStart(2, '0')}`;

/** One tqdm bar as diffusion pipelines print it, e.g. ` 45%|████▌     | 9/20 [00:02<00:02, 4.50it/s]`. */
export function tqdmLine(n: number, total = TQDM_TOTAL): string {
  const frac = n / total;
  const eighths = Math.floor(frac * 80);
  const bar = ('█'.repeat(Math.floor(eighths / 8)) + (eighths % 8 ? PARTIAL[eighths % 8] : '')).padEnd(10, ' ');
  const rate = 4.5;
  const timing = n === 0 ? '[00:00<?, ?it/s]' : `[${clock(n / rate)}<${clock((total - n) / rate)}, ${rate.toFixed(2)}it/s]`;
  return `${String(Math.floor(frac * 100)).padStart(3, ' ')}%|${bar}| ${n}/${total} ${timing}`;
}

/** What a diffusion model has printed by `done` (0..1) of its run: a seed line, then a bar for each step reached. */
export function runLog(done: number, seed: number): string[] {
  const reached = Math.min(TQDM_TOTAL, Math.floor(done * TQDM_TOTAL));
  const lines = [`Using seed: ${seed}`];
  for (let n = 0; n <= reached; n++) lines.push(tqdmLine(n));
  return lines;
}
