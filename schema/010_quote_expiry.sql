-- 010_quote_expiry: a quote's transaction carries the quote's expiry.
--
-- GET /transactions/{id} reads the token and the transaction in one
-- statement and must notice when the transaction's quote is past its
-- expiry (the reader expires it).  It used to join the quote for that;
-- with the expiry on the transaction's own row, the statement opens two
-- tables instead of four.  Written once, by the INSERT that makes the
-- quote's transaction (src/db_quotes.c, create_tx), and never changed: a
-- quote's expires_at is never changed either.  A quote's transaction is
-- CREATED exactly while the quote is open (QUOTE_READY or BLOCKED and not
-- executed): executing it and expiring it change both in one database
-- transaction.  So "status = 'CREATED' AND quote_expires_at <= now" on the
-- transaction is the quote's own "open and past its expiry".  NULL for
-- every other transaction.  xborderctl ledger-check compares it with the
-- quotes.
ALTER TABLE transactions ADD COLUMN IF NOT EXISTS quote_expires_at DATETIME(3) NULL;

UPDATE transactions x JOIN quotes q ON q.transaction_id = x.id
SET x.quote_expires_at = q.expires_at
WHERE x.quote_expires_at IS NULL;
