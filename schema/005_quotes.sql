-- 005_quotes: cross-currency quotes.  A quote snapshots every input of its
-- pricing when it is created (reference prices, the corridor's spread and
-- fee bps, the fee split, the lock time), so that nothing changed later
-- alters it.  Its OUTGOING transaction is created with it (CREATED).
-- status is QUOTE_READY or BLOCKED at creation and EXPIRED once
-- expires_at passed unexecuted (written by the first reader or the worker's
-- sweep, whichever comes first).
CREATE TABLE quotes (
  id                   CHAR(36) CHARACTER SET ascii NOT NULL,
  platform_id          CHAR(36) CHARACTER SET ascii NOT NULL,
  transaction_id       CHAR(36) CHARACTER SET ascii NOT NULL,
  customer_id          CHAR(36) CHARACTER SET ascii NOT NULL,
  source_account_id    CHAR(36) CHARACTER SET ascii NOT NULL,
  dest_type            VARCHAR(16) CHARACTER SET ascii NOT NULL,
  dest_ref             VARCHAR(400) NOT NULL,
  recv_platform_id     CHAR(36) CHARACTER SET ascii NOT NULL,
  recv_customer_id     CHAR(36) CHARACTER SET ascii NOT NULL,
  recv_ppv_address     VARCHAR(400) NULL,
  send_currency        CHAR(3) CHARACTER SET ascii NOT NULL,
  recv_currency        CHAR(3) CHARACTER SET ascii NOT NULL,
  locked_side          VARCHAR(9) CHARACTER SET ascii NOT NULL,
  locked_amount        BIGINT NOT NULL,
  send_amount          BIGINT NOT NULL,
  recv_amount          BIGINT NOT NULL,
  principal            BIGINT NOT NULL,
  fees                 BIGINT NOT NULL,
  fee_sender           BIGINT NOT NULL,
  fee_receiver         BIGINT NOT NULL,
  exchange_rate        VARCHAR(48) CHARACTER SET ascii NOT NULL,
  price_send           BIGINT NOT NULL,
  price_recv           BIGINT NOT NULL,
  spread_bps           INT NOT NULL,
  fee_sender_bps       INT NOT NULL,
  fee_receiver_bps     INT NOT NULL,
  counterparty         TEXT NULL,
  outcome              VARCHAR(16) CHARACTER SET ascii NOT NULL DEFAULT 'COMPLETES',
  status               VARCHAR(16) CHARACTER SET ascii NOT NULL,
  created_at           DATETIME(3) NOT NULL,
  expires_at           DATETIME(3) NOT NULL,
  executed_at          DATETIME(3) NULL,
  PRIMARY KEY (id),
  UNIQUE KEY uq_quotes_transaction (transaction_id),
  KEY ix_quotes_list (platform_id, created_at, id),
  KEY ix_quotes_status (platform_id, status, created_at),
  KEY ix_quotes_due (status, expires_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
