-- An automatic payment Stripe still processes (a bank debit may take days) was read back from Stripe on every
-- scheduler pass, and the oldest 50 such payments were the only ones ever read. Each read that finds it unsettled
-- now puts its next one further off (stripe.ts, settleStaleAutoTopups), and the sweep takes the payments most due.
ALTER TABLE billing_payments ADD COLUMN recheck_at timestamptz;
ALTER TABLE billing_payments ADD COLUMN rechecks integer NOT NULL DEFAULT 0;
