import type { SimulatedJob, SimulatorJobs } from '../providers/simulator/jobs.js';
import type { Queryable } from './db.js';

interface Row {
  id: string;
  client_ref: string;
  outcome: SimulatedJob['outcome'];
  ready_at: Date;
  canceled_at: Date | null;
  created_at: Date;
}

/** The simulator's jobs in the `simulator_jobs` table. */
export function simulatorJobsIn(db: Queryable): SimulatorJobs {
  return {
    async submit(job) {
      const r = await db.query<{ id: string }>(
        `INSERT INTO simulator_jobs (id, client_ref, modality, request, outcome, ready_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (client_ref) DO UPDATE SET client_ref = EXCLUDED.client_ref RETURNING id`,
        [job.id, job.clientRef, job.modality, JSON.stringify({ model: job.upstreamModel }), job.outcome, job.readyAt],
      );
      return r.rows[0]!.id;
    },
    async findByClientRef(clientRef) {
      const r = await db.query<{ id: string }>('SELECT id FROM simulator_jobs WHERE client_ref = $1', [clientRef]);
      return r.rows[0]?.id ?? null;
    },
    async cancel(id) {
      await db.query('UPDATE simulator_jobs SET canceled_at = now() WHERE id = $1 AND canceled_at IS NULL', [id]);
    },
    async get(id) {
      const r = await db.query<Row>('SELECT id, client_ref, outcome, ready_at, canceled_at, created_at FROM simulator_jobs WHERE id = $1', [id]);
      const row = r.rows[0];
      return row ? { id: row.id, clientRef: row.client_ref, outcome: row.outcome, readyAt: row.ready_at, canceledAt: row.canceled_at, createdAt: row.created_at } : null;
    },
  };
}
