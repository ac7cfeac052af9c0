-- 004_idempotency_lease: a RUNNING Idempotency-Key claim belongs to one
-- attempt (claim_id) for a short lease.  The request's final state (DONE
-- with its response) is written in the same database transaction as its
-- business change, which also checks under a row lock that the claim is
-- still its own; a claim whose worker died is taken over once its lease
-- has passed, so a retry can never apply the change twice and never waits
-- 24 hours.
ALTER TABLE idempotency_keys
  ADD COLUMN claim_id CHAR(36) CHARACTER SET ascii NULL AFTER state,
  ADD COLUMN lease_until DATETIME(3) NULL AFTER claim_id;
