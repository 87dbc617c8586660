-- Self-serve credits through Stripe (docs/contract-addenda.md, "Buying credits").

-- An organization's Stripe Customer, its saved payment method and its auto top-up.
CREATE TABLE billing_accounts (
  organization_id          text PRIMARY KEY REFERENCES organizations (id),
  stripe_customer_id       text NOT NULL UNIQUE,
  payment_method_id        text,
  auto_topup_enabled       boolean NOT NULL DEFAULT false,
  -- Auto top-up: when available credits fall below the threshold, buy `amount` (smallest currency unit),
  -- never more than `monthly_cap` (same unit) of automatic top-ups in one calendar month (UTC).
  auto_topup_threshold_credits bigint,
  auto_topup_amount        bigint,
  auto_topup_monthly_cap   bigint,
  -- Consecutive failed automatic payments; at the configured number auto top-up stops (auto_topup_enabled false).
  auto_topup_failures      integer NOT NULL DEFAULT 0,
  auto_topup_last_error    text,
  created_at               timestamptz NOT NULL DEFAULT now()
);

-- Every payment, by Checkout or automatic: the record of the Stripe object that paid for credits. A payment is
-- credited in the same transaction that sets credited_at, and its ledger row's reference is unique, so a
-- payment is credited once however its events arrive.
CREATE TABLE billing_payments (
  id                   text PRIMARY KEY,
  seq                  bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id      text NOT NULL REFERENCES organizations (id),
  kind                 text NOT NULL CHECK (kind IN ('checkout', 'auto_topup')),
  checkout_session_id  text UNIQUE,
  payment_intent_id    text UNIQUE,
  charge_id            text UNIQUE,
  amount               bigint NOT NULL CHECK (amount > 0),
  currency             text NOT NULL,
  credits              bigint NOT NULL CHECK (credits > 0),
  status               text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'requires_action', 'canceled')),
  -- The month (YYYY-MM, UTC) an automatic top-up counts against the cap.
  period               text,
  receipt_url          text,
  failure_message      text,
  refunded_amount      bigint NOT NULL DEFAULT 0,
  refunded_credits     bigint NOT NULL DEFAULT 0,
  created_at           timestamptz NOT NULL DEFAULT now(),
  credited_at          timestamptz
);
CREATE INDEX billing_payments_org ON billing_payments (organization_id, seq DESC);
-- At most one automatic payment in flight per organization, whatever node starts it: the database refuses a second.
CREATE UNIQUE INDEX billing_one_auto_topup_in_flight ON billing_payments (organization_id) WHERE kind = 'auto_topup' AND status = 'pending';

-- Refunds and disputes of payments, each moving the ledger once (its reference is the Stripe object's id).
CREATE TABLE billing_adjustments (
  id                 text PRIMARY KEY,
  seq                bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id    text NOT NULL REFERENCES organizations (id),
  payment_id         text NOT NULL REFERENCES billing_payments (id),
  kind               text NOT NULL CHECK (kind IN ('refund', 'dispute')),
  -- re_… for a refund, dp_… for a dispute.
  stripe_id          text NOT NULL UNIQUE,
  amount             bigint NOT NULL,
  credits            bigint NOT NULL,
  -- dispute: open until it closes (won: its credits return; lost: they stay removed).
  status             text NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  closed_at          timestamptz
);
CREATE INDEX billing_adjustments_org ON billing_adjustments (organization_id, seq DESC);

-- A refund or dispute of credits already spent takes the balance below the held credits, even below zero: the
-- CHECK that refused that is replaced by a trigger that refuses what it was there for, a hold beyond the balance.
ALTER TABLE wallets DROP CONSTRAINT wallet_no_overdraft;
CREATE FUNCTION wallet_no_overdraft() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.held_credits > OLD.held_credits AND NEW.held_credits > NEW.balance_credits THEN
    RAISE EXCEPTION 'wallet overdraft: held % > balance %', NEW.held_credits, NEW.balance_credits USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER wallet_no_overdraft BEFORE UPDATE ON wallets FOR EACH ROW EXECUTE FUNCTION wallet_no_overdraft();
