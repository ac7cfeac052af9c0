-- 016_ledger_entries_txn: each ledger entry names the transaction whose
-- move it is (NULL for money of none, such as sandbox funding), so that
-- xborderctl ledger-check can hold each transaction's entries to what its
-- kind and status imply.  Entries written before this migration name none
-- (their transactions are checked only from the time it was applied, in
-- schema_migrations).  Every statement can run again after a failure.

ALTER TABLE ledger_entries
  ADD COLUMN IF NOT EXISTS transaction_id CHAR(36) CHARACTER SET ascii NULL AFTER posting_id,
  ADD KEY IF NOT EXISTS ix_ledger_txn (transaction_id);

-- Each platform's accounts balance on their own (xborderctl ledger-check,
-- "platform sums"): a quote's fee for another receiving platform now
-- leaves the sending platform through its SANDBOX account and comes in
-- through the receiving platform's (src/txn_postings.c).  Quotes executed
-- before this migration credited that fee with no debit on the receiving
-- side; for each whose sending side stands (PROCESSING or COMPLETED: a
-- failed or returned one was reversed whole) this posts the fee from the
-- receiving platform's SANDBOX account to the sending platform's, in the
-- sending currency, as one posting per quote (its posting_id is the
-- transaction's id).  Apply it with xborder-worker stopped.

-- The receiving platforms' SANDBOX accounts those postings need, where
-- missing (ids are UUIDv4).
INSERT INTO internal_accounts (id, platform_id, customer_id, owner, kind, currency,
  balance, created_at, updated_at)
SELECT LOWER(CONCAT(HEX(RANDOM_BYTES(4)), '-', HEX(RANDOM_BYTES(2)), '-4',
    SUBSTR(HEX(RANDOM_BYTES(2)), 2), '-', SUBSTR('89ab', 1 + FLOOR(RAND() * 4), 1),
    SUBSTR(HEX(RANDOM_BYTES(2)), 2), '-', HEX(RANDOM_BYTES(6)))),
  f.recv_platform_id, NULL, '-', 'SANDBOX', f.send_currency, 0, UTC_TIMESTAMP(3),
  UTC_TIMESTAMP(3)
FROM (SELECT DISTINCT q.recv_platform_id, q.send_currency FROM quotes q
      JOIN transactions x ON x.id = q.transaction_id
      WHERE q.recv_platform_id <> q.platform_id AND q.fee_receiver > 0
        AND x.status IN ('PROCESSING', 'COMPLETED')) f
WHERE NOT EXISTS (SELECT 1 FROM internal_accounts a WHERE a.platform_id = f.recv_platform_id
  AND a.kind = 'SANDBOX' AND a.owner = '-' AND a.currency = f.send_currency);

INSERT INTO ledger_entries (posting_id, transaction_id, platform_id, account_id, currency,
  amount, memo, created_at)
SELECT x.id, NULL, a.platform_id, a.id, q.send_currency,
  IF(a.platform_id = q.platform_id, q.fee_receiver, -q.fee_receiver), 'fee_route_016',
  UTC_TIMESTAMP(3)
FROM quotes q JOIN transactions x ON x.id = q.transaction_id
JOIN internal_accounts a ON a.kind = 'SANDBOX' AND a.owner = '-'
  AND a.currency = q.send_currency AND a.platform_id IN (q.platform_id, q.recv_platform_id)
WHERE q.recv_platform_id <> q.platform_id AND q.fee_receiver > 0
  AND x.status IN ('PROCESSING', 'COMPLETED')
  AND NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.posting_id = x.id
    AND e.memo = 'fee_route_016');

UPDATE internal_accounts a
JOIN (SELECT DISTINCT account_id FROM ledger_entries WHERE memo = 'fee_route_016') m
  ON m.account_id = a.id
SET a.balance = (SELECT SUM(e.amount) FROM ledger_entries e WHERE e.account_id = a.id),
  a.updated_at = UTC_TIMESTAMP(3);
