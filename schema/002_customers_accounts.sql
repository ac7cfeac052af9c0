-- 002_customers_accounts: customers with their PPV names, internal
-- accounts (the balances), external bank accounts (masked) and the
-- double-entry ledger every balance change is written to.

-- live_* columns are NULL once a row is soft-deleted, so the unique keys
-- hold among live rows only (NULLs never collide).
CREATE TABLE customers (
  id                    CHAR(36) CHARACTER SET ascii NOT NULL,
  platform_id           CHAR(36) CHARACTER SET ascii NOT NULL,
  platform_customer_id  VARCHAR(128) NOT NULL,
  customer_type         VARCHAR(16) CHARACTER SET ascii NOT NULL,
  full_name             VARCHAR(256) NOT NULL,
  kyc_status            VARCHAR(16) CHARACTER SET ascii NOT NULL,
  ppv_name              VARCHAR(64) CHARACTER SET ascii NOT NULL,
  created_at            DATETIME(3) NOT NULL,
  updated_at            DATETIME(3) NOT NULL,
  deleted_at            DATETIME(3) NULL,
  live_platform_customer_id VARCHAR(128) AS (IF(deleted_at IS NULL, platform_customer_id, NULL)) PERSISTENT,
  live_ppv_name         VARCHAR(64) CHARACTER SET ascii AS (IF(deleted_at IS NULL, ppv_name, NULL)) PERSISTENT,
  PRIMARY KEY (id),
  UNIQUE KEY uq_customers_pcid (platform_id, live_platform_customer_id),
  UNIQUE KEY uq_customers_ppv (platform_id, live_ppv_name),
  KEY ix_customers_list (platform_id, deleted_at, created_at, id),
  CONSTRAINT fk_customers_platform FOREIGN KEY (platform_id) REFERENCES platforms (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Every account money can sit in.  kind CUSTOMER and PLATFORM are the
-- API's internal accounts; SANDBOX is the outside world of the test
-- environment (funding comes from it, so it alone may go negative) and
-- IN_TRANSIT holds money on its way out.  owner is the customer id, or '-'
-- for the platform's own accounts, so that "one account per owner, kind
-- and currency" is a unique key even where customer_id is NULL.
CREATE TABLE internal_accounts (
  id           CHAR(36) CHARACTER SET ascii NOT NULL,
  platform_id  CHAR(36) CHARACTER SET ascii NOT NULL,
  customer_id  CHAR(36) CHARACTER SET ascii NULL,
  kind         VARCHAR(16) CHARACTER SET ascii NOT NULL,
  currency     CHAR(3) CHARACTER SET ascii NOT NULL,
  balance      BIGINT NOT NULL DEFAULT 0,
  created_at   DATETIME(3) NOT NULL,
  updated_at   DATETIME(3) NOT NULL,
  owner        CHAR(36) CHARACTER SET ascii NOT NULL,
  PRIMARY KEY (id),
  UNIQUE KEY uq_internal_accounts_owner (platform_id, kind, owner, currency),
  KEY ix_internal_accounts_list (platform_id, kind, created_at, id),
  KEY ix_internal_accounts_customer (customer_id),
  CONSTRAINT fk_internal_accounts_platform FOREIGN KEY (platform_id) REFERENCES platforms (id),
  CONSTRAINT fk_internal_accounts_customer FOREIGN KEY (customer_id) REFERENCES customers (id),
  CONSTRAINT ck_internal_accounts_balance CHECK (balance >= 0 OR kind = 'SANDBOX')
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Bank accounts outside the service.  The full account and routing
-- numbers are never stored: only their last four characters and a keyed
-- fingerprint (HMAC-SHA-256 with the server's fingerprint_key).
CREATE TABLE external_accounts (
  id                   CHAR(36) CHARACTER SET ascii NOT NULL,
  platform_id          CHAR(36) CHARACTER SET ascii NOT NULL,
  customer_id          CHAR(36) CHARACTER SET ascii NOT NULL,
  currency             CHAR(3) CHARACTER SET ascii NOT NULL,
  platform_account_id  VARCHAR(128) NOT NULL,
  account_type         VARCHAR(16) CHARACTER SET ascii NOT NULL,
  account_category     VARCHAR(16) CHARACTER SET ascii NOT NULL,
  bank_name            VARCHAR(140) NOT NULL,
  account_last4        VARCHAR(4) CHARACTER SET ascii NOT NULL,
  routing_last4        VARCHAR(4) CHARACTER SET ascii NOT NULL,
  fingerprint          VARCHAR(64) CHARACTER SET ascii NOT NULL,
  status               VARCHAR(16) CHARACTER SET ascii NOT NULL,
  created_at           DATETIME(3) NOT NULL,
  updated_at           DATETIME(3) NOT NULL,
  deleted_at           DATETIME(3) NULL,
  live_fingerprint     VARCHAR(64) CHARACTER SET ascii AS (IF(deleted_at IS NULL, fingerprint, NULL)) PERSISTENT,
  PRIMARY KEY (id),
  UNIQUE KEY uq_external_accounts_live (platform_id, customer_id, currency, live_fingerprint),
  KEY ix_external_accounts_list (platform_id, deleted_at, created_at, id),
  KEY ix_external_accounts_customer (customer_id),
  CONSTRAINT fk_external_accounts_platform FOREIGN KEY (platform_id) REFERENCES platforms (id),
  CONSTRAINT fk_external_accounts_customer FOREIGN KEY (customer_id) REFERENCES customers (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- The ledger: one row per posting.  The postings of one posting_id sum
-- to zero per currency; an account's balance equals the sum of its rows.
CREATE TABLE ledger_entries (
  id          BIGINT NOT NULL AUTO_INCREMENT,
  posting_id  CHAR(36) CHARACTER SET ascii NOT NULL,
  platform_id CHAR(36) CHARACTER SET ascii NOT NULL,
  account_id  CHAR(36) CHARACTER SET ascii NOT NULL,
  currency    CHAR(3) CHARACTER SET ascii NOT NULL,
  amount      BIGINT NOT NULL,
  memo        VARCHAR(64) CHARACTER SET ascii NOT NULL,
  created_at  DATETIME(3) NOT NULL,
  PRIMARY KEY (id),
  KEY ix_ledger_posting (posting_id),
  KEY ix_ledger_account (account_id),
  CONSTRAINT fk_ledger_account FOREIGN KEY (account_id) REFERENCES internal_accounts (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

ALTER TABLE platform_configs ADD UNIQUE KEY uq_platform_configs_uma (uma_domain);
