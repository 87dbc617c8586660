-- Usage rollups: one row per organization, mode, UTC day, model and API key,
-- written by the statement that settles each generation (the same one that
-- writes its ledger rows), so usage reads stay fast on millions of ledger rows
-- and always agree with the ledger.

CREATE TABLE usage_rollups (
  organization_id   text NOT NULL,
  mode              text NOT NULL,
  day               date NOT NULL,
  model             text NOT NULL,
  modality          text NOT NULL,
  api_key_id        text NOT NULL,
  generations       bigint NOT NULL DEFAULT 0,
  charged_credits   bigint NOT NULL DEFAULT 0,
  refunded_credits  bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (organization_id, mode, day, model, api_key_id)
);
CREATE INDEX usage_rollups_key_day ON usage_rollups (api_key_id, day);

-- One row per budget threshold crossed, so each fires once per key and month.
CREATE TABLE budget_notices (
  api_key_id  text NOT NULL,
  period      text NOT NULL,
  threshold   int NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (api_key_id, period, threshold)
);

-- The anomaly detector sums the last window's charges across organizations.
CREATE INDEX ledger_charges_recent ON ledger_entries (created_at) WHERE kind = 'charge';
