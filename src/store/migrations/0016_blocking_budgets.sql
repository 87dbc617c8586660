-- Blocking budgets (contract §7): a key and an organization each have a
-- monthly budget (dollars, whole cents; null = none) and what passing it does.
ALTER TABLE api_keys ADD COLUMN budget_action text NOT NULL DEFAULT 'notify' CHECK (budget_action IN ('notify', 'block'));
ALTER TABLE organizations ADD COLUMN monthly_budget_usd numeric(14, 2);
ALTER TABLE organizations ADD COLUMN budget_action text NOT NULL DEFAULT 'notify' CHECK (budget_action IN ('notify', 'block'));

-- A month's spend is what was charged this month plus what is held now; the
-- held part is the price of the organization's (or key's) generations still
-- queued or running. Only those rows are indexed, so the index stays as small
-- as the work in flight.
CREATE INDEX generations_holding ON generations (organization_id, api_key_id)
  WHERE status IN ('queued', 'running') AND price_credits > 0;

-- The organization's budget thresholds, each fired once a month, like a key's (budget_notices).
CREATE TABLE organization_budget_notices (
  organization_id  text NOT NULL,
  period           text NOT NULL,
  threshold        int NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, period, threshold)
);
