-- People (issue 31): an account is a person who signs in; a `users` row is that
-- person's membership of one organization (its role), which is what keys
-- belong to. A membership without an account is the first-start owner, whose
-- keys exist before anyone has signed in.

CREATE TABLE accounts (
  id              text PRIMARY KEY,
  -- As the person wrote it; email_key (lower-cased) is what is unique and looked up.
  email           text NOT NULL,
  email_key       text NOT NULL UNIQUE,
  name            text,
  -- argon2id (PHC string); null: the account signs in only by single sign-on or a passkey.
  password_hash   text,
  created_at      timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE users ADD COLUMN account_id text REFERENCES accounts (id);
ALTER TABLE users ADD COLUMN removed_at timestamptz;
-- One live membership per person and organization.
CREATE UNIQUE INDEX users_account_org ON users (account_id, organization_id) WHERE removed_at IS NULL AND account_id IS NOT NULL;
CREATE INDEX users_account ON users (account_id);

-- A dashboard session's key: one per membership and mode, whose secret nobody
-- holds. A signed-in person's requests run as it, so everything keyed by a key
-- (generations, usage, budgets, rate limits, fingerprints) works for sessions unchanged.
ALTER TABLE api_keys ADD COLUMN session boolean NOT NULL DEFAULT false;
CREATE UNIQUE INDEX api_keys_session ON api_keys (user_id, mode) WHERE session AND revoked_at IS NULL;
CREATE INDEX api_keys_user ON api_keys (user_id) WHERE revoked_at IS NULL;

CREATE TABLE sessions (
  id               text PRIMARY KEY,
  token_sha256     text NOT NULL UNIQUE,
  -- Sent back in X-CSRF-Token on every state-changing request (and readable by the dashboard from a cookie).
  csrf_token       text NOT NULL,
  account_id       text NOT NULL REFERENCES accounts (id),
  -- The membership the session acts as now (switchable among the person's organizations).
  user_id          text NOT NULL REFERENCES users (id),
  mode             text NOT NULL CHECK (mode IN ('live', 'test')),
  -- How the person signed in: password, passkey, sso, invitation (accepting one signs in).
  method           text NOT NULL,
  ip               text,
  user_agent       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  last_seen_at     timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL,
  revoked_at       timestamptz
);
CREATE INDEX sessions_account ON sessions (account_id, created_at DESC);

CREATE TABLE invitations (
  id               text PRIMARY KEY,
  seq              bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id  text NOT NULL REFERENCES organizations (id),
  -- Null: anyone holding the link (the first-start owner link).
  email            text,
  role             text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'viewer')),
  token_sha256     text NOT NULL UNIQUE,
  -- The membership that invited; null for the first-start link, which mmgen made.
  invited_by       text REFERENCES users (id),
  -- Set: accepting attaches the account to this existing membership (the first-start owner's) instead of a new one.
  member_id        text REFERENCES users (id),
  created_at       timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL,
  accepted_at      timestamptz,
  accepted_by      text REFERENCES users (id),
  revoked_at       timestamptz
);
CREATE INDEX invitations_org ON invitations (organization_id, seq DESC);

-- Single sign-on (OpenID Connect), one connection per organization.
CREATE TABLE sso_connections (
  organization_id    text PRIMARY KEY REFERENCES organizations (id),
  issuer             text NOT NULL,
  client_id          text NOT NULL,
  client_secret      text,
  -- Email domains whose people join on their first sign-in, at auto_join_role.
  auto_join_domains  text[] NOT NULL DEFAULT '{}',
  auto_join_role     text NOT NULL DEFAULT 'viewer' CHECK (auto_join_role IN ('admin', 'developer', 'viewer')),
  -- Everyone but the break-glass owner must sign in through the issuer.
  require_sso        boolean NOT NULL DEFAULT false,
  break_glass_user   text REFERENCES users (id),
  updated_at         timestamptz NOT NULL DEFAULT now()
);

-- A person's identity at an issuer (its `sub`), so a changed email still finds the account.
CREATE TABLE account_identities (
  issuer      text NOT NULL,
  subject     text NOT NULL,
  account_id  text NOT NULL REFERENCES accounts (id),
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (issuer, subject)
);

-- A sign-in through an issuer under way: what the callback must find (state, PKCE verifier, nonce).
CREATE TABLE sso_flows (
  state            text PRIMARY KEY,
  organization_id  text NOT NULL REFERENCES organizations (id),
  code_verifier    text NOT NULL,
  nonce            text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now()
);
