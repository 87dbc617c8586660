-- Audio uploads (issue 18): an avatar's speech given as a file. An audio upload has a length instead of a size in
-- pixels.

ALTER TABLE uploads DROP CONSTRAINT uploads_content_type_check;
ALTER TABLE uploads ADD CONSTRAINT uploads_content_type_check
  CHECK (content_type IN ('image/png', 'image/jpeg', 'image/webp', 'audio/mpeg', 'audio/wav'));
ALTER TABLE uploads ADD COLUMN duration_ms int;
ALTER TABLE uploads DROP CONSTRAINT uploads_complete;
ALTER TABLE uploads ADD CONSTRAINT uploads_complete
  CHECK (status = 'pending' OR (((width IS NOT NULL AND height IS NOT NULL) OR duration_ms IS NOT NULL)
         AND blob_key IS NOT NULL AND sha256 IS NOT NULL AND uploaded_at IS NOT NULL));
