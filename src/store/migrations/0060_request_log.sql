-- The request log (issue 33 item 1; docs/contract-addenda.md, "The request log"): one compact row per /v1 call,
-- kept apart from the generations. Rows name the model, key and generation by id (never a copy of a catalog entry);
-- a generation's cost is read from the generation itself when the row is read.
--
-- Partitioned by the day the row expires (its time plus the organization's request log retention when it was
-- written), one partition a day, created when a row first needs it (store/request-log.ts). A partition whose day has
-- passed is dropped whole, which gives its disk back at once, on PostgreSQL and on PGlite: no DELETE, no VACUUM.
-- Columns are ordered widest fixed-size first, so that none is padded.
CREATE TABLE request_log (
  at               timestamptz NOT NULL,
  -- organizations.seq: 8 bytes where the text id takes 29, in the row and in its index.
  organization     bigint NOT NULL,
  expires_on       date NOT NULL,
  latency_us       integer NOT NULL,
  status           smallint NOT NULL,
  live             boolean NOT NULL,
  request_id       text NOT NULL,
  route            text NOT NULL,
  key_id           text,
  model            text,
  generation_id    text,
  error_code       text,
  -- full capture only: the blob key prefix of the request's and response's bodies (payloads/…).
  payload          text
) PARTITION BY RANGE (expires_on);

-- The organization's rows newest first (every list, export and filter walks this within one organization).
CREATE INDEX request_log_org_at ON request_log (organization, at DESC);
-- One request among millions, by its id (X-Request-Id): a hash index keeps 4 bytes of each id where a B-tree
-- keeps all 29, and an id is only ever looked up by equality.
CREATE INDEX request_log_request_id ON request_log USING hash (request_id);

-- What each organization chooses to keep (issue 33 items 2 and 3). No row: the defaults (capture off, request log
-- kept 30 days, generation records and files kept without limit).
CREATE TABLE organization_data_policies (
  organization_id      text PRIMARY KEY REFERENCES organizations(id),
  capture              text NOT NULL DEFAULT 'off' CHECK (capture IN ('off', 'metadata', 'full')),
  redact_fields        text[] NOT NULL DEFAULT '{}',
  redact_patterns      text[] NOT NULL DEFAULT '{}',
  request_log_days     integer NOT NULL DEFAULT 30 CHECK (request_log_days BETWEEN 1 AND 365),
  generation_days      integer CHECK (generation_days BETWEEN 1 AND 3650),
  file_days            integer CHECK (file_days BETWEEN 1 AND 3650),
  updated_at           timestamptz NOT NULL DEFAULT now()
);
