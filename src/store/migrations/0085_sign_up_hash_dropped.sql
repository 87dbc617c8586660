-- A verified sign-up's password hash has been copied to its account and is never read again (sign-ups.ts
-- claimSignUp reads unverified ones only): it is not kept twice. The verification clears it from now on.
ALTER TABLE sign_ups ALTER COLUMN password_hash DROP NOT NULL;
UPDATE sign_ups SET password_hash = NULL WHERE verified_at IS NOT NULL;
