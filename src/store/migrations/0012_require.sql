-- mmgen_require(condition, message): true, or an error with SQLSTATE MM402
-- that rolls the whole statement back. The accepting statement writes the
-- generation, its job and its ledger row first and takes the organization's
-- wallet row last, so that the wallet row (which every accept of the
-- organization needs) is locked for as short a time as possible; when the
-- wallet cannot cover the hold, this undoes what was written before it.
CREATE FUNCTION mmgen_require(condition boolean, message text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF condition THEN
    RETURN true;
  END IF;
  RAISE EXCEPTION USING ERRCODE = 'MM402', MESSAGE = message;
END;
$$;
