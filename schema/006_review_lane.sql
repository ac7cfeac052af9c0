-- 006_review_lane: the incoming-review lane.  A simulated incoming payment
-- is a transaction (kind SIMULATION) with its review scenario and the
-- details its readback shows; it is in the lane while it is PENDING, and
-- no decision is taken on it once review_expires_at has passed.  Every
-- decision on a case is kept for audit, with who made it and what it gave.
ALTER TABLE transactions
  ADD COLUMN review_scenario VARCHAR(32) CHARACTER SET ascii NULL AFTER outcome,
  ADD COLUMN review_detail TEXT NULL AFTER review_scenario,
  ADD COLUMN review_expires_at DATETIME(3) NULL AFTER review_detail;

CREATE TABLE review_decisions (
  id              BIGINT NOT NULL AUTO_INCREMENT,
  transaction_id  CHAR(36) CHARACTER SET ascii NOT NULL,
  platform_id     CHAR(36) CHARACTER SET ascii NOT NULL,
  token_id        CHAR(36) CHARACTER SET ascii NOT NULL,
  action          VARCHAR(8) CHARACTER SET ascii NOT NULL,
  note            TEXT NULL,
  counterparty    TEXT NULL,
  created_at      DATETIME(3) NOT NULL,
  PRIMARY KEY (id),
  KEY ix_review_decisions_txn (transaction_id, id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
