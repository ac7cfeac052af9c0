-- 017_invariant_runs: xborder-worker checks the ledger's invariants
-- continuously (src/db_checks.c, "the recent checks"): once a minute, what
-- changed since its last run.  A row per run: when, what it covered (the
-- ledger entries and webhook events up to the ids it names), what it
-- found.  GET /status and xborderctl status show the last one.

CREATE TABLE IF NOT EXISTS invariant_runs (
  id            BIGINT NOT NULL AUTO_INCREMENT,
  started_at    DATETIME(3) NOT NULL,
  finished_at   DATETIME(3) NOT NULL,
  entry_seen    BIGINT NOT NULL,   -- the newest ledger entry when it started
  entry_upto    BIGINT NOT NULL,   -- entries checked: up to here
  event_seen    BIGINT NOT NULL,   -- the newest webhook event (seq) when it started
  event_upto    BIGINT NOT NULL,   -- events checked: up to here
  examined      BIGINT NOT NULL,   -- entries, accounts and transactions looked at
  problems      INT NOT NULL,
  failing       VARCHAR(255) CHARACTER SET ascii NOT NULL,  -- the checks that failed
  PRIMARY KEY (id)
) ENGINE=InnoDB;

-- Each account's balance at a ledger entry the recent checks reached: the
-- next run checks that the balance now is that plus the entries since.
CREATE TABLE IF NOT EXISTS account_checkpoints (
  account_id  CHAR(36) CHARACTER SET ascii NOT NULL,
  entry_id    BIGINT NOT NULL,
  balance     BIGINT NOT NULL,
  PRIMARY KEY (account_id)
) ENGINE=InnoDB;
