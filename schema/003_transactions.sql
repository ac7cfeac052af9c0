-- 003_transactions: transactions, background jobs and idempotency keys.

-- A transaction of a platform.  kind says how it came to be (TRANSFER_IN,
-- TRANSFER_OUT, later QUOTE and SIMULATION); type is the API's direction.
-- amount/currency are the main amount (sentAmount for OUTGOING,
-- receivedAmount for INCOMING).  platform_customer_id is a snapshot taken
-- when the transaction is made, so the filter stays meaningful.
CREATE TABLE transactions (
  id                    CHAR(36) CHARACTER SET ascii NOT NULL,
  platform_id           CHAR(36) CHARACTER SET ascii NOT NULL,
  kind                  VARCHAR(16) CHARACTER SET ascii NOT NULL,
  type                  VARCHAR(8) CHARACTER SET ascii NOT NULL,
  status                VARCHAR(16) CHARACTER SET ascii NOT NULL,
  customer_id           CHAR(36) CHARACTER SET ascii NULL,
  platform_customer_id  VARCHAR(128) NULL,
  quote_id              VARCHAR(64) CHARACTER SET ascii NULL,
  internal_account_id   CHAR(36) CHARACTER SET ascii NULL,
  external_account_id   CHAR(36) CHARACTER SET ascii NULL,
  destination_type      VARCHAR(16) CHARACTER SET ascii NOT NULL,
  destination_ref       VARCHAR(400) NULL,
  currency              CHAR(3) CHARACTER SET ascii NOT NULL,
  amount                BIGINT NOT NULL,
  exchange_rate         VARCHAR(32) CHARACTER SET ascii NULL,
  fee_currency          CHAR(3) CHARACTER SET ascii NULL,
  fee_amount            BIGINT NULL,
  outcome               VARCHAR(16) CHARACTER SET ascii NOT NULL DEFAULT 'COMPLETES',
  created_at            DATETIME(3) NOT NULL,
  updated_at            DATETIME(3) NOT NULL,
  settled_at            DATETIME(3) NULL,
  PRIMARY KEY (id),
  KEY ix_transactions_list (platform_id, created_at, id),
  KEY ix_transactions_customer (platform_id, customer_id, created_at),
  KEY ix_transactions_status (platform_id, status, created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Work for xborder-worker.  Claimed with SELECT ... FOR UPDATE SKIP LOCKED
-- so that any number of workers can run; a failed attempt is retried with
-- backoff (run_at moves forward, attempts counts).
CREATE TABLE jobs (
  id           BIGINT NOT NULL AUTO_INCREMENT,
  kind         VARCHAR(32) CHARACTER SET ascii NOT NULL,
  ref_id       CHAR(36) CHARACTER SET ascii NOT NULL,
  platform_id  CHAR(36) CHARACTER SET ascii NOT NULL,
  run_at       DATETIME(3) NOT NULL,
  attempts     INT NOT NULL DEFAULT 0,
  last_error   VARCHAR(255) NULL,
  done_at      DATETIME(3) NULL,
  created_at   DATETIME(3) NOT NULL,
  PRIMARY KEY (id),
  KEY ix_jobs_due (done_at, run_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Idempotency-Key records, per platform, kept 24 hours.  state RUNNING
-- while the first request is being handled, DONE with the response to
-- replay afterwards.  request_hash covers method, path and body.
CREATE TABLE idempotency_keys (
  platform_id      CHAR(36) CHARACTER SET ascii NOT NULL,
  idem_key         VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  request_hash     CHAR(64) CHARACTER SET ascii NOT NULL,
  state            VARCHAR(8) CHARACTER SET ascii NOT NULL,
  response_status  INT NULL,
  response_body    MEDIUMTEXT NULL,
  created_at       DATETIME(3) NOT NULL,
  expires_at       DATETIME(3) NOT NULL,
  PRIMARY KEY (platform_id, idem_key),
  KEY ix_idempotency_expiry (expires_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
