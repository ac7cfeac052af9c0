-- 008_webhooks: the webhook outbox and the signing keys' public halves.

-- One row per business event (a transaction created or changing status),
-- written in the same database transaction as the change.  payload is the
-- exact body every attempt sends.  status PENDING (next_attempt_at is when
-- the next attempt may start; a worker that claims it moves it forward by
-- a lease, so a killed worker's claim comes back), DELIVERED or FAILED.
-- seq orders events made in the same millisecond.
CREATE TABLE webhook_events (
  id                    CHAR(36) CHARACTER SET ascii NOT NULL,
  seq                   BIGINT NOT NULL AUTO_INCREMENT,
  platform_id           CHAR(36) CHARACTER SET ascii NOT NULL,
  transaction_id        CHAR(36) CHARACTER SET ascii NOT NULL,
  type                  VARCHAR(40) CHARACTER SET ascii NOT NULL,
  payload               MEDIUMTEXT NOT NULL,
  status                VARCHAR(16) CHARACTER SET ascii NOT NULL,
  attempts              INT NOT NULL DEFAULT 0,
  last_response_status  INT NULL,
  last_attempt_at       DATETIME(3) NULL,
  next_attempt_at       DATETIME(3) NULL,
  created_at            DATETIME(3) NOT NULL,
  PRIMARY KEY (id),
  UNIQUE KEY ux_webhook_events_seq (seq),
  KEY ix_webhook_events_list (platform_id, created_at, seq),
  KEY ix_webhook_events_status (platform_id, status, created_at, seq),
  KEY ix_webhook_events_type (platform_id, type, created_at, seq),
  KEY ix_webhook_events_due (status, next_attempt_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Public keys of the webhook signing keys, so that GET
-- /webhooks/signing-key?keyId= still serves a key after a rotation until
-- the operator drops it.  The private key lives only in the file named by
-- webhook_signing_key.  Not platform data: one key signs for the service.
CREATE TABLE webhook_signing_keys (
  key_id          VARCHAR(64) CHARACTER SET ascii NOT NULL,
  public_key_pem  TEXT CHARACTER SET ascii NOT NULL,
  created_at      DATETIME(3) NOT NULL,
  retired_at      DATETIME(3) NULL,
  PRIMARY KEY (key_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
