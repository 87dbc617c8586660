-- Passkeys (WebAuthn, issue 31): a person's credentials, through @simplewebauthn/server.
-- A passkey belongs to the account (the person), not to one membership: it signs
-- the person in to any organization they belong to, as a password does.

CREATE TABLE passkeys (
  id               text PRIMARY KEY,
  account_id       text NOT NULL REFERENCES accounts (id),
  -- The authenticator's credential id, base64url, as the browser sends it back when signing in.
  credential_id    text NOT NULL UNIQUE,
  -- The COSE public key, base64url (text, so both drivers read it back alike).
  public_key       text NOT NULL,
  -- The signature counter last seen: a sign-in must show a larger one (or 0 forever, for authenticators without one).
  counter          bigint NOT NULL DEFAULT 0,
  transports       text[] NOT NULL DEFAULT '{}',
  device_type      text NOT NULL CHECK (device_type IN ('singleDevice', 'multiDevice')),
  backed_up        boolean NOT NULL,
  aaguid           text,
  name             text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  last_used_at     timestamptz
);
CREATE INDEX passkeys_account ON passkeys (account_id, created_at);

-- A ceremony under way: the challenge mmgen handed out, taken (deleted) by the answer that uses it, so it works once.
-- Registration challenges name the account they were given to; sign-in ones name none (the browser picks the passkey).
CREATE TABLE webauthn_challenges (
  challenge        text PRIMARY KEY,
  purpose          text NOT NULL CHECK (purpose IN ('registration', 'sign_in')),
  account_id       text REFERENCES accounts (id),
  expires_at       timestamptz NOT NULL
);
CREATE INDEX webauthn_challenges_expiry ON webauthn_challenges (expires_at);
