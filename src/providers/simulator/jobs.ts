/**
 * Where the simulator keeps the jobs it was asked for, so that they outlive a
 * process (a worker on another node polls them, a retry reconciles them) like
 * a real provider's. The simulator sees this port only; its SQL lives in
 * src/store/simulator-jobs.ts.
 */
import { Batcher } from '../../jobs/batcher.js';

export interface SimulatedJob {
  id: string;
  clientRef: string;
  outcome: 'success' | 'failure' | 'lost';
  readyAt: Date;
  canceledAt: Date | null;
  createdAt: Date;
}

export interface SimulatorSubmission {
  id: string;
  clientRef: string;
  modality: string;
  upstreamModel: string;
  outcome: SimulatedJob['outcome'];
  readyAt: Date;
}

export interface SimulatorJobs {
  /** Records a job; a second submission with the same client reference gets the first job's id. */
  submit(job: SimulatorSubmission): Promise<string>;
  findByClientRef(clientRef: string): Promise<string | null>;
  cancel(id: string): Promise<void>;
  get(id: string): Promise<SimulatedJob | null>;
}

/** Where the jobs are kept, written and read many at a time (src/store/simulator-jobs.ts). */
export interface SimulatorJobRows extends Pick<SimulatorJobs, 'findByClientRef' | 'cancel'> {
  /** Each submission's job id, in order: as `submit`, one per client reference. */
  submitAll(jobs: SimulatorSubmission[]): Promise<string[]>;
  /** Each id's job, in order, or null. */
  getAll(ids: string[]): Promise<Array<SimulatedJob | null>>;
}

// Submissions and reads that arrive together (a worker drains many jobs at once) share one statement: the simulator
// stands in for a provider, and its own two statements per job were most of an asynchronous job's round trips. With no
// delay a lone call still runs at once; under load, what arrives while a statement runs goes in the next.
const BATCH = { delayMs: 0, maxItems: 500 };

/** The jobs port over the rows, with the submissions and reads that arrive together put in one statement each. */
export function batchedSimulatorJobs(rows: SimulatorJobRows): SimulatorJobs {
  const submissions = new Batcher<SimulatorSubmission, string>((jobs) => rows.submitAll(jobs), BATCH);
  const reads = new Batcher<string, SimulatedJob | null>((ids) => rows.getAll(ids), BATCH);
  return {
    submit: (job) => submissions.add(job),
    findByClientRef: (clientRef) => rows.findByClientRef(clientRef),
    cancel: (id) => rows.cancel(id),
    get: (id) => reads.add(id),
  };
}
