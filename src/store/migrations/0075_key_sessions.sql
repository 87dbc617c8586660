-- A dashboard session opened with an API key (issue 31: the dashboard never
-- stores a key). The key is exchanged once for a session like a person's
-- (HttpOnly cookie, CSRF token, idle and absolute timeouts); the session holds
-- no secret of the key, only its id, and acts as that key on every request:
-- its revocation, its role (and its member's) and its member's removal are
-- read from the key's row each time. Such a session has no account.
ALTER TABLE sessions ADD COLUMN api_key_id text REFERENCES api_keys (id);
ALTER TABLE sessions ALTER COLUMN account_id DROP NOT NULL;
ALTER TABLE sessions ADD CONSTRAINT sessions_one_holder CHECK ((account_id IS NULL) <> (api_key_id IS NULL));
CREATE INDEX sessions_api_key ON sessions (api_key_id, created_at DESC) WHERE api_key_id IS NOT NULL;
