-- The audit log (issue 31 item 4; docs/contract-addenda.md, "The audit log"): who did what, including money.
-- Append-only, one hash chain per organization (chain = the organization's id) and one for the installation's own
-- changes (chain = 'installation': the operator's catalog). Each row stores the previous row's hash and its own,
-- a SHA-256 over the row's canonical serialization (domain/audit.ts auditHash). `mmgen audit verify` walks every
-- chain and reports the first entry that was changed or deleted.

-- The head of each chain: its last seq and hash. A writer locks this row (store/audit.ts lockChainHead) in the
-- transaction of the change it records, so concurrent writers of one chain take turns and never fork it; the
-- head also tells verify that entries were deleted from the end.
CREATE TABLE audit_chains (
  chain      text PRIMARY KEY,
  last_seq   bigint NOT NULL,
  last_hash  text NOT NULL
);

CREATE TABLE audit_events (
  id               text PRIMARY KEY,
  chain            text NOT NULL,
  seq              bigint NOT NULL,
  -- NULL: an installation-wide change (chain 'installation').
  organization_id  text REFERENCES organizations (id),
  at               timestamptz NOT NULL,
  -- NULL: a change of the whole organization (its settings, wallet); else the mode of the keys or webhooks changed.
  mode             text CHECK (mode IN ('live', 'test')),
  actor_type       text NOT NULL CHECK (actor_type IN ('member', 'api_key', 'operator', 'system')),
  actor_id         text NOT NULL,
  -- The member an API key belongs to (actor_type api_key); the member itself for actor_type member.
  actor_user_id    text,
  client_address   text,
  request_id       text,
  action           text NOT NULL,
  target_type      text NOT NULL,
  target_id        text NOT NULL,
  before           jsonb,
  after            jsonb,
  prev_hash        text NOT NULL,
  hash             text NOT NULL,
  CONSTRAINT audit_chain_seq UNIQUE (chain, seq)
);
CREATE INDEX audit_events_org_at ON audit_events (organization_id, at);

CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only';
END;
$$;
CREATE TRIGGER audit_events_no_change BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();
