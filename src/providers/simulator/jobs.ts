/**
 * Where the simulator keeps the jobs it was asked for, so that they outlive a
 * process (a worker on another node polls them, a retry reconciles them) like
 * a real provider's. The simulator sees this port only; its SQL lives in
 * src/store/simulator-jobs.ts.
 */
export interface SimulatedJob {
  id: string;
  clientRef: string;
  outcome: 'success' | 'failure' | 'lost';
  readyAt: Date;
  canceledAt: Date | null;
  createdAt: Date;
}

export interface SimulatorJobs {
  /** Records a job; a second submission with the same client reference gets the first job's id. */
  submit(job: { id: string; clientRef: string; modality: string; upstreamModel: string; outcome: SimulatedJob['outcome']; readyAt: Date }): Promise<string>;
  findByClientRef(clientRef: string): Promise<string | null>;
  cancel(id: string): Promise<void>;
  get(id: string): Promise<SimulatedJob | null>;
}
