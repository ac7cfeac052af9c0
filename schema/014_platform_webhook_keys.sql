-- 014_platform_webhook_keys: one webhook signing key per platform.
--
-- Every platform signs its events with a key of its own, so that one
-- platform's events never verify under another's key.  No private key is
-- stored: the private key of a row is derived when it signs, as
-- HMAC-SHA-256(master, label || platform_id || salt) taken as an Ed25519
-- seed (src/wh_sign.c), where the master is the operator's secret in the
-- file named by webhook_signing_key.  A row keeps what derives it again
-- (platform_id and a random salt) and what is public (the key id and the
-- public key); master_id names the master it was derived from (the key id
-- of the file's key), so a platform whose current key came from another
-- master gets a new one once the operator replaces the master.
--
-- is_current is 1 for the key that signs now and NULL for the previous
-- key, which stays readable until expires_at (72 hours after the rotation
-- that retired it); the unique key allows one current key per platform,
-- so two processes that make a platform's first key at once make one.
CREATE TABLE IF NOT EXISTS webhook_platform_keys (
  platform_id     CHAR(36) CHARACTER SET ascii NOT NULL,
  key_id          CHAR(16) CHARACTER SET ascii NOT NULL,
  salt            CHAR(32) CHARACTER SET ascii NOT NULL,
  master_id       CHAR(16) CHARACTER SET ascii NOT NULL,
  public_key_pem  TEXT CHARACTER SET ascii NOT NULL,
  is_current      TINYINT NULL,
  created_at      DATETIME(3) NOT NULL,
  retired_at      DATETIME(3) NULL,
  expires_at      DATETIME(3) NULL,
  PRIMARY KEY (platform_id, key_id),
  UNIQUE KEY ux_webhook_platform_keys_current (platform_id, is_current),
  CONSTRAINT fk_webhook_platform_keys_platform FOREIGN KEY (platform_id) REFERENCES platforms (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- The service-wide keys' public halves: no key signs for the whole
-- service any more.  The file of webhook_signing_key stays as it is and
-- is the master from now on.
DROP TABLE IF EXISTS webhook_signing_keys;
