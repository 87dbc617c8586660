-- Retention of generations' prompts and files (issue 33 item 3; docs/contract-addenda.md, "Retention of generations").
-- A generation is never deleted: usage, the ledger and the request log name it. Past the organization's
-- `generation_days` its record is reduced (prompt and the request's free text removed), past `file_days` its input
-- and output files are deleted from the blob store; each step is stamped, so a sweep finds only what is left to do
-- and a URL of an expired file answers 410 `file_expired`.
ALTER TABLE generations ADD COLUMN prompt_expired_at timestamptz;
ALTER TABLE generations ADD COLUMN files_expired_at timestamptz;
ALTER TABLE uploads ADD COLUMN file_expired_at timestamptz;
-- A comparison keeps its one prompt too; it is reduced with its children.
ALTER TABLE comparisons ADD COLUMN prompt_expired_at timestamptz;

-- The sweeps walk an organization's oldest not-yet-expired rows; each index holds only those, so it shrinks as they
-- expire and a sweep's batch is an index range scan whatever the organization's history.
CREATE INDEX generations_prompt_kept ON generations (organization_id, created_at) WHERE prompt_expired_at IS NULL;
CREATE INDEX generations_files_kept ON generations (organization_id, created_at) WHERE files_expired_at IS NULL;
CREATE INDEX comparisons_prompt_kept ON comparisons (organization_id, created_at) WHERE prompt_expired_at IS NULL;
CREATE INDEX uploads_file_kept ON uploads (organization_id, created_at) WHERE file_expired_at IS NULL;
