-- 018_invariant_bounds: what keeps xborder-worker's recent invariant
-- checks (src/db_checks.c) cheap and bounded.
--
-- The account index of ledger_entries carries each entry's amount, so
-- that the sum of an account's entries after a given one ("balances": a
-- checkpoint plus the entries since) reads the index alone instead of a
-- row of the table per entry.  InnoDB builds it in place while writes go
-- on.

ALTER TABLE ledger_entries
  DROP KEY IF EXISTS ix_ledger_account,
  ADD KEY ix_ledger_account (account_id, id, amount);

-- Where the recent checks of idempotency records reached, by expires_at
-- (24 hours after a record was made): each run covers a bounded window
-- after it, as it covers a bounded range of entries and events.
ALTER TABLE invariant_runs
  ADD COLUMN IF NOT EXISTS idem_upto DATETIME(3) NULL AFTER event_upto;
