-- Member budgets (issue 31): a member (users row) has a monthly budget over all
-- of their keys (their dashboard session keys included), with the same action
-- as a key's or the organization's (0016_blocking_budgets.sql).
ALTER TABLE users ADD COLUMN monthly_budget_usd numeric(14, 2);
ALTER TABLE users ADD COLUMN budget_action text NOT NULL DEFAULT 'notify' CHECK (budget_action IN ('notify', 'block'));

-- A member's spend counts their revoked keys too (what they spent this month
-- stays spent), which the partial api_keys_user index leaves out.
CREATE INDEX api_keys_member ON api_keys (user_id, id);

-- A member's budget thresholds, each fired once a month, like a key's (budget_notices).
CREATE TABLE member_budget_notices (
  user_id     text NOT NULL,
  period      text NOT NULL,
  threshold   int NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, period, threshold)
);
