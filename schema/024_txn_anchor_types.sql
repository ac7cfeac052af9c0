-- 024_txn_anchor_types: anchors of GET /transactions?type=... as well.
--
-- A transaction's type never changes, so the position of a row among its
-- platform's rows of one type, counted from the oldest, is as fixed as
-- its position in the whole list (023): xborder-worker records both, and
-- a deep page filtered by type starts at the nearest anchor of its type
-- (src/db_txn_anchors.c).  type is '' for the whole list, else the
-- transactions' type (OUTGOING, INCOMING).  A status changes, so the
-- lists filtered by it have no anchors; nor has a customer's list (its
-- row count is not kept).
ALTER TABLE txn_anchors
  ADD COLUMN IF NOT EXISTS type VARCHAR(8) CHARACTER SET ascii NOT NULL DEFAULT '' AFTER platform_id,
  DROP PRIMARY KEY,
  ADD PRIMARY KEY (platform_id, type, seq);
