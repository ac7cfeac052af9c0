-- 007_in_transit_reservations: the balance limit's new rules for money in
-- flight (src/settle.c).  A transfer-in now moves its amount from the
-- platform's SANDBOX account to its IN_TRANSIT account when it is made, and
-- a payout the bank is going to return keeps its amount in IN_TRANSIT
-- until it comes back.  This moves what the transactions made under the
-- older rules need: for every PENDING transfer-in and every COMPLETED
-- payout still to be returned, the amount from SANDBOX to IN_TRANSIT, as
-- one balanced posting per transaction (its posting_id is the
-- transaction's id).  It also lowers currency limits configured above what
-- PATCH /config accepts now (10^15).
--
-- Apply it with xborder-worker stopped, so that no settlement runs under
-- the older rules meanwhile.  Every statement can run again after a
-- failure.

-- The accounts those postings need, where missing (ids are UUIDv4).
INSERT INTO internal_accounts (id, platform_id, customer_id, owner, kind, currency,
  balance, created_at, updated_at)
SELECT LOWER(CONCAT(HEX(RANDOM_BYTES(4)), '-', HEX(RANDOM_BYTES(2)), '-4',
    SUBSTR(HEX(RANDOM_BYTES(2)), 2), '-', SUBSTR('89ab', 1 + FLOOR(RAND() * 4), 1),
    SUBSTR(HEX(RANDOM_BYTES(2)), 2), '-', HEX(RANDOM_BYTES(6)))),
  f.platform_id, NULL, '-', k.kind, f.currency, 0, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3)
FROM (SELECT DISTINCT platform_id, currency FROM transactions
      WHERE (kind = 'TRANSFER_IN' AND status = 'PENDING')
         OR (kind = 'TRANSFER_OUT' AND status = 'COMPLETED' AND outcome = 'RETURNS')) f
CROSS JOIN (SELECT 'SANDBOX' AS kind UNION ALL SELECT 'IN_TRANSIT') k
WHERE NOT EXISTS (SELECT 1 FROM internal_accounts a WHERE a.platform_id = f.platform_id
  AND a.kind = k.kind AND a.owner = '-' AND a.currency = f.currency);

-- The postings: SANDBOX -amount, IN_TRANSIT +amount, per transaction.
INSERT INTO ledger_entries (posting_id, platform_id, account_id, currency, amount, memo,
  created_at)
SELECT t.id, t.platform_id, a.id, t.currency, IF(a.kind = 'SANDBOX', -t.amount, t.amount),
  'in_transit_004', UTC_TIMESTAMP(3)
FROM transactions t JOIN internal_accounts a ON a.platform_id = t.platform_id
  AND a.owner = '-' AND a.currency = t.currency AND a.kind IN ('SANDBOX', 'IN_TRANSIT')
WHERE ((t.kind = 'TRANSFER_IN' AND t.status = 'PENDING')
    OR (t.kind = 'TRANSFER_OUT' AND t.status = 'COMPLETED' AND t.outcome = 'RETURNS'))
  AND NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.posting_id = t.id);

-- The balances of the accounts posted to: the sum of their entries, which
-- is what every balance is (xborderctl ledger-check).
UPDATE internal_accounts a
JOIN (SELECT DISTINCT account_id FROM ledger_entries WHERE memo = 'in_transit_004') m
  ON m.account_id = a.id
SET a.balance = (SELECT SUM(e.amount) FROM ledger_entries e WHERE e.account_id = a.id),
  a.updated_at = UTC_TIMESTAMP(3);

-- minAmount and maxAmount at most 10^15 (src/h_config.c).
UPDATE supported_currencies
SET min_amount = LEAST(min_amount, 1000000000000000),
  max_amount = LEAST(max_amount, 1000000000000000)
WHERE max_amount > 1000000000000000;
