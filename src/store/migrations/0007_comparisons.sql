-- A comparison: one prompt sent to several models of one modality; its
-- children are generations with comparison_id set.

CREATE TABLE comparisons (
  id                text PRIMARY KEY,
  seq               bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id   text NOT NULL REFERENCES organizations (id),
  api_key_id        text NOT NULL,
  mode              text NOT NULL CHECK (mode IN ('live', 'test')),
  modality          text NOT NULL,
  prompt            text,
  models            text[] NOT NULL,
  params            jsonb NOT NULL,
  status            text NOT NULL CHECK (status IN ('queued', 'running', 'completed')),
  -- Children not yet at their first terminal state; the one that brings it to 0 completes the comparison.
  remaining         int NOT NULL CHECK (remaining >= 0),
  reserved_credits  bigint NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  completed_at      timestamptz
);
CREATE INDEX comparisons_list ON comparisons (organization_id, mode, seq DESC);
CREATE INDEX generations_comparison ON generations (comparison_id) WHERE comparison_id IS NOT NULL;
