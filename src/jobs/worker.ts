import type { Config } from '../config.js';
import type { Db } from '../store/db.js';
import type { Wakeup } from '../wakeup.js';
import { finishFailed, type RunResult } from '../generations/finish.js';
import { runGeneration, type RunPorts } from '../generations/runner.js';
import { claimDueJobsTakingUp, deleteJobIfTerminal, type ClaimedJobTakenUp } from '../store/jobs.js';
import { selectGeneration } from '../store/generations.js';
import { beat, forgetWorker, WORKER_BEAT_MS } from '../store/queue-stats.js';
import { Scheduler, type SchedulerPorts } from './scheduler.js';
import { settledWithin } from './inflight.js';

/**
 * The worker claims jobs and beats under this node's name, runs each claimed generation (RunPorts), hosts the
 * periodic spending checks (SchedulerPorts), and is woken when this process enqueues a job (jobsAvailable).
 */
export interface WorkerPorts extends RunPorts, SchedulerPorts {
  config: Pick<Config, 'allowPrivateNetwork' | 'anomaly' | 'answeredFinishBatchMs' | 'jobLeaseMs' | 'publicUrl' | 'schedulerIntervalMs' | 'stripe' | 'upstream' | 'workerConcurrency' | 'workerPollMs'>;
  /** Transactions only for the scheduler's notices and pauses; a run needs single statements. */
  db: Db;
  jobsAvailable: Wakeup;
}

/** What one claimed job came to in a round: its run's outcome, `given_up` (claimed too often), or `crashed` (the run threw). */
export interface RoundRun {
  generationId: string;
  outcome: RunResult['outcome'] | 'given_up' | 'crashed';
}

/** Claims of one job before it is failed as unprocessable (each claim is a run that died or crashed). */
const MAX_CLAIMS = 5;

/**
 * The generation worker: claims due jobs with FOR UPDATE SKIP LOCKED and a
 * lease, runs up to `workerConcurrency` at once, and sleeps when idle until
 * the poll interval passes or this process enqueues a job. A job whose lease
 * ran out (its worker died) is due again and is resumed by whoever claims it.
 */
export class Worker {
  private running = 0;
  private stopped = true;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private readonly inFlight = new Set<Promise<unknown>>();
  private heartbeat: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  /** Settles once this worker's first heartbeat is written (or failed): from then on every node counts it live. */
  firstBeat: Promise<void> = Promise.resolve();
  /** Budgets and anomaly checks run wherever generations are worked on. */
  readonly scheduler: Scheduler;

  constructor(private readonly deps: WorkerPorts) {
    this.scheduler = new Scheduler(deps);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.unsubscribe = this.deps.jobsAvailable.subscribe(() => this.notify());
    this.loop = this.run();
    this.scheduler.start();
    // Tells every node (readiness, metrics) that somebody works the queue.
    const pulse = () => beat(this.deps.db, this.deps.nodeId).catch((err: unknown) => this.deps.log.warn({ err }, 'worker heartbeat failed'));
    this.firstBeat = pulse();
    this.heartbeat = setInterval(() => void pulse(), WORKER_BEAT_MS);
    this.heartbeat.unref();
  }

  /** Nudges an idle worker (a job was just enqueued in this process). */
  notify(): void {
    this.wake?.();
  }

  /** Stops claiming and waits for the jobs in flight, at most `graceMs`; unfinished ones keep their job rows. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.stopped = true;
    this.notify();
    await Promise.all([this.loop, this.scheduler.stop()]);
    await settledWithin(this.inFlight, graceMs);
    await forgetWorker(this.deps.db, this.deps.nodeId).catch(() => {});
  }

  /**
   * One deterministic round: claims what is due now (up to the free slots), runs each claimed job to its end, and
   * resolves once every one of them has settled, with what each came to. The loop runs the same round without
   * waiting for the runs (it claims again as slots free up); tests drive the worker's ports with this one.
   */
  async runOnce(): Promise<RoundRun[]> {
    return Promise.all(await this.claimAndStart());
  }

  private async claim(limit: number): Promise<ClaimedJobTakenUp[]> {
    return claimDueJobsTakingUp(this.deps.db, this.deps.nodeId, this.deps.config.jobLeaseMs / 1000, limit, MAX_CLAIMS);
  }

  /**
   * Claims the due jobs the free slots take and starts a run of each: the runs, each settling when its job has
   * (a run that throws is logged, never rejected: its job is retried after its lease). A failed claim throws.
   */
  private async claimAndStart(): Promise<Array<Promise<RoundRun>>> {
    const free = this.deps.config.workerConcurrency - this.running;
    if (free <= 0) return [];
    const claimed = await this.claim(free);
    return claimed.map((job) => {
      const generationId = job.generation_id;
      this.running++;
      const p: Promise<RoundRun> = this.runOrGiveUp(job)
        .then((outcome) => ({ generationId, outcome }))
        .catch((err: unknown) => {
          this.deps.log.error({ err, generationId }, 'generation run failed; the job will be retried after its lease');
          return { generationId, outcome: 'crashed' as const };
        })
        .finally(() => {
          this.running--;
          this.inFlight.delete(p);
          this.notify();
        });
      this.inFlight.add(p);
      return p;
    });
  }

  /** A job claimed again and again is crashing its runs: fail it (refunded) instead of looping forever. */
  private async runOrGiveUp(job: ClaimedJobTakenUp): Promise<RoundRun['outcome']> {
    if (job.claims > MAX_CLAIMS) {
      const g = await selectGeneration(this.deps.db, job.generation_id);
      if (g) await finishFailed(this.deps, g, `mmgen could not process this generation after ${MAX_CLAIMS} attempts.`);
      await deleteJobIfTerminal(this.deps.db, job.generation_id);
      return 'given_up';
    }
    // A trace of its own (the request that queued it has long been answered), linked to that request's span when this
    // process accepted it.
    const attributes = { 'mmgen.generation.id': job.generation_id, 'mmgen.job.claims': job.claims, 'mmgen.modality': job.takenUp?.modality };
    return this.deps.tracing.span(
      'mmgen.job.run',
      attributes,
      async (span) => {
        // Taken up by the claim: moved from queued here, so a first attempt has nothing submitted to reconcile.
        const result = job.takenUp
          ? await runGeneration(this.deps, job.generation_id, { row: job.takenUp, fresh: job.takenUp.attempt === 1 })
          : await runGeneration(this.deps, job.generation_id);
        span.set({ 'mmgen.outcome': result.outcome, 'mmgen.generation.status': result.row?.status });
        return result.outcome;
      },
      // A comparison's child was accepted with its siblings, under the comparison's id.
      { kind: 'consumer', root: true, linkTo: job.takenUp?.comparison_id ?? job.generation_id },
    );
  }

  /** Rounds until stopped; after one that claimed nothing, or with every slot taken, it waits for a wake-up or the poll. */
  private async run(): Promise<void> {
    while (!this.stopped) {
      let started: Array<Promise<RoundRun>> = [];
      try {
        started = await this.claimAndStart();
      } catch (err) {
        this.deps.log.error({ err }, 'claiming jobs failed');
      }
      if (started.length === 0 || this.running >= this.deps.config.workerConcurrency) await this.idle();
    }
  }

  private async idle(): Promise<void> {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, this.deps.config.workerPollMs);
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
    this.wake = null;
  }
}
