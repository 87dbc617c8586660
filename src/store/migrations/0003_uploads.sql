-- Uploads: a row per presigned PUT target; the bytes live in the blob store.

CREATE TABLE uploads (
  id               text PRIMARY KEY,
  seq              bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id  text NOT NULL REFERENCES organizations (id),
  api_key_id       text NOT NULL,
  mode             text NOT NULL CHECK (mode IN ('live', 'test')),
  content_type     text NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg', 'image/webp')),
  -- Declared at creation; replaced by the size actually received.
  size_bytes       bigint NOT NULL CHECK (size_bytes > 0),
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'uploaded')),
  width            int,
  height           int,
  blob_key         text,
  -- Of the received bytes: a repeated PUT of the same file is an idempotent success, another file a conflict.
  sha256           text,
  -- When the upload URL stops working; the uploaded file itself is kept.
  expires_at       timestamptz NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  uploaded_at      timestamptz,
  CONSTRAINT uploads_complete CHECK (status = 'pending' OR (width IS NOT NULL AND height IS NOT NULL AND blob_key IS NOT NULL AND sha256 IS NOT NULL AND uploaded_at IS NOT NULL))
);
CREATE INDEX uploads_org_mode ON uploads (organization_id, mode, seq DESC);
