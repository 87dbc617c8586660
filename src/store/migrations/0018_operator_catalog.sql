-- The operator's changes to the catalog (issue 28): the shipped catalog stays in the repository and is the
-- default; these rows are laid over it. Every write bumps catalog_state.version in its transaction, and every
-- node rebuilds its catalog when it sees the version move (a poll of one row), so a change reaches every node
-- without a restart.
CREATE TABLE catalog_state (
  id              int PRIMARY KEY CHECK (id = 1),
  version         bigint NOT NULL DEFAULT 0,
  -- The margin over the upstream price for every model without its own, in percent; null: none.
  margin_percent  numeric CHECK (margin_percent >= 0)
);
INSERT INTO catalog_state (id, version) VALUES (1, 0);

-- A model's overlay: a full definition (an edited shipped model, or one the operator added), its disabled flag
-- and its own margin. A row with no definition only disables or prices a shipped model.
CREATE TABLE catalog_models (
  slug            text PRIMARY KEY,
  definition      jsonb,
  disabled        boolean NOT NULL DEFAULT false,
  margin_percent  numeric CHECK (margin_percent >= 0),
  updated_at      timestamptz NOT NULL DEFAULT now()
);

-- The upstream record (docs/upstream-models.md) of a model the operator added, or one that replaces a shipped record.
CREATE TABLE catalog_records (
  provider    text NOT NULL,
  upstream    text NOT NULL,
  record      jsonb NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, upstream)
);

-- Which models an organization may use: only those listed (allow) or all but those listed (deny); no row: all.
CREATE TABLE organization_model_access (
  organization_id  text PRIMARY KEY REFERENCES organizations (id),
  mode             text NOT NULL CHECK (mode IN ('allow', 'deny')),
  models           text[] NOT NULL,
  updated_at       timestamptz NOT NULL DEFAULT now()
);

-- Who changed what in the catalog, when, and the value before and after.
CREATE TABLE catalog_audit (
  id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at      timestamptz NOT NULL DEFAULT now(),
  actor   text NOT NULL,
  action  text NOT NULL,
  target  text NOT NULL,
  before  jsonb,
  after   jsonb
);
