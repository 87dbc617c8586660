-- Indexes that no statement reads, dropped: every generation and every event paid for them with an index entry when
-- written and another when updated (a generation's finish is never a HOT update: its status is in index predicates).
-- - generations.seq and events.seq were declared UNIQUE, but an identity column's values are unique by how they are
--   made (GENERATED ALWAYS), and nothing looks a row up by its seq alone: generations are listed through
--   generations_list (organization, mode, seq), events fanned out through events_unfanned (seq).
-- - events_org (organization, mode, seq): no statement lists an organization's events; webhook deliveries reach
--   their event by its id.
ALTER TABLE generations DROP CONSTRAINT IF EXISTS generations_seq_key;
ALTER TABLE events DROP CONSTRAINT IF EXISTS events_seq_key;
DROP INDEX IF EXISTS events_org;
