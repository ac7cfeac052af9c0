-- 012_auth_failures: failed authentications counted per clientId and
-- client address (decisions.md section 2).
--
-- A row counts the failures of one token from one address (nginx's
-- $remote_addr) within the window that began at `since`; only that
-- address is throttled, so knowing a clientId is not enough to lock its
-- owner out.  Every request reads its own row with the token
-- (src/db_tokens.c, TOKEN_AUTH_FAILURES_JOIN); xborder-worker's purge
-- drops rows whose window closed long ago.  The token's own counters,
-- which counted every address together, are gone.
CREATE TABLE IF NOT EXISTS auth_failures (
  token_id  CHAR(36) CHARACTER SET ascii NOT NULL,
  addr      VARCHAR(64) CHARACTER SET ascii NOT NULL,
  failures  INT NOT NULL,
  since     DATETIME(3) NOT NULL,
  PRIMARY KEY (token_id, addr),
  KEY ix_auth_failures_since (since)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

ALTER TABLE tokens DROP COLUMN IF EXISTS auth_failures,
  DROP COLUMN IF EXISTS auth_failure_since;
