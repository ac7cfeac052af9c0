-- 019_worker_beats: each xborder-worker's heartbeat, by its share of the
-- work (worker_shard K/N in xborder.conf).  A worker takes the jobs and
-- webhook events of its own share, and those of a share whose worker has
-- not beaten for 10 seconds (gone, or never started); a live worker's
-- share is its alone, however far behind it is, so that workers on
-- different nodes of a cluster never write the same platform's rows.
-- Each worker writes only its own row.

CREATE TABLE IF NOT EXISTS worker_beats (
  shards   INT NOT NULL,          -- N
  shard    INT NOT NULL,          -- K
  beat_at  DATETIME(3) NOT NULL,
  PRIMARY KEY (shards, shard)
) ENGINE=InnoDB;
