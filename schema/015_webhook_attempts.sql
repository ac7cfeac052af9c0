-- 015_webhook_attempts: what each delivery attempt of a webhook event did,
-- for GET /webhooks/deliveries/{webhookId} (decisions.md section 11).
--
-- One small row per attempt, written by xborder-worker in the database
-- transaction that records the attempt's outcome on its event
-- (src/db_webhooks.c, db_wh_result).  n is the event's attempt number
-- (webhook_events.attempts after it), so the primary key reads an event's
-- rows together; only the last 20 of an event are kept (older ones are
-- deleted as new ones come), so an event has at most about 20 rows.
-- started_at is when the attempt started (the server's clock at its end
-- less duration_ms); response_status the HTTP status, NULL when no answer
-- came; error 0 when an answer came, else the reason (wh_http.h, enum
-- wh_reason: 1 blocked address, 2 connection refused, 3 timeout, 4 could
-- not resolve host, 5 TLS failure, 6 no response, 7 invalid URL); manual 1
-- for the attempt a POST /webhooks/deliveries/{webhookId}/retry asked for.
-- The purge deletes an event's rows with the event (src/db_idem.c), in
-- the same database transaction; no foreign key: the worker's insert
-- would otherwise take a shared lock on the event row in every attempt.
CREATE TABLE IF NOT EXISTS webhook_attempts (
  event_id         CHAR(36) CHARACTER SET ascii NOT NULL,
  n                INT NOT NULL,
  platform_id      CHAR(36) CHARACTER SET ascii NOT NULL,
  started_at       DATETIME(3) NOT NULL,
  response_status  SMALLINT NULL,
  error            TINYINT NOT NULL,
  duration_ms      INT NOT NULL,
  manual           TINYINT NOT NULL,
  PRIMARY KEY (event_id, n)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- manual_retry is 1 from a retry request until a worker claims the event
-- for the attempt it asked for (the claim carries it to that attempt's
-- row).  ix_webhook_events_txn serves the delivery log's transactionId
-- filter in the list's order, as the other indexes serve theirs.
ALTER TABLE webhook_events
  ADD COLUMN IF NOT EXISTS manual_retry TINYINT NOT NULL DEFAULT 0,
  ADD KEY IF NOT EXISTS ix_webhook_events_txn (platform_id, transaction_id, created_at, seq);
