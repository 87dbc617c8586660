-- Each worker process (serve with a worker, or `mmgen worker`) beats here
-- every few seconds, so any node's /readyz and /metrics know whether
-- somebody is working the queue. A worker that stops cleanly removes its row;
-- one that dies leaves a row whose beat grows old.
CREATE TABLE worker_heartbeats (
  node_id     text PRIMARY KEY,
  started_at  timestamptz NOT NULL DEFAULT now(),
  beat_at     timestamptz NOT NULL DEFAULT now()
);
