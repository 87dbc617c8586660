-- The event outbox: every event is one row, written in the same statement or
-- transaction as the state change that causes it. The webhook dispatcher fans
-- each event out to the matching webhooks' deliveries.

CREATE TABLE events (
  id               text PRIMARY KEY,
  seq              bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id  text NOT NULL REFERENCES organizations (id),
  mode             text NOT NULL CHECK (mode IN ('live', 'test')),
  type             text NOT NULL,
  data             jsonb NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  -- Set once the dispatcher has created this event's deliveries.
  fanned_out_at    timestamptz
);
CREATE INDEX events_unfanned ON events (seq) WHERE fanned_out_at IS NULL;
CREATE INDEX events_org ON events (organization_id, mode, seq DESC);
