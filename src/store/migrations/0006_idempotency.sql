-- Idempotency keys (contract §8): one row per (API key, Idempotency-Key).
-- Inserting the row is the claim, so of two concurrent requests with one key
-- exactly one executes; the row then keeps the response for replays.

CREATE TABLE idempotency_keys (
  api_key_id        text NOT NULL,
  idempotency_key   text NOT NULL,
  method            text NOT NULL,
  path              text NOT NULL,
  -- SHA-256 of the canonical JSON of the request body (keys sorted).
  request_sha256    text NOT NULL,
  state             text NOT NULL CHECK (state IN ('in_flight', 'completed')),
  -- The request that holds (or held) the claim; only it may complete or release the row.
  request_id        text NOT NULL,
  response_status   integer,
  response_headers  jsonb,
  response_body     text,
  -- Renewed while the request runs, so a claim left by a crashed process can be taken over.
  locked_at         timestamptz NOT NULL DEFAULT now(),
  created_at        timestamptz NOT NULL DEFAULT now(),
  completed_at      timestamptz,
  expires_at        timestamptz NOT NULL DEFAULT now() + interval '24 hours',
  PRIMARY KEY (api_key_id, idempotency_key),
  CONSTRAINT idempotency_completed_has_response CHECK (state = 'in_flight' OR response_status IS NOT NULL)
);
CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at);
