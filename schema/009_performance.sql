-- 009_performance: what the request path needs to stay fast at scale.

-- A configuration's version, incremented by every change in the same
-- transaction: the token lookup reads it, and a worker serves the
-- configuration from its cache while the version it holds is current.
ALTER TABLE platform_configs ADD COLUMN IF NOT EXISTS version BIGINT NOT NULL DEFAULT 1;

-- How many transactions a platform has per status and type, so that a
-- list's totalCount does not count rows.  Kept by src/db_transactions.c in
-- the same database transaction as every insert and status change; a
-- change adds to one of 16 rows (shard) chosen at random, so concurrent
-- transfers of one platform do not wait on one counter row.  A count is
-- the sum over shards.  xborderctl ledger-check compares the sums with
-- the transactions.
CREATE TABLE IF NOT EXISTS txn_counts (
  platform_id  CHAR(36) CHARACTER SET ascii NOT NULL,
  status       VARCHAR(16) CHARACTER SET ascii NOT NULL,
  type         VARCHAR(8) CHARACTER SET ascii NOT NULL,
  shard        TINYINT UNSIGNED NOT NULL,
  n            BIGINT NOT NULL,
  PRIMARY KEY (platform_id, status, type, shard)
) ENGINE=InnoDB;

INSERT INTO txn_counts (platform_id, status, type, shard, n)
SELECT platform_id, status, type, 0, COUNT(*) FROM transactions
GROUP BY platform_id, status, type
ON DUPLICATE KEY UPDATE n = VALUES(n);

-- Which of the platform's in-transit accounts of the currency holds the
-- transaction's money (src/ledger.c, ledger_transit_shard).  0 is the
-- account every transaction used before this migration.
ALTER TABLE transactions ADD COLUMN IF NOT EXISTS transit_shard TINYINT UNSIGNED NOT NULL DEFAULT 0;

-- Indexes for the filters of GET /transactions that had none, so that
-- every list query walks an index in its order (no filesort).
ALTER TABLE transactions
  ADD KEY IF NOT EXISTS ix_transactions_type (platform_id, type, created_at, id),
  ADD KEY IF NOT EXISTS ix_transactions_pcid (platform_id, platform_customer_id, created_at, id);

-- The token lookup asks when the platform's first open quote expires
-- (src/db_tokens.c); this answers it with one look into the index per
-- status, whatever number of executed quotes the platform has.
ALTER TABLE quotes
  ADD KEY IF NOT EXISTS ix_quotes_open_due (platform_id, status, executed_at, expires_at);
