-- Settlements waiting to reach their wallet and usage rollup.
--
-- The statement that finishes a generation writes its ledger rows and one row
-- here instead of updating the organization's wallet and rollup rows: those
-- are one row per organization, and every finishing generation locking them
-- until its commit's WAL flush serialized an organization's traffic. A settler
-- moves pending rows into the wallet and rollups in batches (one statement per
-- organization). A wallet as read is its row plus its pending rows, so it
-- always equals the ledger sums; the credit gate reads the row alone, which is
-- conservative (a pending row only ever frees credits), and a refused
-- reservation settles the organization and tries once more before answering 402.
CREATE TABLE wallet_pending (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organization_id   text NOT NULL,
  balance_delta     bigint NOT NULL,
  held_delta        bigint NOT NULL,
  -- The usage rollup this settlement counts in; the day is the one it finished on.
  mode              text NOT NULL,
  day               date NOT NULL,
  model             text NOT NULL,
  modality          text NOT NULL,
  api_key_id        text NOT NULL,
  generations       bigint NOT NULL,
  charged_credits   bigint NOT NULL,
  refunded_credits  bigint NOT NULL
);
CREATE INDEX wallet_pending_organization ON wallet_pending (organization_id);
