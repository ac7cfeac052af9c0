-- 001_foundation: platforms, their configuration, execution profiles,
-- API tokens and the sandbox FX reference prices.  Identifiers are raw
-- lowercase UUIDs (the API adds the Kind: prefix); timestamps are UTC.

CREATE TABLE platforms (
  id          CHAR(36) CHARACTER SET ascii NOT NULL,
  name        VARCHAR(128) NOT NULL,
  created_at  DATETIME(3) NOT NULL,
  PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE platform_configs (
  id                CHAR(36) CHARACTER SET ascii NOT NULL,
  platform_id       CHAR(36) CHARACTER SET ascii NOT NULL,
  uma_domain        VARCHAR(253) NOT NULL,
  ppv_domain        VARCHAR(253) NOT NULL,
  webhook_endpoint  VARCHAR(2048) NULL,
  sender_fee_bps    INT NOT NULL DEFAULT 0,
  receiver_fee_bps  INT NOT NULL DEFAULT 0,
  created_at        DATETIME(3) NOT NULL,
  updated_at        DATETIME(3) NOT NULL,
  PRIMARY KEY (id),
  UNIQUE KEY uq_platform_configs_platform (platform_id),
  UNIQUE KEY uq_platform_configs_ppv (ppv_domain),
  CONSTRAINT fk_platform_configs_platform FOREIGN KEY (platform_id) REFERENCES platforms (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- One row per currency the platform supports, in the order it gave them.
-- enabled_types and required_fields keep the JSON arrays as validated;
-- the two flags serve queries.
CREATE TABLE supported_currencies (
  platform_id       CHAR(36) CHARACTER SET ascii NOT NULL,
  currency_code     CHAR(3) CHARACTER SET ascii NOT NULL,
  position          INT NOT NULL,
  min_amount        BIGINT NOT NULL,
  max_amount        BIGINT NOT NULL,
  outgoing_enabled  TINYINT(1) NOT NULL,
  incoming_enabled  TINYINT(1) NOT NULL,
  enabled_types     VARCHAR(64) CHARACTER SET ascii NOT NULL,
  required_fields   VARCHAR(1024) CHARACTER SET ascii NOT NULL,
  PRIMARY KEY (platform_id, currency_code),
  CONSTRAINT fk_supported_currencies_platform FOREIGN KEY (platform_id) REFERENCES platforms (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE execution_profiles (
  platform_id           CHAR(36) CHARACTER SET ascii NOT NULL,
  btc_fiat_spread_bps   INT NOT NULL,
  lock_price_seconds    INT NOT NULL,
  created_at            DATETIME(3) NOT NULL,
  updated_at            DATETIME(3) NOT NULL,
  PRIMARY KEY (platform_id),
  CONSTRAINT fk_execution_profiles_platform FOREIGN KEY (platform_id) REFERENCES platforms (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- API credentials.  The secret exists only as an argon2id encoded hash.
-- auth_failures/auth_failure_since count failed authentications in the
-- current 60-second window, shared by every worker.
CREATE TABLE tokens (
  id                  CHAR(36) CHARACTER SET ascii NOT NULL,
  platform_id         CHAR(36) CHARACTER SET ascii NOT NULL,
  name                VARCHAR(128) NOT NULL,
  secret_hash         VARCHAR(255) CHARACTER SET ascii NOT NULL,
  perm_view           TINYINT(1) NOT NULL,
  perm_manage         TINYINT(1) NOT NULL,
  issuer_type         VARCHAR(32) CHARACTER SET ascii NOT NULL,
  revoked_at          DATETIME(3) NULL,
  auth_failures       INT NOT NULL DEFAULT 0,
  auth_failure_since  DATETIME(3) NULL,
  created_at          DATETIME(3) NOT NULL,
  updated_at          DATETIME(3) NOT NULL,
  PRIMARY KEY (id),
  KEY ix_tokens_platform_created (platform_id, created_at, id),
  CONSTRAINT fk_tokens_platform FOREIGN KEY (platform_id) REFERENCES platforms (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE fx_reference_prices (
  currency_code        CHAR(3) CHARACTER SET ascii NOT NULL,
  price_minor_per_btc  BIGINT NOT NULL,
  updated_at           DATETIME(3) NOT NULL,
  PRIMARY KEY (currency_code)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
