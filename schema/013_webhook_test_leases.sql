-- 013_webhook_test_leases: one POST /webhooks/test at a time per platform
-- (decisions.md section 11).
--
-- A test takes its platform's row (a lease of 30 s, longer than the 10 s a
-- call may take) before it calls the endpoint and deletes it after; a
-- second test finds the lease held and is answered 429.  A lease whose
-- holder died simply runs out.  One row per platform at most, so nothing
-- needs purging.
CREATE TABLE IF NOT EXISTS webhook_test_leases (
  platform_id  CHAR(36) CHARACTER SET ascii NOT NULL,
  holder       CHAR(36) CHARACTER SET ascii NOT NULL,
  until        DATETIME(3) NOT NULL,
  PRIMARY KEY (platform_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
