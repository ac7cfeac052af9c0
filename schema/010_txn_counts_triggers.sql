-- 010_txn_counts_triggers: txn_counts (009) kept by the database itself.
-- Until now src/db_transactions.c sent one statement after every insert
-- and status change of a transaction to count it; these triggers do the
-- same inside that statement, so every write of a transaction is one
-- round trip fewer, and a change made by hand in SQL is counted too.
-- The shard is the one the session names (@xb_count_shard: each
-- xborder-fcgi worker its slot's, xborder-worker the last, src/db.c), else
-- the connection's (CONNECTION_ID() % 16), so concurrent transfers of one
-- platform seldom wait on one counter row, and a settlement batch, which
-- holds its counter rows until it commits, never holds a payout's.  A
-- change of status adds +1 and -1 in one statement, its rows in key
-- order, so two changes cannot wait on each other's counter rows.
-- xborderctl ledger-check compares the sums with the transactions.  Stop
-- xborder-fcgi and xborder-worker while this applies (README): a process
-- of an older build counts too.

CREATE TRIGGER IF NOT EXISTS txn_counts_insert AFTER INSERT ON transactions
FOR EACH ROW
INSERT INTO txn_counts (platform_id, status, type, shard, n)
VALUES (NEW.platform_id, NEW.status, NEW.type, COALESCE(@xb_count_shard, CONNECTION_ID() % 16), 1)
ON DUPLICATE KEY UPDATE n = n + 1;

CREATE TRIGGER IF NOT EXISTS txn_counts_update AFTER UPDATE ON transactions
FOR EACH ROW
INSERT INTO txn_counts (platform_id, status, type, shard, n)
SELECT c.p, c.s, c.t, COALESCE(@xb_count_shard, CONNECTION_ID() % 16), c.d FROM (
  SELECT NEW.platform_id AS p, NEW.status AS s, NEW.type AS t, 1 AS d
  UNION ALL SELECT OLD.platform_id, OLD.status, OLD.type, -1) c
WHERE NOT (NEW.platform_id <=> OLD.platform_id AND NEW.status <=> OLD.status
  AND NEW.type <=> OLD.type)
ORDER BY c.p, c.s, c.t
ON DUPLICATE KEY UPDATE n = n + VALUES(n);

CREATE TRIGGER IF NOT EXISTS txn_counts_delete AFTER DELETE ON transactions
FOR EACH ROW
INSERT INTO txn_counts (platform_id, status, type, shard, n)
VALUES (OLD.platform_id, OLD.status, OLD.type, COALESCE(@xb_count_shard, CONNECTION_ID() % 16), -1)
ON DUPLICATE KEY UPDATE n = n - 1;

-- The counts from the rows, once more: exact, with nothing running.
DELETE FROM txn_counts;

INSERT INTO txn_counts (platform_id, status, type, shard, n)
SELECT platform_id, status, type, 0, COUNT(*) FROM transactions
GROUP BY platform_id, status, type;
