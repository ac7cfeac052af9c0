-- 023_txn_anchors: where GET /transactions' deep pages start.
--
-- A cursor is a decimal offset, newest first, so the page at offset k of
-- the unfiltered list walked k entries of ix_transactions_list.  A
-- transaction never leaves the list and a new one is the newest, so the
-- position of a row counted from the oldest (seq, 0 the oldest) never
-- changes once every older row is committed.  xborder-worker records the
-- row at every list_anchor_step-th position of a platform, only among rows
-- older than list_anchor_delay (xborder.conf(5)), and a deep page starts its
-- walk at the nearest anchor at or above it (src/db_txn_lists.c): at most
-- list_anchor_step entries, wherever the page is.  A row written into the
-- past by hand (not by the service) moves the positions after it: delete
-- the platform's anchors then (bench/run does after seeding).
CREATE TABLE IF NOT EXISTS txn_anchors (
  platform_id  CHAR(36) CHARACTER SET ascii NOT NULL,
  seq          BIGINT NOT NULL,
  created_at   DATETIME(3) NOT NULL,
  id           CHAR(36) CHARACTER SET ascii NOT NULL,
  PRIMARY KEY (platform_id, seq)
) ENGINE=InnoDB;
