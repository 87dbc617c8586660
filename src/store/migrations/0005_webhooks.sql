-- Webhooks and their deliveries. The dispatcher fans each event of the outbox
-- (0004) out to one delivery per matching webhook, then delivers it with
-- retries; every HTTP attempt is kept.

CREATE TABLE webhooks (
  id               text PRIMARY KEY,
  seq              bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id  text NOT NULL REFERENCES organizations (id),
  mode             text NOT NULL CHECK (mode IN ('live', 'test')),
  url              text NOT NULL,
  events           text[] NOT NULL CHECK (cardinality(events) >= 1),
  enabled          boolean NOT NULL DEFAULT true,
  -- Kept in clear: an HMAC needs the key itself to sign. Shown only at creation.
  secret           text NOT NULL UNIQUE,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  deleted_at       timestamptz
);
CREATE INDEX webhooks_org_mode ON webhooks (organization_id, mode, seq DESC) WHERE deleted_at IS NULL;

CREATE TABLE webhook_deliveries (
  id                    text PRIMARY KEY,
  seq                   bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  webhook_id            text NOT NULL REFERENCES webhooks (id),
  event_id              text NOT NULL REFERENCES events (id),
  event_type            text NOT NULL,
  organization_id       text NOT NULL,
  mode                  text NOT NULL CHECK (mode IN ('live', 'test')),
  -- Set on a delivery made by a replay: the delivery it replays.
  replay_of             text REFERENCES webhook_deliveries (id),
  -- pending: no attempt finished yet; failed: an attempt failed and another is
  -- scheduled; succeeded; exhausted: every attempt failed.
  status                text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed', 'exhausted')),
  attempts              int NOT NULL DEFAULT 0,
  -- NULL when nothing is scheduled: finished, or parked because its webhook
  -- was disabled or deleted (re-enabling schedules it again).
  next_attempt_at       timestamptz,
  lease_owner           text,
  lease_expires_at      timestamptz,
  last_response_status  int,
  last_error            text,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
-- Fan-out creates one delivery per webhook and event, however often it runs;
-- replays are further deliveries of the same event, so they are exempt.
CREATE UNIQUE INDEX webhook_deliveries_fanout ON webhook_deliveries (webhook_id, event_id) WHERE replay_of IS NULL;
-- The dispatcher's claim: scheduled deliveries by due time.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, seq DESC);

CREATE TABLE webhook_attempts (
  delivery_id      text NOT NULL REFERENCES webhook_deliveries (id),
  attempt          int NOT NULL,
  started_at       timestamptz NOT NULL,
  duration_ms      int NOT NULL,
  response_status  int,
  error            text,
  PRIMARY KEY (delivery_id, attempt)
);
