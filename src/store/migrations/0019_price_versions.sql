-- Price versions (issue 28 item 4; docs/contract-addenda.md, "Price versions"): each generation records the
-- version of its model's prices that priced it (billing/pricing.ts, priceVersion: a digest of the catalog price,
-- margin, routes and their records' prices), set when it is reserved and again by the statement that charges it.
-- A later price change makes a new version; what was charged before keeps naming the old one. Usage is rolled up
-- per version too, so GET /v1/usage?group_by=price_version splits spending by the prices it was charged at.
-- Generations from before this migration have none (NULL; '' in the rollups).
ALTER TABLE generations ADD COLUMN price_version text;
ALTER TABLE wallet_pending ADD COLUMN price_version text NOT NULL DEFAULT '';
ALTER TABLE usage_rollups ADD COLUMN price_version text NOT NULL DEFAULT '';
ALTER TABLE usage_rollups DROP CONSTRAINT usage_rollups_pkey;
ALTER TABLE usage_rollups ADD PRIMARY KEY (organization_id, mode, day, model, api_key_id, price_version);
