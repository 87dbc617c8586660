import type { SimulatedJob, SimulatorJobRows, SimulatorSubmission } from '../providers/simulator/jobs.js';
import type { Queryable } from './db.js';

interface Row {
  id: string;
  client_ref: string;
  outcome: SimulatedJob['outcome'];
  ready_at: Date;
  canceled_at: Date | null;
  created_at: Date;
}

/** The simulator's jobs in the `simulator_jobs` table, many at once (batchedSimulatorJobs puts them together). */
export function simulatorJobsIn(db: Queryable): SimulatorJobRows {
  return {
    submitAll: (jobs) => submitAll(db, jobs),
    getAll: (ids) => getAll(db, ids),
    async findByClientRef(clientRef) {
      const r = await db.query<{ id: string }>('SELECT id FROM simulator_jobs WHERE client_ref = $1', [clientRef]);
      return r.rows[0]?.id ?? null;
    },
    async cancel(id) {
      await db.query('UPDATE simulator_jobs SET canceled_at = now() WHERE id = $1 AND canceled_at IS NULL', [id]);
    },
  };
}

/** Records jobs; each gets the id of the job first recorded under its client reference (this one, or an earlier). */
async function submitAll(db: Queryable, jobs: SimulatorSubmission[]): Promise<string[]> {
  // One row per client reference: ON CONFLICT DO UPDATE may not touch a row twice in one statement.
  const first = new Map<string, SimulatorSubmission>();
  for (const job of jobs) if (!first.has(job.clientRef)) first.set(job.clientRef, job);
  const rows = [...first.values()];
  const r = await db.query<{ id: string; client_ref: string }>(
    `INSERT INTO simulator_jobs (id, client_ref, modality, request, outcome, ready_at)
     SELECT id, client_ref, modality, request::jsonb, outcome, ready_at
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[])
       AS x(id, client_ref, modality, request, outcome, ready_at)
     ON CONFLICT (client_ref) DO UPDATE SET client_ref = EXCLUDED.client_ref RETURNING id, client_ref`,
    [
      rows.map((j) => j.id),
      rows.map((j) => j.clientRef),
      rows.map((j) => j.modality),
      rows.map((j) => JSON.stringify({ model: j.upstreamModel })),
      rows.map((j) => j.outcome),
      rows.map((j) => j.readyAt.toISOString()),
    ],
  );
  const ids = new Map(r.rows.map((row) => [row.client_ref, row.id]));
  return jobs.map((j) => ids.get(j.clientRef)!);
}

async function getAll(db: Queryable, ids: string[]): Promise<Array<SimulatedJob | null>> {
  const r = await db.query<Row>('SELECT id, client_ref, outcome, ready_at, canceled_at, created_at FROM simulator_jobs WHERE id = ANY($1::text[])', [[...new Set(ids)]]);
  const byId = new Map(r.rows.map((row) => [row.id, row]));
  return ids.map((id) => {
    const row = byId.get(id);
    return row ? { id: row.id, clientRef: row.client_ref, outcome: row.outcome, readyAt: row.ready_at, canceledAt: row.canceled_at, createdAt: row.created_at } : null;
  });
}
