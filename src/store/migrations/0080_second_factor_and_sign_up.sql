-- A passkey after the password (issue 31): a person who turned it on signs in with
-- their password, then one of their passkeys; between the two, the password's
-- proof waits in sign_in_pending under a single-use token the browser holds in
-- an HttpOnly cookie (only its SHA-256 is kept here).
ALTER TABLE accounts ADD COLUMN passkey_after_password boolean NOT NULL DEFAULT false;

ALTER TABLE webauthn_challenges DROP CONSTRAINT webauthn_challenges_purpose_check;
ALTER TABLE webauthn_challenges ADD CONSTRAINT webauthn_challenges_purpose_check
  CHECK (purpose IN ('registration', 'sign_in', 'second_factor'));

CREATE TABLE sign_in_pending (
  token_sha256     text PRIMARY KEY,
  account_id       text NOT NULL REFERENCES accounts (id),
  -- What the password sign-in asked for, applied when the passkey completes it.
  organization_id  text,
  mode             text CHECK (mode IN ('live', 'test')),
  expires_at       timestamptz NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sign_in_pending_expiry ON sign_in_pending (expires_at);

-- Self sign-up (MMGEN_SIGNUP=on): an email and an argon2id password hash wait
-- here until the link mailed to the email is followed; following it creates the
-- account and its organization. The token is kept as its SHA-256 only.
CREATE TABLE sign_ups (
  id               text PRIMARY KEY,
  email            text NOT NULL,
  email_key        text NOT NULL,
  password_hash    text NOT NULL,
  token_sha256     text NOT NULL UNIQUE,
  created_at       timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL,
  verified_at      timestamptz,
  account_id       text REFERENCES accounts (id)
);
CREATE INDEX sign_ups_email ON sign_ups (email_key);
CREATE INDEX sign_ups_expiry ON sign_ups (expires_at) WHERE verified_at IS NULL;
