-- Foundation: organizations, users, API keys, wallets and the credit ledger.

CREATE TABLE organizations (
  id          text PRIMARY KEY,
  seq         bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  name        text NOT NULL,
  plan        text NOT NULL CHECK (plan IN ('free', 'pro', 'studio', 'team')),
  enterprise  boolean NOT NULL DEFAULT false,
  paused      boolean NOT NULL DEFAULT false,
  paused_at   timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id               text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id),
  role             text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'viewer')),
  name             text,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX users_org ON users (organization_id);

CREATE TABLE api_keys (
  id                  text PRIMARY KEY,
  seq                 bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id     text NOT NULL REFERENCES organizations (id),
  user_id             text NOT NULL REFERENCES users (id),
  name                text NOT NULL,
  mode                text NOT NULL CHECK (mode IN ('live', 'test')),
  role                text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'viewer')),
  scopes              text[] NOT NULL DEFAULT '{}',
  ip_allowlist        text[] NOT NULL DEFAULT '{}',
  -- Dollars with cents; budgets only notify, so exactness to the cent is enough.
  monthly_budget_usd  numeric(14, 2),
  prefix              text NOT NULL,
  secret_sha256       text NOT NULL UNIQUE,
  created_at          timestamptz NOT NULL DEFAULT now(),
  last_used_at        timestamptz,
  revoked_at          timestamptz
);
CREATE INDEX api_keys_org_mode ON api_keys (organization_id, mode, seq DESC);

CREATE TABLE wallets (
  organization_id  text PRIMARY KEY REFERENCES organizations (id),
  balance_credits  bigint NOT NULL DEFAULT 0,
  held_credits     bigint NOT NULL DEFAULT 0,
  updated_at       timestamptz NOT NULL DEFAULT now(),
  -- The database itself refuses an overdraft, whatever the code above it does.
  CONSTRAINT wallet_held_nonnegative CHECK (held_credits >= 0),
  CONSTRAINT wallet_no_overdraft CHECK (held_credits <= balance_credits)
);

-- Append-only: every movement of a wallet is one row; a wallet's balance and
-- held credits always equal the sums of balance_delta and held_delta.
CREATE TABLE ledger_entries (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id),
  kind             text NOT NULL CHECK (kind IN ('topup', 'reserve', 'charge', 'release', 'adjustment')),
  balance_delta    bigint NOT NULL,
  held_delta       bigint NOT NULL,
  -- What the movement is for: a generation (with its attempt), a top-up, …
  -- Unique per kind so that a retried step can never write the same movement twice.
  reference        text NOT NULL,
  generation_id    text,
  api_key_id       text,
  model            text,
  modality         text,
  note             text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT ledger_once UNIQUE (kind, reference)
);
CREATE INDEX ledger_org_created ON ledger_entries (organization_id, created_at);

CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger_entries is append-only';
END;
$$;
CREATE TRIGGER ledger_no_update BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_append_only();

-- Process-wide settings that must survive restarts (e.g. the URL-signing secret).
CREATE TABLE settings (
  name   text PRIMARY KEY,
  value  text NOT NULL
);
