-- 026_txn_anchor_customers: anchors of GET /transactions?customerId=...
-- as well.
--
-- A transaction's customer never changes and a new one is the newest, so
-- the position of a row among its customer's rows, counted from the
-- oldest, is as fixed as its position in the whole list (023), and the
-- customer's row count is kept (txn_customer_counts, 025): xborder-worker
-- records anchors of each customer's list too, and a deep page filtered
-- by customerId starts at the nearest (src/db_txn_anchors.c).
-- customer_id is '' for the whole list and the lists of a type, else the
-- customer's (type then '').
ALTER TABLE txn_anchors
  ADD COLUMN IF NOT EXISTS customer_id CHAR(36) CHARACTER SET ascii NOT NULL DEFAULT '' AFTER type,
  DROP PRIMARY KEY,
  ADD PRIMARY KEY (platform_id, type, customer_id, seq);
