-- Generations, their output files, the durable job queue, and the simulator's own upstream store.

CREATE TABLE generations (
  id                text PRIMARY KEY,
  seq               bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id   text NOT NULL REFERENCES organizations (id),
  api_key_id        text NOT NULL,
  mode              text NOT NULL CHECK (mode IN ('live', 'test')),
  modality          text NOT NULL,
  model             text NOT NULL,
  status            text NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'canceled')),
  sync              boolean NOT NULL,
  prompt            text,
  params            jsonb NOT NULL,
  -- What a successful attempt costs at most; the reservation of each attempt.
  price_credits     bigint NOT NULL DEFAULT 0,
  reserved_credits  bigint NOT NULL DEFAULT 0,
  charged_credits   bigint NOT NULL DEFAULT 0,
  refunded_credits  bigint NOT NULL DEFAULT 0,
  cache_hit         boolean NOT NULL DEFAULT false,
  cache_key         text,
  -- 1 for the first submission, +1 per retry; money movements are keyed by (id, attempt).
  attempt           int NOT NULL DEFAULT 1,
  provider          text,
  -- The upstream job of the current attempt, written before mmgen waits on it.
  upstream_id       text,
  -- Upstream jobs of earlier attempts, asked first on a retry (reconciliation).
  upstream_history  jsonb NOT NULL DEFAULT '[]',
  result            jsonb,
  error             jsonb,
  comparison_id     text,
  -- The process that last ran it (operations: which worker did this).
  runner_node       text,
  -- Bumped at every visible change: the id of server-sent events.
  version           int NOT NULL DEFAULT 1,
  created_at        timestamptz NOT NULL DEFAULT now(),
  started_at        timestamptz,
  completed_at      timestamptz
);
CREATE INDEX generations_list ON generations (organization_id, mode, seq DESC);
CREATE INDEX generations_cache ON generations (organization_id, mode, cache_key) WHERE status = 'succeeded' AND cache_key IS NOT NULL;

CREATE TABLE generation_outputs (
  id                 text PRIMARY KEY,
  generation_id      text NOT NULL REFERENCES generations (id),
  position           int NOT NULL,
  type               text NOT NULL,
  mime               text NOT NULL,
  width              int,
  height             int,
  duration_s         text,
  blob_key           text NOT NULL,
  size_bytes         bigint NOT NULL,
  moderation_status  text NOT NULL DEFAULT 'approved',
  created_at         timestamptz NOT NULL DEFAULT now(),
  UNIQUE (generation_id, position)
);

-- A queue row points at a generation; it is written in the same transaction
-- as the generation and deleted in the same transaction that finishes it.
CREATE TABLE jobs (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  generation_id     text NOT NULL UNIQUE REFERENCES generations (id),
  run_at            timestamptz NOT NULL DEFAULT now(),
  lease_owner       text,
  lease_expires_at  timestamptz,
  claims            int NOT NULL DEFAULT 0,
  created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX jobs_due ON jobs (run_at);

-- The built-in simulator is an upstream provider like any other; its jobs
-- live here so that they outlive an mmgen crash, as a real provider's would.
CREATE TABLE simulator_jobs (
  id           text PRIMARY KEY,
  client_ref   text NOT NULL UNIQUE,
  modality     text NOT NULL,
  request      jsonb NOT NULL,
  outcome      text NOT NULL,
  ready_at     timestamptz NOT NULL,
  canceled_at  timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now()
);
