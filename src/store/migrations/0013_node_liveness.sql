-- Every mmgen process (API node or worker) beats here every few seconds
-- (src/node-liveness.ts). A node whose beat is old, or who has no row, is dead:
-- its Idempotency-Key claims are orphans at once, answered from what they
-- accepted, and the jobs it leased are handed back without waiting out the lease.
CREATE TABLE node_heartbeats (
  node_id     text PRIMARY KEY,
  started_at  timestamptz NOT NULL DEFAULT now(),
  beat_at     timestamptz NOT NULL DEFAULT now()
);

-- The node whose request holds an in-flight claim, and what that request
-- accepted (a generation or a comparison), written in the accepting
-- transaction itself: the key and its effect are one fact.
ALTER TABLE idempotency_keys ADD COLUMN node_id text;
ALTER TABLE idempotency_keys ADD COLUMN resource_id text;
