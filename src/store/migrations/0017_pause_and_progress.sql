-- The pause stops work (contract §7): why an organization is paused, for its
-- owner to read, and where the anomaly detector's window starts after an
-- unpause, so the burst that paused it is not judged again.
ALTER TABLE organizations ADD COLUMN pause_reason jsonb;
ALTER TABLE organizations ADD COLUMN spend_window_from timestamptz;

-- A running generation's progress as its provider reports it (contract §5,
-- `event: progress`), written by the runner at most once a second; it travels
-- through the database so that an event stream on any node sees it.
ALTER TABLE generations ADD COLUMN progress jsonb;
