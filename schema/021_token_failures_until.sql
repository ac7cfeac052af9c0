-- 021_token_failures_until: until when some address may be throttled for
-- the token (its count in auth_failures at the limit).  Every request reads
-- its token's row; a request with a secret its worker has proven reads the
-- token's failures too (one statement more) only while this is in the
-- future, so the statement every request runs opens no third table.  Set
-- in the same transaction as a count that reaches the limit, to the end of
-- that count's window or later; never cleared (a time past says the same
-- as NULL).

ALTER TABLE tokens ADD COLUMN IF NOT EXISTS failures_until DATETIME(3) NULL;
