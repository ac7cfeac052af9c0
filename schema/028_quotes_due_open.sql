-- 028_quotes_due_open: the worker's sweep of quotes past their expiry
-- (src/db_quotes.c, db_quote_due) asks for the open quotes (executed_at
-- IS NULL) of either open status whose expiry passed.  An executed quote
-- keeps its status, so on (status, expires_at) that read every quote
-- ever executed, each sweep; with executed_at between, the due ones.
ALTER TABLE quotes
  ADD KEY IF NOT EXISTS ix_quotes_due_open (status, executed_at, expires_at),
  DROP KEY IF EXISTS ix_quotes_due;
