-- 025_txn_customer_counts: how many transactions each customer has, so
-- that GET /transactions?customerId=...'s totalCount does not count rows
-- (it counted every one of the customer's index entries, on each page
-- not kept: 40 ms for a customer of 100,000 transactions).
--
-- A transaction's customer never changes and no transaction is deleted,
-- so a customer's count only grows, by one with each transaction made for
-- it.  Kept by src/db_transactions.c in the same database transaction as
-- the insert, like txn_counts (009): a new transaction adds to one of 16
-- rows (shard, the same as its txn_counts row's), so concurrent payments
-- of one customer do not wait on one row; the count is the sum.  A list
-- filtered by customerId alone reads it (src/db_txn_lists.c).
-- xborderctl ledger-check compares it with the transactions (check
-- customer-counts).
CREATE TABLE IF NOT EXISTS txn_customer_counts (
  platform_id  CHAR(36) CHARACTER SET ascii NOT NULL,
  customer_id  CHAR(36) CHARACTER SET ascii NOT NULL,
  shard        TINYINT UNSIGNED NOT NULL,
  n            BIGINT NOT NULL,
  PRIMARY KEY (platform_id, customer_id, shard)
) ENGINE=InnoDB;

INSERT INTO txn_customer_counts (platform_id, customer_id, shard, n)
SELECT platform_id, customer_id, 0, COUNT(*) FROM transactions
WHERE customer_id IS NOT NULL
GROUP BY platform_id, customer_id
ON DUPLICATE KEY UPDATE n = VALUES(n);
