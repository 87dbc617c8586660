-- A leased job's run_at now moves with its lease (claim and heartbeat set both),
-- so the claim's scan of jobs_due sees only jobs that are due, never the ones
-- running. Jobs leased before this migration get the same shape.
UPDATE jobs SET run_at = lease_expires_at WHERE lease_expires_at IS NOT NULL AND lease_expires_at > run_at;
