-- 027_count_checkpoints: the recent checks' counts check without counting
-- every transaction of a platform each run (src/db_checks_counts.c).
--
-- For a platform, how many of its transactions were in each status and
-- type, and how many each of its customers had, when the webhook events
-- up to event_seq had been made: a run moves these by what the events
-- since changed and compares them with txn_counts and txn_customer_counts
-- (kept by the writes themselves, 009 and 025).  Derived from the
-- transactions alone, never from the counts they check.

-- The platforms whose checkpoint holds, the event seq it stands at (only
-- one equal to the last run's event_upto is used) and the one at which it
-- was last taken from a count of the transactions.
CREATE TABLE IF NOT EXISTS count_checkpoint_platforms (
  platform_id  CHAR(36) CHARACTER SET ascii NOT NULL,
  event_seq    BIGINT NOT NULL,
  counted_seq  BIGINT NOT NULL,
  PRIMARY KEY (platform_id)
) ENGINE=InnoDB;

-- A count: customer_id '' for a (status, type) count; status and type ''
-- for a customer's.  A missing row is 0.
CREATE TABLE IF NOT EXISTS count_checkpoints (
  platform_id  CHAR(36) CHARACTER SET ascii NOT NULL,
  customer_id  CHAR(36) CHARACTER SET ascii NOT NULL,
  status       VARCHAR(16) CHARACTER SET ascii NOT NULL,
  type         VARCHAR(8) CHARACTER SET ascii NOT NULL,
  n            BIGINT NOT NULL,
  PRIMARY KEY (platform_id, customer_id, status, type)
) ENGINE=InnoDB;
